"""Linting never imports or runs the code it checks, nor anything that code imports."""
from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig

import pytest
from conftest import run_tool

MARKER_CODE = "open({marker!r}, 'w').write('ran')\n"


@pytest.fixture
def project(tmp_path):
    marker = tmp_path / "MARKER"
    src = tmp_path / "proj"
    (src / "evilpkg").mkdir(parents=True)
    (src / "evil.py").write_text(MARKER_CODE.format(marker=str(marker)) + "thing = 1\n")
    (src / "evilpkg" / "__init__.py").write_text(MARKER_CODE.format(marker=str(marker)) + "thing = 1\n")
    (src / "train.py").write_text(
        "import torch\nimport evil\nimport evilpkg\nimport cext\n"
        "evil.thing.cuda()\nevilpkg.thing.cuda()\ncext.thing.cuda()\n"
        "from evil import thing\nthing.cuda()\n"
    )
    return src, marker


def _build_c_extension(folder, marker) -> bool:
    """A real C extension whose import would create the marker."""
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        return False
    source = folder / "cext.c"
    source.write_text(
        "#include <Python.h>\n#include <stdio.h>\n"
        "static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, \"cext\", NULL, -1, NULL};\n"
        "PyMODINIT_FUNC PyInit_cext(void) {\n"
        f"    FILE *f = fopen(\"{marker}\", \"w\"); if (f) {{ fputs(\"ran\", f); fclose(f); }}\n"
        "    return PyModule_Create(&def);\n}\n"
    )
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    target = folder / f"cext{suffix}"
    proc = subprocess.run([compiler, "-shared", "-fPIC", f"-I{sysconfig.get_paths()['include']}", str(source),
                           "-o", str(target)], capture_output=True, text=True)
    return proc.returncode == 0


def _assert_extension_really_runs(src, marker):
    """The control: importing it for real does create the marker."""
    subprocess.run([sys.executable, "-c", "import cext"], cwd=src, check=True)
    assert marker.exists()
    marker.unlink()


@pytest.mark.parametrize("front_end", ["check", "fix-diff", "flake8", "pylint"])
def test_linting_runs_none_of_the_users_code(project, front_end):
    src, marker = project
    has_extension = _build_c_extension(src, marker)
    if has_extension:
        _assert_extension_really_runs(src, marker)
    commands = {
        "check": ("npu_lint", "check", "--unsafe-fixes" if False else "--format", "json", "train.py"),
        "fix-diff": ("npu_lint", "fix", "--diff", "--unsafe-fixes", "train.py"),
        "flake8": ("flake8", "--select", "NPU", "train.py"),
        "pylint": ("pylint", "--load-plugins", "npu_lint", "--disable", "all", "--enable", "npu-lint-npu1xx",
                   "train.py"),
    }
    proc = run_tool(*commands[front_end], cwd=src)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert not marker.exists(), f"{front_end} ran the user's code"
    if front_end == "check":
        assert "NPU103" in proc.stdout  # and it still linted the calls


def test_rule_files_cannot_run_code(tmp_path):
    marker = tmp_path / "MARKER"
    evil = tmp_path / "evil.yaml"
    evil.write_text(f"rules: !!python/object/apply:os.system ['touch {marker}']\n")
    target = tmp_path / "a.py"
    target.write_text("import torch\n")
    proc = run_tool("npu_lint", "check", "--extend-rules", str(evil), str(target))
    assert proc.returncode == 2 and "not valid YAML" in proc.stderr and "Traceback" not in proc.stderr
    assert not marker.exists()


def test_configuration_is_data_only(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.npu-lint]\nselect = "__import__(\'os\').system(\'x\')"\n')
    (tmp_path / "a.py").write_text("import torch\n")
    proc = run_tool("npu_lint", "check", str(tmp_path / "a.py"))
    assert proc.returncode == 2 and "not npu-lint rule codes" in proc.stderr
