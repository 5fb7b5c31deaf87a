"""checks: gelu_by_hand, mish_by_hand, silu_by_hand -- activation formulas torch already has as one op.

GELU: a product with 0.5 and `1 + tanh(...)` where the tanh argument holds 0.044715 (tanh form),
or `1 + erf(...)` (exact form). Mish: `x * tanh(softplus(x))`. SiLU (swish): `x * sigmoid(x)`.
Products are read flattened (`0.5 * x * (1 + t)`), method forms included (`x.mul(x.sigmoid())`),
and reported once, at the outermost product; the in-place and plain forms that the two branches of
one conditional pick are one activation, reported once.
"""
from __future__ import annotations

from typing import Optional

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.shapes import MULTIPLY, spelled, Unpacked, constant, factors, find, is_constant, is_outermost_product, op_of, \
    same_tensor
from npu_lint.checks.affinity.base import AffinityCheck

TANH_COEFFICIENT = 0.044715


def _one_plus(node, function: str) -> Optional[nodes.NodeNG]:
    """The argument of `function` in `1 + function(a)` (either order), else None."""
    if isinstance(node, Unpacked):
        return None
    op = op_of(node)
    if op is None or op.name != "add" or len(op.operands) != 2:
        return None
    for one, other in ((op.operands[0], op.operands[1]), (op.operands[1], op.operands[0])):
        inner = op_of(other)
        if is_constant(one, 1) and inner is not None and inner.name == function and inner.operands:
            return inner.operands[0]
    return None


def _holds_constant(node: nodes.NodeNG, value: float) -> bool:
    return any(constant(c) is not None and abs(constant(c) - value) < 1e-9 for c in node.nodes_of_class(nodes.Const))


class _ProductCheck(AffinityCheck):
    node_types = (nodes.BinOp, nodes.Call)

    def visit(self, node, ctx: ModuleContext) -> None:
        if not spelled(node, "*", MULTIPLY):
            return
        op = op_of(node)
        if op is None or op.name != "mul" or len(op.operands) != 2 or not is_outermost_product(node):
            return
        found = self.match(factors(node))
        if found is not None and not self._said_in_other_branch(node):
            operator = self.available(self.fused)
            if operator is not None:
                self.report(ctx, node, operator, **found)

    def match(self, parts: list) -> Optional[dict]:
        raise NotImplementedError

    def _said_in_other_branch(self, node: nodes.NodeNG) -> bool:
        """`x.mul_(x.sigmoid()) if inplace else x.mul(x.sigmoid())` (timm's and geffnet's swish):
        the in-place and the plain form are one activation, one `F.silu(x, inplace=inplace)`;
        the first branch's finding speaks for both."""
        choice = node.parent
        if not (isinstance(choice, nodes.IfExp) and node is choice.orelse):
            return False
        other = choice.body
        return spelled(other, "*", MULTIPLY) and is_outermost_product(other) \
            and self.match(factors(other)) is not None


class GeluByHand(_ProductCheck):
    fused = "gelu"

    def triggers(self) -> frozenset:
        return frozenset({"tanh", "erf"})

    def match(self, parts: list) -> Optional[dict]:
        if not any(is_constant(p, 0.5) for p in parts):
            return None
        for part in parts:
            others = [p for p in parts if p is not part]
            argument = find(part, lambda v: _one_plus(v, "tanh"))
            if argument is not None and _holds_constant(argument, TANH_COEFFICIENT) and _scales_own_input(others, argument):
                return {"form": "tanh", "replacement": 'torch.nn.functional.gelu(x, approximate="tanh")'}
            argument = find(part, lambda v: _one_plus(v, "erf"))
            if argument is not None and _scales_own_input(others, argument):
                return {"form": "erf", "replacement": "torch.nn.functional.gelu(x)"}
        return None


def _scales_own_input(others: list, argument: nodes.NodeNG) -> bool:
    """GELU is x times the normal CDF of x: one factor is the tensor inside the tanh or erf.
    `0.5 * (1 + erf(x))` alone is the CDF (MEGA's Laplace activation, a normal's cdf)."""
    inside = [node for node in argument.nodes_of_class((nodes.Name, nodes.Attribute, nodes.Subscript))]
    return any(not isinstance(other, Unpacked) and constant(other) is None
               and any(same_tensor(other, node) for node in inside) for other in others)


class MishByHand(_ProductCheck):
    fused = "mish"

    def triggers(self) -> frozenset:
        return frozenset({"softplus"})

    def match(self, parts: list) -> Optional[dict]:
        if len(parts) != 2:
            return None
        for x, other in ((parts[0], parts[1]), (parts[1], parts[0])):
            tanh = op_of(other)
            if tanh is None or tanh.name != "tanh" or not tanh.operands:
                continue
            softplus = find(tanh.operands[0], lambda v: None if isinstance(v, Unpacked) else op_of(v))
            if softplus is not None and softplus.name == "softplus" and softplus.operands \
                    and len(softplus.operands) == 1 and same_tensor(softplus.operands[0], x):
                return {}
        return None


class SiluByHand(_ProductCheck):
    fused = "silu"

    def triggers(self) -> frozenset:
        return frozenset({"sigmoid"})

    def match(self, parts: list) -> Optional[dict]:
        for index, part in enumerate(parts):
            sigmoid = op_of(part)
            if sigmoid is None or sigmoid.name != "sigmoid" or len(sigmoid.operands) != 1:
                continue
            if any(same_tensor(sigmoid.operands[0], other) for j, other in enumerate(parts) if j != index):
                return {}
        return None
