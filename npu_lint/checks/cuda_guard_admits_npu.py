"""check: cuda_guard_admits_npu -- an `.is_cuda` test that keeps CUDA-only code off other devices,
on the transfer_to_npu route.

    if not x.is_cuda:                  basicsr's ops: raise before the CUDA build's forward
        raise NotImplementedError
    return deform_conv_ext.forward(x)
    if x.is_cuda: return cupy.asarray(x)

On the manual route such a test is False on the NPU, and the other path is the one the port wants
(analysis/cuda_library_guards.py keeps NPU104 quiet there). transfer_to_npu sets
`torch.Tensor.is_cuda = torch.Tensor.is_npu`, so NPU tensors pass the test and reach the CUDA-only
code. `x.device.type == "cuda"` is no such test: the patch leaves an NPU tensor's device type "npu".
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.cuda_library_guards import guarded_cuda_code
from npu_lint.analysis.names import qualified_name
from npu_lint.analysis.receivers import ReceiverKind, receiver_kind
from npu_lint.checks.base import Check

_RECEIVERS = frozenset({ReceiverKind.TENSOR, ReceiverKind.UNKNOWN})


class CudaGuardAdmitsNpu(Check):
    node_types = (nodes.Attribute,)

    def triggers(self) -> frozenset[str]:
        return frozenset({"is_cuda"})

    def visit(self, node: nodes.Attribute, ctx: ModuleContext) -> None:
        if node.attrname != "is_cuda" or (isinstance(node.parent, nodes.Call) and node.parent.func is node):
            return
        receiver = qualified_name(node.expr) or ""
        if receiver == "torch" or receiver.startswith("torch."):
            return
        if receiver_kind(node.expr, node.attrname) not in _RECEIVERS:
            return
        code = guarded_cuda_code(node)
        if code is not None:
            ctx.report(self.rule, node, code=code, tensor=node.expr.as_string())
