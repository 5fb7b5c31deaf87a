"""Modules the project wrote for AMD's GPUs (analysis/amd_modules.py): vLLM's
`models/<model>/amd/` packages beside `nvidia/`, its `rocm_*.py` backends and their tests."""
from __future__ import annotations

from npu_lint.config.settings import Settings
from npu_lint.engine.engine import Engine

# vllm/models/minimax_m3/amd/mono/runner.py, shortened
AMD_RUNNER = """import torch


def make_graph_inputs(device_index):
    dev = torch.device("cuda", device_index)
    return torch.cuda.current_stream(), dev
"""


def _codes(path) -> list[str]:
    result = Engine(Settings()).check_text(path.read_text(), str(path))
    return [finding.code for finding in result.findings]


def _package(root, *names):
    folder = root
    for name in names:
        folder = folder / name
        folder.mkdir()
        (folder / "__init__.py").write_text("")
    return folder


def test_a_module_in_a_package_named_for_amd_is_left_alone(tmp_path):
    module = _package(tmp_path, "minimax_m3", "amd", "mono") / "runner.py"
    module.write_text(AMD_RUNNER)
    assert _codes(module) == []


def test_a_module_named_for_rocm_is_left_alone(tmp_path):
    # vllm/v1/attention/backends/mla/rocm_aiter_mla.py, tests/kernels/moe/test_rocm_aiter_topk.py
    module = _package(tmp_path, "mla") / "rocm_aiter_mla.py"
    module.write_text(AMD_RUNNER)
    assert _codes(module) == []


def test_the_nvidia_twin_is_reported(tmp_path):
    module = _package(tmp_path, "minimax_m3", "nvidia", "mono") / "runner.py"
    module.write_text(AMD_RUNNER)
    assert _codes(module) == ["NPU110", "NPU101"]


def test_a_folder_outside_the_package_chain_and_amd64_are_no_amd_names(tmp_path):
    outside = tmp_path / "amd"  # no __init__.py: a checkout's folder, not the project's package
    outside.mkdir()
    module = _package(outside, "models") / "runner.py"
    module.write_text(AMD_RUNNER)
    assert _codes(module) == ["NPU110", "NPU101"]
    build = _package(tmp_path, "docker") / "build_amd64.py"
    build.write_text(AMD_RUNNER)
    assert _codes(build) == ["NPU110", "NPU101"]


def test_a_module_named_for_an_amd_only_library_is_left_alone(tmp_path):
    # xDiT's quant/aiter_fp8_quantizer.py (AITER: AMD's AI Tensor Engine for ROCm) and
    # layers/fused_qk_rope_flydsl.py (FlyDSL: AMD's kernel DSL); SGLang's kda_flydsl/ package
    for module in (_package(tmp_path, "quant") / "aiter_fp8_quantizer.py",
                   _package(tmp_path, "layers") / "fused_qk_rope_flydsl.py",
                   _package(tmp_path, "attention", "kda_flydsl") / "source.py"):
        module.write_text(AMD_RUNNER)
        assert _codes(module) == [], module
    # near miss: a word that only holds the name is another word
    waiter = _package(tmp_path, "serving") / "waiter_fp8.py"
    waiter.write_text(AMD_RUNNER)
    assert _codes(waiter) == ["NPU110", "NPU101"]


def test_a_module_named_for_an_amd_architecture_or_library_is_left_alone(tmp_path):
    # SGLang 0.5.23: kernels/ops/attention/kda_fused_decode_gfx950.py, ops/moe/smallm_moe_gfx950/,
    # kernels/jit/utils/hipcc.py, srt/layers/attention/aiter_backend.py
    for name in ("kda_fused_decode_gfx950.py", "fp8_gfx1250.py", "hipcc.py", "aiter_backend.py"):
        module = _package(tmp_path, name[:-3] + "_pkg") / name
        module.write_text(AMD_RUNNER)
        assert _codes(module) == [], name
    module = _package(tmp_path, "smallm_moe_gfx950") / "__init__.py"
    module.write_text(AMD_RUNNER)
    assert _codes(module) == []


def test_words_that_only_start_like_amd_names_are_reported(tmp_path):
    # near misses: `gfx` without a number, a word that holds "aiter" (`waiter`), `hipster`
    for name in ("gfx_utils.py", "waiter.py", "hipster_loader.py"):
        module = _package(tmp_path, name[:-3] + "_pkg") / name
        module.write_text(AMD_RUNNER)
        assert _codes(module) == ["NPU110", "NPU101"], name
