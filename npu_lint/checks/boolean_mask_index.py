"""check: boolean_mask_index -- `x[mask]` read with a mask that is a comparison result
(`x[x > 0]`, `mask = labels != pad; x[mask]`, `~m`, `m1 & m2` of such).

The number of elements selected depends on the values, so the result's shape is dynamic.
Only judged when the indexed value or the compared value is inferred to be a Tensor (the
same code on a DataFrame or an array is none of the NPU's business); writes (`x[mask] = 0`)
keep the shape and are left alone, and so is a read that only builds an error's message
(analysis/error_messages.py), and a read from a tensor visibly on the host (laplace-torch's
`eigvals = torch.from_numpy(np.array(eigvals))`, then `eigvals[eigvals > EPS]`; `x.cpu()[m]`): no
NPU operator runs (analysis/cpu_device.py). Reads in one statement with the same mask (tabnet's
`X[m] = betas[m, None] * X[m]`) are one rewrite (`torch.where`): the first is the finding, the
others its related places.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.call_owners import add_related, report_about
from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.cpu_device import explicitly_on_cpu, made_on_cpu
from npu_lint.analysis.error_messages import in_error_message
from npu_lint.analysis.names import single_value
from npu_lint.analysis.receivers import ReceiverKind, receiver_kind
from npu_lint.checks.base import Check
from npu_lint.core.findings import Confidence
from npu_lint.core.suppression_comments import may_hide

_LOGICAL = ("&", "|", "^")


def _comparison(node: nodes.NodeNG, depth: int = 0) -> nodes.Compare | None:
    """The comparison a boolean mask expression is made of, if it is one."""
    if depth > 4:
        return None
    if isinstance(node, nodes.Compare):
        if all(op not in ("is", "is not", "in", "not in") for op, _ in node.ops):
            return node
        return None
    if isinstance(node, nodes.UnaryOp) and node.op == "~":
        return _comparison(node.operand, depth + 1)
    if isinstance(node, nodes.BinOp) and node.op in _LOGICAL:
        return _comparison(node.left, depth + 1) or _comparison(node.right, depth + 1)
    if isinstance(node, nodes.Name) and depth == 0:
        value = single_value(node)  # `mask = x > 0` ... `x[mask]`
        return _comparison(value, depth + 1) if value is not None else None
    return None


class BooleanMaskIndex(Check):
    node_types = (nodes.Subscript,)

    def triggers(self) -> frozenset[str]:
        return frozenset({"torch"})

    def visit(self, node: nodes.Subscript, ctx: ModuleContext) -> None:
        if getattr(node, "ctx", None) is not None and node.ctx.name != "Load" or in_error_message(node):
            return
        indexes = node.slice.elts if isinstance(node.slice, nodes.Tuple) else [node.slice]
        for index in indexes:
            compare = _comparison(index)
            if compare is None:
                continue
            if receiver_kind(compare.left) is ReceiverKind.TENSOR or receiver_kind(node.value) is ReceiverKind.TENSOR:
                if not _on_host(node.value, ctx):
                    self._report_once(ctx, node, ctx.node_text(index))
            return

    def _report_once(self, ctx: ModuleContext, node: nodes.Subscript, mask: str) -> None:
        firsts = ctx.scratch.setdefault(self, {})
        key = (node.statement(), mask)
        first = firsts.get(key)
        if first is not None and not first.dropped:
            add_related(ctx, first, (ctx.related(node, f"`{ctx.node_text(node)}` selects with the same mask"),))
            return
        said = report_about(ctx, self.rule, node, confidence=Confidence.INFERENCE, selection=ctx.node_text(node))
        if said is not None and not may_hide(ctx.index.line(node.lineno), self.rule.code, self.rule.name):
            firsts[key] = said  # the engine applies `# noqa` later: a hidden finding takes no others along


def _on_host(selected: nodes.NodeNG, ctx: ModuleContext) -> bool:
    """Is the tensor read from visibly on the host: made by a torch factory without a device (or
    from a NumPy array), or moved there (`.cpu()`)? Then the selection runs on the CPU."""
    return made_on_cpu(selected, ctx.text) or explicitly_on_cpu(selected)
