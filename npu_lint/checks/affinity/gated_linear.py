"""checks: swiglu_by_hand, geglu_by_hand -- silu/gelu of one half times the other.

Two shapes: the halves of one tensor (`a, b = x.chunk(2, dim=-1); F.silu(a) * b`), which the
fused operator takes as it is; and two projections of the same input
(`F.silu(self.w1(x)) * self.w3(x)`, LLaMA's MLP), which it takes once the two weights are
concatenated into one projection.
"""
from __future__ import annotations

from typing import Optional, Tuple

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.names import qualified_name
from npu_lint.analysis.shapes import MULTIPLY, spelled, Unpacked, constant, factors, find, module_attribute_class, op_of
from npu_lint.checks.affinity.base import AffinityCheck, self_layer_call

_MODULES = {"torch.nn.SiLU": "silu", "torch.nn.GELU": "gelu", "torch.nn.modules.activation.SiLU": "silu",
            "torch.nn.modules.activation.GELU": "gelu"}


def activation(node) -> Optional[Tuple[str, nodes.NodeNG]]:
    """("silu" | "gelu", its input) for `F.silu(a)`, `torch.nn.functional.gelu(a)`, `self.act(a)`
    where `self.act = nn.SiLU()`, `nn.GELU()(a)`."""
    if not isinstance(node, nodes.Call) or len(node.args) != 1:
        return None
    op = op_of(node)
    if op is not None and op.name in ("silu", "gelu") and qualified_name(node.func) is not None:
        return op.name, node.args[0]
    held = module_attribute_class(node.func)
    if held is None and isinstance(node.func, nodes.Call):
        held = qualified_name(node.func.func)
    if held in _MODULES:
        return _MODULES[held], node.args[0]
    return None


def halves(node) -> Optional[Tuple[str, int]]:
    """(tensor text, which half) for a part of `x.chunk(2, dim=-1)` / `torch.chunk(x, 2, -1)`."""
    if not isinstance(node, Unpacked) or node.count != 2:
        return None
    op = op_of(node.value)
    if op is None or op.name != "chunk" or len(op.operands) < 2 or constant(op.operands[1]) != 2:
        return None
    dim = op.argument(2, "dim")
    if constant(dim) != -1:
        return None
    return op.operands[0].as_string(), node.index


def projection_input(node) -> Optional[Tuple[str, nodes.NodeNG]]:
    """(module text, input) for `self.w1(x)`: a layer of the model applied to one input."""
    if self_layer_call(node):
        return node.func.as_string(), node.args[0]
    return None


def same_input(first: nodes.NodeNG, second: nodes.NodeNG) -> bool:
    """The same input of two layers: the same expression, and for a name the same assignment
    reaching both uses. mmagic 1.2's NAFNet block `x = self.conv2(x); x = self.gelu(x);
    x = x * self.se(x)` hands `self.se` the activated `x`, not the one `self.conv2` took."""
    if first.as_string() != second.as_string():
        return False
    if not (isinstance(first, nodes.Name) and isinstance(second, nodes.Name)):
        return True
    try:
        return {id(node) for node in first.lookup(first.name)[1]} == {id(node) for node in second.lookup(second.name)[1]}
    except Exception:  # astroid raises assorted errors on odd scopes
        return True


class _GatedLinearByHand(AffinityCheck):
    node_types = (nodes.BinOp, nodes.Call)
    kind = ""
    fused = ""

    def visit(self, node, ctx: ModuleContext) -> None:
        if not spelled(node, "*", MULTIPLY):
            return
        op = op_of(node)
        if op is None or op.name != "mul" or len(op.operands) != 2:
            return
        pair = factors(node)
        if len(pair) != 2:
            return
        for gated, other in ((pair[0], pair[1]), (pair[1], pair[0])):
            found = find(gated, activation)
            if found is None or found[0] != self.kind:
                continue
            advice = self._shape(found[1], other)
            if advice is None:
                continue
            operator = self.available(self.fused)
            if operator is not None:
                self.report(ctx, node, operator, advice=advice)
            return

    def _shape(self, activated: nodes.NodeNG, other: nodes.NodeNG) -> Optional[str]:
        first, second = find(activated, halves), find(other, halves)
        if first and second and first[0] == second[0] and first[1] != second[1]:
            if first[1] == 0:
                return f"it takes `{first[0]}` as it is (the {self.kind} half first)"
            return f"it activates the first half: swap the halves of `{first[0]}` (or its projection's rows)"
        projected, plain = find(activated, projection_input), find(other, projection_input)
        if projected and plain and same_input(projected[1], plain[1]) and projected[0] != plain[0]:
            return (f"concatenate the weights of `{projected[0]}` and `{plain[0]}` into one projection "
                    f"(the {self.kind} half first) and pass its output")
        return None


class SwigluByHand(_GatedLinearByHand):
    kind = "silu"
    fused = "npu_swiglu"

    def triggers(self) -> frozenset:
        return frozenset({"silu", "SiLU"})


class GegluByHand(_GatedLinearByHand):
    kind = "gelu"
    fused = "npu_gelu_mul"

    def triggers(self) -> frozenset:
        return frozenset({"gelu", "GELU"})
