"""Which packages are the project's own, also across a namespace package inside a regular one."""
from __future__ import annotations

import textwrap

from npu_lint.config.settings import Settings
from npu_lint.engine.engine import Engine

# SGLang 0.5.23: `sglang/srt/` has no __init__.py, so `sglang/srt/arg_groups/` starts a package
# chain of its own, and `from sglang.srt.runtime_context import get_platform` imports the
# project's own platform object (NPU104 leaves its `is_cuda` alone).
HOOK = """
import torch
from {package}.srt.runtime_context import get_platform


def _olmo2_overrides(cfg):
    if get_platform().is_cuda and get_platform().is_sm100:
        return "trtllm_mha"
"""


def _codes(tmp_path, package):
    files = {"sglang/__init__.py": "", "sglang/srt/arg_groups/__init__.py": "",
             "sglang/srt/arg_groups/model_overrides/__init__.py": "",
             "sglang/srt/arg_groups/model_overrides/olmo2.py": HOOK.format(package=package)}
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    path = tmp_path / "sglang/srt/arg_groups/model_overrides/olmo2.py"
    return [f.code for f in Engine(Settings()).check_text(path.read_text(), str(path)).findings]


def test_a_package_above_a_namespace_package_is_the_projects(tmp_path):
    assert "NPU104" not in _codes(tmp_path, "sglang")


def test_another_librarys_platform_is_still_reported(tmp_path):
    assert "NPU104" in _codes(tmp_path, "vendorlib")
