"""check: rms_norm_by_hand -- `x * rsqrt(mean(x**2, -1) + eps)` and `x / sqrt(...)`: torch_npu.npu_rms_norm.

Recognised by its operations: a square (`pow(2)`, `**2`, `x * x`, `square`) averaged over the last
dimension, plus an epsilon, through `rsqrt` (multiplied) or `sqrt` (divided), applied to the tensor
that was squared. A centred square (`(x - mean).pow(2)`) is a LayerNorm and stays quiet.
"""
from __future__ import annotations

from typing import Optional

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.shapes import Unpacked, constant, find, is_constant, op_named, op_of, same_tensor, \
    spelled
from npu_lint.checks.affinity.base import AffinityCheck


def square_base(node) -> Optional[nodes.NodeNG]:
    """x for `x.pow(2)`, `x ** 2`, `torch.pow(x, 2)`, `x * x`, `x.square()`."""
    if isinstance(node, Unpacked):
        return None
    op = op_of(node)
    if op is None:
        return None
    if op.name == "pow" and len(op.operands) == 2 and is_constant(op.operands[1], 2):
        return op.operands[0]
    if op.name == "square" and len(op.operands) == 1:
        return op.operands[0]
    if op.name == "mul" and len(op.operands) == 2 and op.operands[0].as_string() == op.operands[1].as_string():
        return op.operands[0]
    return None


def _last_dim(op) -> bool:
    dim = op.argument(1, "dim")
    if isinstance(dim, (nodes.Tuple, nodes.List)) and len(dim.elts) == 1:
        dim = dim.elts[0]
    return constant(dim) == -1


def mean_square_base(node) -> Optional[nodes.NodeNG]:
    """x for a mean of x squared over the last dimension."""
    if isinstance(node, Unpacked):
        return None
    op = op_of(node)
    if op is None or op.name != "mean" or not op.operands or not _last_dim(op):
        return None
    return find(op.operands[0], square_base)


def plus_eps_base(node) -> Optional[nodes.NodeNG]:
    """x for `mean(x**2, -1) + eps` (either order, or `.add(eps)`)."""
    if isinstance(node, Unpacked):
        return None
    op = op_of(node)
    if op is None or op.name != "add" or len(op.operands) != 2:
        return None
    for side in op.operands:
        base = find(side, mean_square_base)
        if base is not None:
            return base
    return None


def _centred(base: nodes.NodeNG) -> bool:
    """(x - mean) squared is a variance: LayerNorm, not RMSNorm."""
    return find(base, lambda v: op_named(v, "sub")) is not None


_ROOTS = frozenset({"rsqrt", "sqrt", "rsqrt_", "sqrt_"})


class RmsNormByHand(AffinityCheck):
    node_types = (nodes.Call,)

    def triggers(self) -> frozenset:
        return frozenset({"rsqrt", "sqrt"})

    def visit(self, node: nodes.Call, ctx: ModuleContext) -> None:
        if not spelled(node, "", _ROOTS):
            return
        op = op_of(node)
        if op is None or op.name not in ("rsqrt", "sqrt") or len(op.operands) != 1:
            return
        base = find(op.operands[0], plus_eps_base)
        if base is None or _centred(base):
            return
        applied = self._applied_to(node, op.name)
        if applied is None or not same_tensor(applied[1], base):
            return
        operator = self.available("npu_rms_norm")
        if operator is not None:
            self.report(ctx, applied[0], operator)

    @staticmethod
    def _applied_to(node: nodes.Call, name: str):
        """(the product or quotient, the normalised tensor) around the rsqrt/sqrt call."""
        parent = node.parent
        wanted = "mul" if name == "rsqrt" else "div"
        outer = op_of(parent) if isinstance(parent, (nodes.BinOp, nodes.Call)) else None
        if isinstance(parent, nodes.Attribute) and isinstance(parent.parent, nodes.Call):
            outer = op_of(parent.parent)  # rsqrt(...).mul(x)
            parent = parent.parent
        if outer is None or outer.name != wanted or len(outer.operands) != 2:
            return None
        operands = list(outer.operands)
        if node not in operands:
            return None
        other = operands[1 - operands.index(node)]
        if wanted == "div" and operands.index(node) != 1:
            return None
        return parent, other
