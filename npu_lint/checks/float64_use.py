"""check: float64_on_npu -- float64 asked for in code: `dtype=torch.float64`, `.double()`,
`.to(torch.float64)`, `torch.set_default_dtype(torch.float64)`.

A comparison (`x.dtype == torch.float64`) asks nothing and is left alone, and so is a call that
names the CPU (`device="cpu"`) or works on a tensor visibly on it (`x.cpu().double()`, or
`y.double().numpy()`: `.numpy()` raises for a device tensor, so `y` is on the host).
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.call_owners import give_way, report_about
from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.cpu_device import explicitly_on_cpu, says_cpu
from npu_lint.analysis.names import last_name, qualified_name
from npu_lint.analysis.receivers import ReceiverKind, receiver_kind
from npu_lint.checks.base import Check

FLOAT64 = frozenset({"torch.float64", "torch.double", "torch.DoubleTensor", "torch.complex128", "torch.cdouble"})
TAKES_DTYPE = frozenset({"to", "type", "set_default_dtype", "set_default_tensor_type"})


class Float64Use(Check):
    node_types = (nodes.Call,)

    def triggers(self) -> frozenset:
        return frozenset({"float64", "double", "DoubleTensor", "complex128", "cdouble"})

    def visit(self, node: nodes.Call, ctx: ModuleContext) -> None:
        func = node.func
        if says_cpu(node) or (isinstance(func, nodes.Attribute) and explicitly_on_cpu(func.expr)):
            return  # `torch.eye(3, dtype=torch.float64, device="cpu")`, `x.cpu().double()`: not the NPU's
        if _read_by_numpy(node):
            return  # `y.double().numpy()`: `.numpy()` takes a host tensor only, so `y` is on the CPU
        for keyword in node.keywords or ():
            if keyword.arg == "dtype" and qualified_name(keyword.value) in FLOAT64:
                report_about(ctx, self.rule, keyword, what=ctx.node_text(keyword))
                return
        name = last_name(func)
        if name in TAKES_DTYPE and node.args and qualified_name(node.args[0]) in FLOAT64:
            report_about(ctx, self.rule, node, what=ctx.node_text(node))
        elif name == "double" and isinstance(func, nodes.Attribute) and not node.args and (
                qualified_name(func.expr) is None and receiver_kind(func.expr) is not ReceiverKind.OTHER):
            report_about(ctx, self.rule, node, what=ctx.node_text(node))

    def leave_module(self, ctx: ModuleContext) -> None:
        give_way(ctx, self.rule.code)  # NPU304 names the operator that gets this float64


def _read_by_numpy(call: nodes.Call) -> bool:
    """Is the call's result handed straight to `.numpy()` (without `force=True`, which copies a
    device tensor to the host first)?"""
    attribute = call.parent
    if not (isinstance(attribute, nodes.Attribute) and attribute.expr is call and attribute.attrname == "numpy"):
        return False
    reader = attribute.parent
    return isinstance(reader, nodes.Call) and reader.func is attribute and not reader.keywords
