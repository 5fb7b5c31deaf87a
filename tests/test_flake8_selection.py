"""flake8 runs every installed plugin whatever --select says: unselected, npu-lint does nothing."""
from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import pytest

from npu_lint.frontends.flake8_plugin import npu_selected


def options(select=None, extend_select=None, ignore=None, extend_ignore=None):
    return SimpleNamespace(select=select, extend_select=extend_select, ignore=ignore, extend_ignore=extend_ignore)


@pytest.mark.parametrize("given, selected", [
    (options(), True),  # flake8 >= 6 selects plugin codes by default
    (options(select=["E9", "F63"]), False),
    (options(select=["NPU"]), True),
    (options(select=["N"]), True),
    (options(select=["NPU101"]), True),
    (options(select=["E9"], extend_select=["NPU1"]), True),
    (options(ignore=["NPU"]), False),
    (options(extend_ignore=["N"]), False),
    (options(ignore=["NPU101"]), True),
    (options(ignore=["NPU"], extend_select=["NPU101"]), True),
])
def test_which_runs_select_npu_lint(given, selected):
    assert npu_selected(given) is selected


CUDA_FILE = "import torch\ntorch.cuda.synchronize()\n"
PROBE = """
import sys
from flake8.main.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print("SETTINGS_READ" if "npu_lint.config.files" in sys.modules else "SETTINGS_NOT_READ")
print("ENGINE_LOADED" if "npu_lint.engine.engine" in sys.modules else "ENGINE_NOT_LOADED")
"""


@pytest.mark.parametrize("select, loaded", [("E9", False), ("NPU", True)])
def test_an_unselected_plugin_never_loads_the_engine(tmp_path, select, loaded):
    (tmp_path / "train.py").write_text(CUDA_FILE)
    proc = subprocess.run([sys.executable, "-c", PROBE, "--isolated", "-j1", f"--select={select}", "train.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.stdout.strip().endswith("ENGINE_LOADED" if loaded else "ENGINE_NOT_LOADED"), proc.stdout + proc.stderr
    assert ("NPU101" in proc.stdout) is loaded
    # Nor reads its options: validating them imports the settings (9% of flake8 on one file).
    assert ("SETTINGS_READ" in proc.stdout) is loaded


def test_a_bad_option_is_said_only_where_npu_lint_runs(tmp_path):
    (tmp_path / "train.py").write_text(CUDA_FILE)
    for select, said in (("E9", False), ("NPU", True)):
        proc = subprocess.run([sys.executable, "-c", PROBE, "--isolated", "-j1", f"--select={select}",
                               "--npu-chip=Atlas Z9", "train.py"], cwd=tmp_path, capture_output=True, text=True,
                              timeout=300)
        assert ("npu-lint configuration error" in proc.stdout) is said, proc.stdout + proc.stderr
        assert "Traceback" not in proc.stderr
