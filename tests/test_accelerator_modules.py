"""Modules the project wrote for another vendor's accelerator (analysis/accelerator_modules.py):
FlagGems' runtime/backend/_cambricon/, _kunlunxin/, _enflame/, ... beside _ascend/ and _nvidia/,
of which it imports only the host's."""
from __future__ import annotations

from npu_lint.config.settings import Settings
from npu_lint.engine.engine import Engine

# flag_gems/runtime/backend/_kunlunxin/ops/index_add.py and _iluvatar/heuristics_config_utils.py,
# shortened: these chips answer through torch.cuda and the "cuda" device.
VENDOR_OP = """import torch


def index_add(inp, index):
    mask = torch.ones(tuple(index.shape), dtype=torch.bool, device="cuda")
    NUM_SMS = torch.cuda.get_device_properties(torch.cuda.current_device()).multi_processor_count
    return mask, NUM_SMS
"""
REPORTED = ["NPU110", "NPU101", "NPU101"]


def _codes(path) -> list[str]:
    result = Engine(Settings()).check_text(path.read_text(), str(path))
    return [finding.code for finding in result.findings]


def _package(root, *names, init=True):
    folder = root
    for name in names:
        folder = folder / name
        folder.mkdir(exist_ok=True)
        if init:
            (folder / "__init__.py").write_text("")
    return folder


def test_a_module_in_a_vendor_backend_package_is_left_alone(tmp_path):
    for vendor in ("_kunlunxin", "_cambricon", "_mthreads", "_hygon", "_iluvatar", "_metax", "_tsingmicro"):
        module = _package(tmp_path, "flag_gems", "runtime", "backend", vendor, "ops") / "index_add.py"
        module.write_text(VENDOR_OP)
        assert _codes(module) == [], vendor


def test_a_module_named_for_a_vendor_device_is_left_alone(tmp_path):
    for name in ("mlu_ops.py", "musa_patch.py", "gcu_utils.py", "dcu_kernels.py"):
        module = _package(tmp_path, "ops") / name
        module.write_text(VENDOR_OP)
        assert _codes(module) == [], name


def test_a_namespace_subpackage_of_a_vendor_package_is_the_vendors(tmp_path):
    # flag_gems/runtime/backend/_enflame/gcu300/ops/*.py: gcu300/ has no __init__.py
    backend = _package(tmp_path, "flag_gems", "runtime", "backend", "_enflame")
    module = _package(_package(backend, "gcu300", init=False), "ops") / "index_add.py"
    module.write_text(VENDOR_OP)
    assert _codes(module) == []
    # _kunlunxin/utils/pointwise_dynamic.py: utils/ has no __init__.py
    utils = _package(tmp_path, "flag_gems", "runtime", "backend", "_kunlunxin")
    module = _package(utils, "utils", init=False) / "pointwise_dynamic.py"
    module.write_text(VENDOR_OP)
    assert _codes(module) == []


def test_the_common_code_and_other_names_are_reported(tmp_path):
    # flag_gems/ops/ is what every backend shares; `mlucas` and `dcux` are other words
    module = _package(tmp_path, "flag_gems", "ops") / "index_add.py"
    module.write_text(VENDOR_OP)
    assert _codes(module) == REPORTED
    for name in ("mlucas.py", "dcux_ops.py"):
        other = _package(tmp_path, "flag_gems", "ops") / name
        other.write_text(VENDOR_OP)
        assert _codes(other) == REPORTED, name


def test_a_vendor_folder_outside_the_package_chain_says_nothing(tmp_path):
    outside = tmp_path / "_cambricon"  # no __init__.py above it: a checkout's folder, not a package
    outside.mkdir()
    module = _package(outside, "ops") / "index_add.py"
    module.write_text(VENDOR_OP)
    assert _codes(module) == REPORTED


# GPTQModel 7.7's quantization/mlx_exl3_pipeline.py: MLX arrays come back to torch through
# DLPack, on macOS on Apple silicon alone.
MLX_OP = """import torch


def _mlx_array_to_torch(value, device):
    return torch.from_dlpack(value).to(device=device).contiguous()
"""


def test_a_module_named_for_apples_mlx_is_left_alone(tmp_path):
    module = _package(tmp_path, "gptqmodel", "quantization") / "mlx_exl3_pipeline.py"
    module.write_text(MLX_OP)
    assert _codes(module) == []


def test_the_same_code_outside_an_mlx_module_is_reported(tmp_path):
    for name in ("exl3_pipeline.py", "mlxtend_utils.py"):
        module = _package(tmp_path, "gptqmodel", "quantization") / name
        module.write_text(MLX_OP.replace("_mlx_array_to_torch", "_dlpack_to_torch"))
        assert _codes(module) == ["NPU303"], name


# GPTQModel 7.7's quantization/rtn.py, qqq.py and foem.py keep the same function in a common module;
# its name says MLX. Near miss: a function named for something else.
def test_a_function_named_for_mlx_is_left_alone(tmp_path):
    module = _package(tmp_path, "gptqmodel", "quantization") / "rtn.py"
    module.write_text(MLX_OP)
    assert _codes(module) == []
    module.write_text(MLX_OP.replace("_mlx_array_to_torch", "_dlpack_to_torch"))
    assert _codes(module) == ["NPU303"]
