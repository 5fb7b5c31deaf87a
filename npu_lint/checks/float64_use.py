"""check: float64_on_npu -- float64 asked for in code: `dtype=torch.float64`, `.double()`,
`.to(torch.float64)`, `torch.set_default_dtype(torch.float64)`.

A comparison (`x.dtype == torch.float64`) asks nothing and is left alone, and so is a call that
names the CPU (`device="cpu"`) or works on a tensor visibly on it (`x.cpu().double()`, or
`y.double().numpy()`: `.numpy()` raises for a device tensor, so `y` is on the host). Code that
runs only for tests (a test function, the parameters its decorators hand it: analysis/test_code.py)
asks for float64 to check numerics or a dtype cast, not for a training loop's speed.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.call_owners import give_way, report_about
from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.cpu_device import explicitly_on_cpu, says_cpu
from npu_lint.analysis.names import last_name, qualified_name
from npu_lint.analysis.receivers import ReceiverKind, receiver_kind
from npu_lint.analysis.test_code import for_test
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
        place = _asks_float64(node)
        if place is not None and not for_test(node):
            # not sbi's `estimator.double()` in a test of the dtype cast: what it checks, not speed
            report_about(ctx, self.rule, place, what=ctx.node_text(place))

    def leave_module(self, ctx: ModuleContext) -> None:
        give_way(ctx, self.rule.code)  # NPU304 names the operator that gets this float64


def _asks_float64(node: nodes.Call) -> nodes.NodeNG | None:
    """Where the call asks for float64: its `dtype=` keyword, or the call itself, else None."""
    func = node.func
    for keyword in node.keywords or ():
        if keyword.arg == "dtype" and qualified_name(keyword.value) in FLOAT64:
            return keyword
    name = last_name(func)
    if name in TAKES_DTYPE and node.args and qualified_name(node.args[0]) in FLOAT64:
        return node
    if name == "double" and isinstance(func, nodes.Attribute) and not node.args and (
            qualified_name(func.expr) is None and receiver_kind(func.expr) is not ReceiverKind.OTHER):
        return node
    return None


def _read_by_numpy(call: nodes.Call) -> bool:
    """Is the call's result handed straight to `.numpy()` (without `force=True`, which copies a
    device tensor to the host first)?"""
    attribute = call.parent
    if not (isinstance(attribute, nodes.Attribute) and attribute.expr is call and attribute.attrname == "numpy"):
        return False
    reader = attribute.parent
    return isinstance(reader, nodes.Call) and reader.func is attribute and not reader.keywords
