"""NPU120 once per program: which modules start a program (main guard, __main__.py, console
scripts read from packaging metadata without running it), and how the finding words each target."""
from __future__ import annotations

import textwrap

import pytest
from conftest import count_in_process, rewrite_later

from npu_lint.config import project_scripts
from npu_lint.config.project_scripts import is_script_target, project_root, scripts_of
from npu_lint.config.settings import Settings
from npu_lint.core.findings import Severity
from npu_lint.engine.engine import Engine

LIBRARY = "import torch\n\ndef step(x):\n    return x.cuda()\n"
SCRIPT = LIBRARY + "\nif __name__ == '__main__':\n    step(torch.ones(1))\n"


def _write(root, files: dict) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def _codes(path, settings=Settings()):
    return [f for f in Engine(settings).check_text(path.read_text(), str(path)).findings if f.code == "NPU120"]


@pytest.fixture(autouse=True)
def fresh_caches():
    project_root.cache_clear()
    project_scripts._READ.clear()
    yield
    project_root.cache_clear()


def test_setup_cfg_console_scripts_and_scripts(tmp_path):
    _write(tmp_path, {
        "setup.cfg": """
            [options]
            scripts = bin/run_train.py
            [options.entry_points]
            console_scripts =
                pkg-train = pkg.train:main
                pkg-cli = pkg.cli [extra]
            gui_scripts =
                pkg-gui = pkg.gui:run
            """,
        "pkg/train.py": LIBRARY, "pkg/cli/__init__.py": LIBRARY, "pkg/gui.py": LIBRARY,
        "pkg/engine.py": LIBRARY, "bin/run_train.py": LIBRARY,
    })
    assert scripts_of(str(tmp_path)).modules == {"pkg.train", "pkg.cli", "pkg.gui"}
    for name in ("pkg/train.py", "pkg/cli/__init__.py", "pkg/gui.py", "bin/run_train.py"):
        assert is_script_target(str(tmp_path / name)), name
    assert not is_script_target(str(tmp_path / "pkg/engine.py"))


def test_pyproject_scripts_with_a_src_layout(tmp_path):
    _write(tmp_path, {
        "pyproject.toml": """
            [project]
            name = "yolo"
            [project.scripts]
            yolo = "yolo.cfg:entrypoint"
            [tool.poetry.scripts]
            yolo-export = {reference = "yolo.export:main", type = "console"}
            """,
        "src/yolo/cfg/__init__.py": LIBRARY, "src/yolo/export.py": LIBRARY, "src/yolo/model.py": LIBRARY,
    })
    assert is_script_target(str(tmp_path / "src/yolo/cfg/__init__.py"))
    assert is_script_target(str(tmp_path / "src/yolo/export.py"))
    assert not is_script_target(str(tmp_path / "src/yolo/model.py"))


def test_setup_py_is_read_with_ast_and_never_run(tmp_path):
    _write(tmp_path, {
        "setup.py": """
            import sys
            from setuptools import setup
            sys.exit("setup.py was executed")
            ENTRY = {"console_scripts": ["fs-train = fs_cli.train:cli_main"]}

            def do_setup():
                setup(name="fs", entry_points=ENTRY, scripts=["tools/bench.py"])

            if __name__ == "__main__":
                do_setup()
            """,
        "fs_cli/train.py": LIBRARY, "tools/bench.py": LIBRARY, "fs/models.py": LIBRARY,
    })
    assert is_script_target(str(tmp_path / "fs_cli/train.py"))
    assert is_script_target(str(tmp_path / "tools/bench.py"))
    assert not is_script_target(str(tmp_path / "fs/models.py"))


def test_setup_py_entry_points_in_the_ini_form(tmp_path):
    _write(tmp_path, {"setup.py": 'import setuptools\nsetuptools.setup(entry_points="""\n'
                                  '[console_scripts]\nrun = app.main:go\n""")\n',
                      "app/main.py": LIBRARY})
    assert is_script_target(str(tmp_path / "app/main.py"))


def test_broken_packaging_files_name_nothing(tmp_path):
    _write(tmp_path, {"pyproject.toml": "[project\n", "setup.py": "setup(", "app.py": LIBRARY})
    assert scripts_of(str(tmp_path)).modules == frozenset()
    assert not is_script_target(str(tmp_path / "app.py"))


def test_entry_points_are_read_again_when_the_file_changes(tmp_path):
    _write(tmp_path, {"setup.cfg": "[metadata]\nname = a\n", "a/run.py": LIBRARY})
    assert not is_script_target(str(tmp_path / "a/run.py"))
    config = tmp_path / "setup.cfg"
    rewrite_later(config, "[options.entry_points]\nconsole_scripts =\n  run = a.run:main\n")
    assert is_script_target(str(tmp_path / "a/run.py"))


def test_npu120_only_on_entry_modules(tmp_path):
    _write(tmp_path, {
        "setup.cfg": "[options.entry_points]\nconsole_scripts =\n  t = app.train:main\n",
        "app/train.py": LIBRARY, "app/layers.py": LIBRARY, "app/__main__.py": LIBRARY, "eval.py": SCRIPT,
    })
    assert _codes(tmp_path / "app/train.py")
    assert _codes(tmp_path / "app/__main__.py")
    assert _codes(tmp_path / "eval.py")
    assert not _codes(tmp_path / "app/layers.py")


def test_text_without_a_file_is_an_entry_module_only_by_its_guard():
    engine = Engine()
    assert not [f for f in engine.check_text(LIBRARY).findings if f.code == "NPU120"]
    [finding] = [f for f in engine.check_text(SCRIPT).findings if f.code == "NPU120"]
    assert finding.start.line == 1


@pytest.mark.parametrize("target, severity, words", [
    ("2.1", Severity.WARNING, "exists only after `import torch_npu`"),
    ("2.4", Severity.WARNING, "exists only after `import torch_npu`"),
    ("2.5", Severity.INFO, "loads it by itself unless TORCH_DEVICE_BACKEND_AUTOLOAD=0"),
    ("2.14", Severity.INFO, "Ascend's documented step"),
])
def test_the_message_knows_whether_the_target_loads_torch_npu_itself(tmp_path, target, severity, words):
    _write(tmp_path, {"train.py": SCRIPT})
    [finding] = _codes(tmp_path / "train.py", Settings(target_torch_npu=target))
    assert finding.severity == severity
    assert words in finding.message


@pytest.mark.parametrize("switch", [
    'os.environ["TORCH_DEVICE_BACKEND_AUTOLOAD"] = "0"',
    'os.environ.setdefault("TORCH_DEVICE_BACKEND_AUTOLOAD", "false")',
])
def test_a_program_that_turns_autoload_off_gets_the_warning_back(tmp_path, switch):
    _write(tmp_path, {"train.py": f"import os\n{switch}\n" + SCRIPT})
    [finding] = _codes(tmp_path / "train.py", Settings(target_torch_npu="2.14"))
    assert finding.severity == Severity.WARNING
    assert "turns that off" in finding.message


def test_setting_autoload_to_one_keeps_it_information(tmp_path):
    _write(tmp_path, {"train.py": 'import os\nos.environ["TORCH_DEVICE_BACKEND_AUTOLOAD"] = "1"\n' + SCRIPT})
    [finding] = _codes(tmp_path / "train.py", Settings(target_torch_npu="2.14"))
    assert finding.severity == Severity.INFO


def test_the_result_cache_follows_the_packaging_metadata(tmp_path, capsys):
    project = tmp_path / "proj"
    _write(project, {"setup.cfg": "[metadata]\nname = a\n", "a/run.py": LIBRARY})
    cache = tmp_path / "cache"
    assert count_in_process(capsys, "NPU120", project, cache) == 0
    config = project / "setup.cfg"
    rewrite_later(config, "[options.entry_points]\nconsole_scripts =\n  run = a.run:main\n")
    assert count_in_process(capsys, "NPU120", project, cache) == 1


# A program that imports a package of its own project which imports torch_npu has it already
# (ColossalAI's tests: colossalai/__init__.py -> accelerator -> npu_accelerator.py).
PACKAGE = {
    "pkg/__init__.py": "from . import accelerator\n",
    "pkg/accelerator/__init__.py": "from .npu import NpuAccelerator\n",
    "pkg/accelerator/npu.py": "try:\n    import torch_npu\nexcept ImportError:\n    pass\n\nclass NpuAccelerator:\n    pass\n",
    "pkg/launch.py": "import torch\n\ndef launch():\n    return torch.device('cpu')\n",
    "pkg/lazy.py": "def load():\n    import torch_npu\n    return torch_npu\n",
}


@pytest.mark.parametrize("import_line", [
    "from pkg.launch import launch",  # the package's __init__ runs first
    "import pkg",
    "from pkg import accelerator",
])
def test_a_project_package_that_imports_torch_npu_brings_it(tmp_path, import_line):
    _write(tmp_path, {**PACKAGE, "tests/test_run.py": f"{import_line}\n{SCRIPT}"})
    assert _codes(tmp_path / "tests" / "test_run.py") == []


def test_a_torch_npu_import_inside_a_function_of_the_package_is_not_enough(tmp_path):
    files = {**PACKAGE, "pkg/__init__.py": "from .lazy import load\n"}
    _write(tmp_path, {**files, "tests/test_run.py": f"from pkg.launch import launch\n{SCRIPT}"})
    assert [f.code for f in _codes(tmp_path / "tests" / "test_run.py")] == ["NPU120"]


def test_a_library_of_the_same_name_elsewhere_is_not_followed(tmp_path):
    _write(tmp_path, {"other/pkg/__init__.py": "import torch_npu\n", "tests/test_run.py": f"import pkg\n{SCRIPT}"})
    assert [f.code for f in _codes(tmp_path / "tests" / "test_run.py")] == ["NPU120"]


# vllm-ascend's tests/ut/distributed/mooncake/test_mooncake_kv_transfer.py: the program asks
# whether torch has an `npu` namespace and stands one in when it has none. "npu" is the name of
# the attribute it probes, no device it uses; `import torch_npu` would fail where that stand-in
# is meant to run.
PROBE = ('import unittest\nfrom types import SimpleNamespace\n\nimport torch\n\n'
         'if not hasattr(torch, "npu"):\n    torch.npu = SimpleNamespace(Event=object)\n\n'
         'if __name__ == "__main__":\n    unittest.main()\n')


def test_a_probe_for_the_npu_namespace_is_no_device_use():
    assert not [f for f in Engine().check_text(PROBE).findings if f.code == "NPU120"]


@pytest.mark.parametrize("use", ['getattr(torch, "npu").synchronize()', 'torch.ones(1).to("npu")'])
def test_a_probe_beside_a_device_use_is_still_said(use):
    text = PROBE.replace("    unittest.main()", f"    {use}\n    unittest.main()")
    assert [f.code for f in Engine().check_text(text).findings if f.code == "NPU120"] == ["NPU120"]
