"""Matchers for the rule kinds, and the named checks that need logic."""
from __future__ import annotations

from npu_lint.checks.argument import ArgumentCheck
from npu_lint.checks.affinity.activations import GeluByHand, MishByHand, SiluByHand
from npu_lint.checks.affinity.attention import AttentionByHand
from npu_lint.checks.affinity.gated_linear import GegluByHand, SwigluByHand
from npu_lint.checks.affinity.optimizers import ClipGradNormHasFused, OptimizerHasNpuFused
from npu_lint.checks.affinity.rms_norm import RmsNormByHand
from npu_lint.checks.affinity.rotary import RotaryEmbeddingByHand
from npu_lint.checks.base import Check
from npu_lint.checks.blocking_copy import BlockingCopy
from npu_lint.checks.boolean_mask_index import BooleanMaskIndex
from npu_lint.checks.chip_support import ApiNotVerified, ApiUnsupportedOnChip
from npu_lint.checks.cpu_test_runs_cuda_kernel import CpuTestRunsCudaKernel
from npu_lint.checks.cuda_build_picks_device import CudaBuildPicksDevice
from npu_lint.checks.cuda_extension_build import CudaExtensionBuild
from npu_lint.checks.cuda_guard_admits_npu import CudaGuardAdmitsNpu
from npu_lint.checks.cuda_object_method import CudaObjectMethod
from npu_lint.checks.cuda_override import CudaOverride
from npu_lint.checks.cuda_version_none import CudaVersionIsNone
from npu_lint.checks.data_dependent_shape import DataDependentShape
from npu_lint.checks.device_pattern import DevicePatternWithoutNpu
from npu_lint.checks.float64_use import Float64Use
from npu_lint.checks.lightning_auto_accelerator import LightningAutoAccelerator
from npu_lint.checks.imports import ImportCheck
from npu_lint.checks.integer_device import IntegerDeviceMeansCuda
from npu_lint.checks.library_calls import CudaOnlyLibraryCall
from npu_lint.checks.library_call_cuda_bound import LibraryCallCudaBound
from npu_lint.checks.library_takes_cuda_path import LibraryTakesCudaPath
from npu_lint.checks.method import MethodCheck
from npu_lint.checks.missing_torch_npu_import import MissingTorchNpuImport
from npu_lint.checks.missing_transfer_to_npu import MissingTransferToNpu
from npu_lint.checks.string import StringCheck
from npu_lint.checks.symbol import SymbolCheck
from npu_lint.checks.tensor_grown_in_loop import TensorGrownInLoop
from npu_lint.checks.torch_cuda_api import TorchCudaApi, TorchCudaApiWithoutEquivalent
from npu_lint.checks.transfer_rewrites_string import TransferRewritesString
from npu_lint.checks.unsupported_dtype import DtypeUnsupportedByOperator, DtypeUnsupportedOnNpu
from npu_lint.checks.unsupported_operator import OperatorFallsBack, OperatorMayFallBack, OperatorWithoutKernel
from npu_lint.config.settings import Settings
from npu_lint.core.rule import Rule
from npu_lint.knowledge.loader import RuleDataError

KIND_CHECKS: dict[str, type[Check]] = {
    "symbol": SymbolCheck,
    "method": MethodCheck,
    "string": StringCheck,
    "import": ImportCheck,
    "argument": ArgumentCheck,
}

# kind: check -- a rule names one of these in `match.check`.
NAMED_CHECKS: dict[str, type[Check]] = {
    "torch_cuda_api": TorchCudaApi,
    "torch_cuda_api_without_npu_equivalent": TorchCudaApiWithoutEquivalent,
    "missing_torch_npu_import": MissingTorchNpuImport,
    "cuda_object_method": CudaObjectMethod,
    "cuda_override_without_npu": CudaOverride,
    "cuda_extension_build": CudaExtensionBuild,
    "cuda_version_is_none": CudaVersionIsNone,
    "cuda_build_picks_device": CudaBuildPicksDevice,
    "lightning_auto_accelerator": LightningAutoAccelerator,
    "device_pattern_without_npu": DevicePatternWithoutNpu,
    "transfer_rewrites_string": TransferRewritesString,
    "missing_transfer_to_npu": MissingTransferToNpu,
    "library_takes_cuda_path": LibraryTakesCudaPath,
    "cuda_guard_admits_npu": CudaGuardAdmitsNpu,
    "cpu_test_runs_cuda_kernel": CpuTestRunsCudaKernel,
    "cuda_only_library_call": CudaOnlyLibraryCall,
    "library_call_cuda_bound": LibraryCallCudaBound,
    "operator_falls_back_to_cpu": OperatorFallsBack,
    "operator_without_npu_kernel": OperatorWithoutKernel,
    "api_unsupported_on_chip": ApiUnsupportedOnChip,
    "dtype_unsupported_by_operator": DtypeUnsupportedByOperator,
    "dtype_unsupported_on_npu": DtypeUnsupportedOnNpu,
    "api_not_verified_on_npu": ApiNotVerified,
    "operator_may_fall_back_to_cpu": OperatorMayFallBack,
    "blocking_host_to_device_copy": BlockingCopy,
    "float64_on_npu": Float64Use,
    "data_dependent_shape": DataDependentShape,
    "boolean_mask_index": BooleanMaskIndex,
    "tensor_grown_in_loop": TensorGrownInLoop,
    "integer_device_means_cuda": IntegerDeviceMeansCuda,
    "rms_norm_by_hand": RmsNormByHand,
    "rotary_embedding_by_hand": RotaryEmbeddingByHand,
    "swiglu_by_hand": SwigluByHand,
    "geglu_by_hand": GegluByHand,
    "attention_by_hand": AttentionByHand,
    "gelu_by_hand": GeluByHand,
    "mish_by_hand": MishByHand,
    "silu_by_hand": SiluByHand,
    "optimizer_has_npu_fused": OptimizerHasNpuFused,
    "clip_grad_norm_has_fused": ClipGradNormHasFused,
}


def check_class(rule: Rule) -> type[Check]:
    """The matcher of a rule; a rule file naming a check that does not exist is a RuleDataError."""
    if rule.kind != "check":
        return KIND_CHECKS[rule.kind]
    try:
        return NAMED_CHECKS[rule.match["check"]]
    except KeyError:
        raise RuleDataError(
            rule.source_file, rule.code, "match.check",
            f"no check named '{rule.match['check']}' (known: {', '.join(sorted(NAMED_CHECKS))})",
        ) from None


def make_check(rule: Rule, settings: Settings) -> Check:
    return check_class(rule)(rule, settings)
