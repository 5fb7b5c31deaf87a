"""Code written for another framework with device names of its own (analysis/other_frameworks.py)."""
from __future__ import annotations

from npu_lint.config.settings import Settings
from npu_lint.engine.engine import engine_for

# GPTQModel 7.7's nn_modules/qlinear/bitblas_target_detector.py, shortened: it imports TVM and no
# torch; "cuda" is TVM's target name (`Target("cuda")`) for the NVIDIA GPU BitBLAS compiles for.
TVM_TARGETS = '''from tvm.target import Target


def find_best_match(best_match, score):
    def check_target(best, default):
        return best if Target(best).arch == Target(default).arch else default

    if check_target(best_match, "cuda") == best_match:
        return best_match if score >= 25 else "cuda"
    return "cuda"
'''


def _codes(text: str) -> list[str]:
    result = engine_for(Settings()).check_text(text, "bitblas_target_detector.py")
    assert not result.problems
    return [finding.code for finding in result.findings]


def test_tvm_target_names_in_a_module_without_torch_are_left_alone():
    assert _codes(TVM_TARGETS) == []


def test_the_same_names_in_a_module_that_imports_torch_are_reported():
    assert _codes("import torch\n" + TVM_TARGETS) == ["NPU111", "NPU111", "NPU111"]
