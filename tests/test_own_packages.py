"""Which packages are the project's own, also across a namespace package inside a regular one."""
from __future__ import annotations

import textwrap

import pytest
from conftest import count_in_process, rewrite_later

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


# flash-attn 2.8.3's hopper/ is FlashAttention-3's own project: its setup.py installs the module
# flash_attn_interface beside its extension (py_modules=["flash_attn_interface"]), and its tests
# import it as the code under test, not as a CUDA-only library they use.
FA3_TEST = """
import torch
from flash_attn_interface import flash_attn_func


def test_flash_attn_output(q, k, v):
    return flash_attn_func(q, k, v, causal=True)
"""


def _fa3_codes(tmp_path, packaging):
    for name, text in {**packaging, "test_flash_attn.py": FA3_TEST, "flash_attn_interface.py": ""}.items():
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    path = tmp_path / "test_flash_attn.py"
    return [f.code for f in Engine(Settings()).check_text(path.read_text(), str(path)).findings]


def test_a_module_the_setup_py_installs_is_the_projects(tmp_path):
    setup_py = 'from setuptools import setup\nsetup(name="flash_attn_3", py_modules=["flash_attn_interface"])\n'
    assert _fa3_codes(tmp_path, {"setup.py": setup_py}) == []


@pytest.mark.parametrize("name, text", [
    ("setup.cfg", "[options]\npy_modules = flash_attn_interface\n"),
    ("pyproject.toml", '[tool.setuptools]\npy-modules = ["flash_attn_interface"]\n'),
])
def test_a_module_setup_cfg_or_pyproject_installs_is_the_projects(tmp_path, name, text):
    assert _fa3_codes(tmp_path, {name: text}) == []


def test_a_library_module_the_project_does_not_install_is_still_reported(tmp_path):
    setup_py = 'from setuptools import setup\nsetup(name="bench", py_modules=["bench_utils"])\n'
    assert "NPU401" in _fa3_codes(tmp_path, {"setup.py": setup_py})


def test_the_result_cache_follows_the_declared_modules(tmp_path, capsys):
    project = tmp_path / "hopper"
    project.mkdir()
    for name, text in {"setup.cfg": "[metadata]\nname = flash_attn_3\n", "test_flash_attn.py": FA3_TEST,
                       "flash_attn_interface.py": ""}.items():
        (project / name).write_text(textwrap.dedent(text), encoding="utf-8")
    cache = tmp_path / "cache"
    assert count_in_process(capsys, "NPU401", project, cache) == 1
    config = project / "setup.cfg"
    rewrite_later(config, "[metadata]\nname = flash_attn_3\n[options]\npy_modules = flash_attn_interface\n")
    assert count_in_process(capsys, "NPU401", project, cache) == 0
