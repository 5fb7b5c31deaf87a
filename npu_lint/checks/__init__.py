"""Matchers for the rule kinds, and the named checks that need logic."""
from __future__ import annotations

from ..rule import Rule
from ..settings import Settings
from .base import Check
from .chip_support import ApiNotVerified, ApiUnsupportedOnChip
from .cuda_extension_build import CudaExtensionBuild
from .cuda_object_method import CudaObjectMethod
from .imports import ImportCheck
from .library_takes_cuda_path import LibraryTakesCudaPath
from .method import MethodCheck
from .missing_torch_npu_import import MissingTorchNpuImport
from .missing_transfer_to_npu import MissingTransferToNpu
from .string import StringCheck
from .symbol import SymbolCheck
from .torch_cuda_api import TorchCudaApi, TorchCudaApiWithoutEquivalent
from .transfer_rewrites_string import TransferRewritesString
from .unsupported_dtype import DtypeUnsupportedByOperator, DtypeUnsupportedOnNpu
from .unsupported_operator import OperatorFallsBack, OperatorMayFallBack, OperatorWithoutKernel

KIND_CHECKS: dict[str, type[Check]] = {
    "symbol": SymbolCheck,
    "method": MethodCheck,
    "string": StringCheck,
    "import": ImportCheck,
}

# kind: check -- a rule names one of these in `match.check`.
NAMED_CHECKS: dict[str, type[Check]] = {
    "torch_cuda_api": TorchCudaApi,
    "torch_cuda_api_without_npu_equivalent": TorchCudaApiWithoutEquivalent,
    "missing_torch_npu_import": MissingTorchNpuImport,
    "cuda_object_method": CudaObjectMethod,
    "cuda_extension_build": CudaExtensionBuild,
    "transfer_rewrites_string": TransferRewritesString,
    "missing_transfer_to_npu": MissingTransferToNpu,
    "library_takes_cuda_path": LibraryTakesCudaPath,
    "operator_falls_back_to_cpu": OperatorFallsBack,
    "operator_without_npu_kernel": OperatorWithoutKernel,
    "api_unsupported_on_chip": ApiUnsupportedOnChip,
    "dtype_unsupported_by_operator": DtypeUnsupportedByOperator,
    "dtype_unsupported_on_npu": DtypeUnsupportedOnNpu,
    "api_not_verified_on_npu": ApiNotVerified,
    "operator_may_fall_back_to_cpu": OperatorMayFallBack,
}


def make_check(rule: Rule, settings: Settings) -> Check:
    if rule.kind == "check":
        try:
            cls = NAMED_CHECKS[rule.match["check"]]
        except KeyError:
            from ..rules_loader import RuleDataError

            raise RuleDataError(
                rule.source_file, rule.code, "match.check",
                f"no check named '{rule.match['check']}' (known: {', '.join(sorted(NAMED_CHECKS))})",
            ) from None
    else:
        cls = KIND_CHECKS[rule.kind]
    return cls(rule, settings)
