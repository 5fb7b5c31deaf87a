"""Configuration files: [tool.npu-lint] in pyproject.toml, [npu-lint] in setup.cfg."""
from __future__ import annotations

import json

import pytest
from conftest import run_tool

from npu_lint.config.files import ConfigError, load_settings
from npu_lint.knowledge.loader import shipped_rules
from npu_lint.knowledge.release_data import releases

GPU = "import torch\nimport torch_npu\ntorch.cuda.synchronize()\nx = torch.ones(2, device='cuda')\n"


def _codes(path, *args):
    proc = run_tool("npu_lint", "check", "--format", "json", *args, str(path))
    assert "Traceback" not in proc.stderr, proc.stderr
    return sorted(item["code"] for item in json.loads(proc.stdout or "[]"))


def test_pyproject_table_is_read(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.npu-lint]\nignore = ["NPU110"]\ntarget-torch-npu = "2.13"\n'
        '[tool.npu-lint.per-file-ignores]\n"legacy/*.py" = ["NPU101"]\n')
    (tmp_path / "legacy").mkdir()
    (tmp_path / "legacy" / "old.py").write_text(GPU)
    (tmp_path / "new.py").write_text(GPU)
    settings = load_settings(str(tmp_path / "new.py"))
    assert settings.target_torch_npu == "2.13.0" and settings.ignore == ("NPU110",)
    assert _codes(tmp_path / "new.py") == ["NPU101"]
    assert _codes(tmp_path / "legacy" / "old.py") == []
    assert _codes(tmp_path / "new.py", "--select", "NPU1") == ["NPU101"], "flags override the file"


def test_select_all_in_the_configuration(tmp_path):
    # Ruff's spelling for every rule, the off-by-default ones too, for every front end
    (tmp_path / "pyproject.toml").write_text('[tool.npu-lint]\nselect = ["ALL"]\n')
    settings = load_settings(str(tmp_path / "a.py"))
    assert settings.select == ("ALL",)
    by_code = {rule.code: rule for rule in shipped_rules()}
    assert settings.enables(by_code["NPU101"]) and settings.enables(by_code["NPU601"])


def test_setup_cfg_section_is_read(tmp_path):
    (tmp_path / "setup.cfg").write_text("[npu-lint]\nselect = NPU11\nexclude = generated\n")
    (tmp_path / "a.py").write_text(GPU)
    (tmp_path / "generated").mkdir()
    (tmp_path / "generated" / "b.py").write_text(GPU)
    proc = run_tool("npu_lint", "check", str(tmp_path))
    assert "a.py:4:" in proc.stdout and "NPU110" in proc.stdout
    assert "NPU101" not in proc.stdout and "b.py" not in proc.stdout


@pytest.mark.parametrize(
    "text, message",
    [
        ('[tool.npu-lint]\ncolour = "red"\n', "key 'colour': unknown key"),
        ('[tool.npu-lint]\nselect = 3\n', "key 'select': expected a list of rule codes"),
        ('[tool.npu-lint]\nselect = ["E501"]\n', "not npu-lint rule codes: E501"),
        ('[tool.npu-lint]\ntarget-torch-npu = "1.0"\n', "key 'target-torch-npu'"),
        ('[tool.npu-lint]\nunsafe-fixes = "maybe"\n', "key 'unsafe-fixes': expected true or false"),
        ('[tool.npu-lint\n', "not valid TOML"),
    ],
)
def test_bad_configuration_is_a_clear_error(tmp_path, text, message):
    config = tmp_path / "pyproject.toml"
    config.write_text(text)
    (tmp_path / "a.py").write_text(GPU)
    with pytest.raises(ConfigError) as info:
        load_settings(str(tmp_path / "a.py"))
    assert str(info.value).startswith(str(config)) and message in str(info.value)
    proc = run_tool("npu_lint", "check", str(tmp_path / "a.py"))
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr


def test_target_release_changes_the_answer(tmp_path):
    # torch.npu.get_per_process_memory_fraction is absent from the oldest release.
    path = tmp_path / "a.py"
    path.write_text("import torch\nimport torch_npu\ntorch.cuda.get_per_process_memory_fraction()\n")
    assert _codes(path) == ["NPU101"]
    old = releases()[0]
    proc = run_tool("npu_lint", "check", "--target-torch-npu", old, str(path))
    assert f"torch_npu {old} does not provide (torch_npu " in proc.stdout and "NPU102" in proc.stdout


def test_flake8_and_pylint_take_the_option(tmp_path):
    path = tmp_path / "a.py"
    path.write_text("import torch\nimport torch_npu\ntorch.cuda.get_per_process_memory_fraction()\n")
    old = releases()[0]
    flake8 = run_tool("flake8", "--select", "NPU", f"--target-torch-npu={old}", str(path))
    assert "NPU102" in flake8.stdout, flake8.stdout + flake8.stderr
    pylint = run_tool("pylint", "--load-plugins", "npu_lint", "--disable", "all", "--enable",
                      "torch-cuda-api-without-npu-equivalent", f"--target-torch-npu={old}", str(path))
    assert "torch-cuda-api-without-npu-equivalent" in pylint.stdout, pylint.stdout + pylint.stderr


def test_folders_are_walked_with_gitignore(tmp_path):
    import shutil
    import subprocess

    if shutil.which("git") is None:
        import pytest

        pytest.skip("git is not installed")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("generated/\nscratch.py\n")
    for name in ("kept.py", "scratch.py", "generated/made.py"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(GPU)
    proc = run_tool("npu_lint", "check", "--format", "concise", "--no-cache", str(tmp_path))
    assert "kept.py" in proc.stdout
    assert "scratch.py" not in proc.stdout and "made.py" not in proc.stdout
    named = run_tool("npu_lint", "check", "--format", "concise", "--no-cache", str(tmp_path / "scratch.py"))
    assert "scratch.py" in named.stdout, "a file named directly is always checked"


def test_a_bad_option_value_is_one_clear_message_in_every_front_end(tmp_path):
    # The options are declared once (config/options.py) and parsed like the configuration's keys.
    path = tmp_path / "train.py"
    path.write_text("import torch\ntorch.cuda.synchronize()\n")
    cli = run_tool("npu_lint", "check", "--target-torch-npu", "1.0", str(path))
    flake8 = run_tool("flake8", "--select", "NPU", "--target-torch-npu=1.0", str(path))
    pylint = run_tool("pylint", "--load-plugins", "npu_lint", "--target-torch-npu=1.0", str(path))
    assert cli.returncode == 2 and "key 'target-torch-npu': unsupported torch_npu release '1.0'" in cli.stderr
    assert "NPU000 npu-lint configuration error: flake8 options: key 'target-torch-npu'" in flake8.stdout
    assert "F5100" in pylint.stdout and "pylint options: key 'target-torch-npu'" in pylint.stdout
    for proc in (cli, flake8, pylint):
        assert "Traceback" not in proc.stdout + proc.stderr
