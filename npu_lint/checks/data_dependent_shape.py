"""check: data_dependent_shape -- operators whose output shape depends on the values:
`torch.nonzero`, `torch.masked_select`, `torch.unique`, `torch.argwhere`, one-argument
`torch.where`, and the same Tensor methods.

Module functions resolve through the imports; a method only counts on a value astroid
infers to be a Tensor (`.unique()` and `.nonzero()` exist on pandas and numpy values too).
A call another rule says the NPU lacks is that rule's (analysis/call_owners.py). A call that only
builds an error's message runs once, on the way out (analysis/error_messages.py).

A result the host reads at once (`.unique().tolist()`, `len(torch.unique(x))`,
`torch.unique(g).shape[0]`, an f-string, a `for` loop over it), as torchmetrics reads the classes
it counts, leaves no operator on the device to plan with a new shape: the host wants the values
anyway. Nor does a call on a tensor visibly on the host
(`torch.LongTensor(codes).unique_consecutive()`, fairseq's unit runs; `x.cpu().unique()`): no NPU
operator runs.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.call_owners import give_way, report_about
from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.cpu_device import explicitly_on_cpu, made_on_cpu
from npu_lint.analysis.error_messages import in_error_message
from npu_lint.analysis.names import last_name, qualified_name
from npu_lint.analysis.receivers import ReceiverKind, receiver_kind
from npu_lint.checks.base import Check
from npu_lint.core.findings import Confidence

OPERATORS = frozenset({"nonzero", "masked_select", "unique", "unique_consecutive", "argwhere"})
FUNCTIONS = frozenset({f"torch.{name}" for name in OPERATORS})
# Methods that hand a tensor's values or size to the host.
_HOST_READS = frozenset({"tolist", "item", "cpu", "numpy", "numel", "size", "dim"})


class DataDependentShape(Check):
    node_types = (nodes.Call,)

    def triggers(self) -> frozenset[str]:
        return OPERATORS | {"where"}

    def visit(self, node: nodes.Call, ctx: ModuleContext) -> None:
        func = node.func
        name = last_name(func) or ""
        if name not in OPERATORS and name != "where" or in_error_message(node):
            return
        if _read_by_host_at_once(node):
            return
        if _on_host(node, ctx):
            return
        qname = qualified_name(func)
        if qname is not None:
            if qname in FUNCTIONS or (qname == "torch.where" and len(node.args) == 1 and not node.keywords):
                report_about(ctx, self.rule, node, api=qname)
            return
        if name == "where" or not isinstance(func, nodes.Attribute) or qualified_name(func.expr) is not None:
            return
        if receiver_kind(func.expr) is ReceiverKind.TENSOR:
            report_about(ctx, self.rule, node, confidence=Confidence.INFERENCE, api=f"Tensor.{name}")

    def leave_module(self, ctx: ModuleContext) -> None:
        give_way(ctx, self.rule.code)  # a call the NPU lacks (NPU301, NPU302, NPU303) is one thing to replace


def _on_host(call: nodes.Call, ctx: ModuleContext) -> bool:
    """The tensor the call works on is visibly on the host: the receiver of a method, else the
    first argument, made by a torch factory without a device or moved there (`.cpu()`)."""
    func = call.func
    if isinstance(func, nodes.Attribute) and qualified_name(func.expr) is None:
        tensor = func.expr
    else:
        tensor = call.args[0] if call.args else None
    return tensor is not None and (made_on_cpu(tensor, ctx.text) or explicitly_on_cpu(tensor))


def _read_by_host_at_once(call: nodes.Call) -> bool:
    parent = call.parent
    if isinstance(parent, nodes.Attribute) and parent.expr is call:
        if parent.attrname == "shape":
            return True
        return parent.attrname in _HOST_READS and isinstance(parent.parent, nodes.Call) and parent.parent.func is parent
    if isinstance(parent, nodes.Call) and isinstance(parent.func, nodes.Name) and parent.func.name == "len":
        return parent.args == [call]
    return isinstance(parent, nodes.FormattedValue) or _walked_by_loop(call)


def _walked_by_loop(call: nodes.Call) -> bool:
    """`for t in torch.unique(scores):`, also through `enumerate(...)` and in a comprehension: the
    host walks the values one by one, so it needs their count at once, as `len()` does."""
    walked = call
    holder = call.parent
    if isinstance(holder, nodes.Call) and isinstance(holder.func, nodes.Name) and holder.func.name == "enumerate" \
            and holder.args[:1] == [call]:
        walked, holder = holder, holder.parent
    return isinstance(holder, (nodes.For, nodes.AsyncFor, nodes.Comprehension)) and holder.iter is walked
