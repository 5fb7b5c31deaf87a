"""The CLI defers `importlib.metadata`, which astroid imports and a check never reads, to its first
use: the module is the real one when read, and in pylint and flake8, which load it first, nothing
changes. Each case runs in a fresh interpreter, since a module is imported once per process."""
from __future__ import annotations

import json
import subprocess
import sys

STATE = r"""
import json, sys, types
{first}
import npu_lint.frontends.cli
metadata = sys.modules["importlib.metadata"]
deferred = type(metadata) is not types.ModuleType  # the lazy module's own class until an attribute is read
import astroid
from importlib.metadata import version
print(json.dumps({{"deferred": deferred, "version": version("astroid"), "astroid": astroid.__version__,
                  "same_module": sys.modules["importlib.metadata"] is metadata}}))
"""


def _state(first: str = "") -> dict:
    process = subprocess.run([sys.executable, "-c", STATE.format(first=first)],
                             capture_output=True, text=True, check=True)
    return json.loads(process.stdout)


def test_the_cli_loads_importlib_metadata_only_when_read():
    state = _state()
    assert state["deferred"]
    assert state["version"] == state["astroid"]  # read, it is the real module
    assert state["same_module"]


def test_a_process_that_loaded_it_first_keeps_its_module():
    state = _state(first="import importlib.metadata")  # as pylint and flake8 do before npu-lint loads
    assert not state["deferred"]
    assert state["version"] == state["astroid"]


def test_a_check_in_a_fresh_process_reports_as_before(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import torch\nx = torch.zeros(2).cuda()\ntorch.cuda.synchronize()\n")
    process = subprocess.run([sys.executable, "-m", "npu_lint", "check", "--no-cache", "--format", "json",
                              "--select", "NPU101,NPU103", str(script)], capture_output=True, text=True)
    assert process.returncode == 1, process.stderr
    assert sorted(f["code"] for f in json.loads(process.stdout)) == ["NPU101", "NPU103"]
