"""check: rotary_embedding_by_hand -- `x * cos + rotate_half(x) * sin`: torch_npu.npu_rotary_mul.

`rotate_half` is recognised by what it does, wherever it is written (inline or in a function of
the module): the two halves of x (slices or `chunk(2, -1)`), one negated, concatenated on the last
dimension (`rotary_mode="half"`, GPT-NeoX/LLaMA), or the even and odd elements stacked and
flattened (`rotary_mode="interleave"`, GPT-J/timm).
"""
from __future__ import annotations

from typing import Optional, Tuple

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.shapes import Unpacked, constant, factors, find, op_named, op_of, same_tensor, values
from npu_lint.checks.affinity.base import AffinityCheck

_FLATTEN = frozenset({"reshape", "flatten", "view", "reshape_as", "view_as"})
MAX_CALL_DEPTH = 2


def _part_of(node) -> Optional[Tuple[nodes.NodeNG, str]]:
    """(source tensor, how) when node is a slice of a tensor or one of its `chunk(2)`/`split` parts."""
    if isinstance(node, Unpacked):
        op = op_of(node.value)
        if node.count == 2 and op is not None and op.name in ("chunk", "split", "tensor_split") and op.operands:
            return op.operands[0], "half"
        return None
    if isinstance(node, nodes.Subscript):
        index = node.slice
        last = index.elts[-1] if isinstance(index, nodes.Tuple) and index.elts else index
        if isinstance(last, nodes.Slice):
            how = "interleave" if last.step is not None and constant(last.step) == 2 else "half"
            return node.value, how
    return None


def _rotation(node, depth: int) -> Optional[Tuple[nodes.NodeNG, str]]:
    """(the rotated tensor, rotary mode) when node rotates a tensor's halves, else None."""
    if isinstance(node, Unpacked):
        return None
    op = op_of(node)
    if op is not None and op.name in _FLATTEN and op.operands:
        inner = find(op.operands[0], lambda v: _rotation(v, depth))
        return inner if inner is not None and inner[1] == "interleave" else None
    if op is not None and op.name in ("cat", "stack") and op.operands:
        return _joined_halves(op)
    if isinstance(node, nodes.Call) and isinstance(node.func, nodes.Name) and node.args and depth < MAX_CALL_DEPTH:
        return _rotating_function(node, depth)
    return None


def _joined_halves(op) -> Optional[Tuple[nodes.NodeNG, str]]:
    parts = op.operands[0]
    dim = op.argument(1, "dim") or op.keyword("axis")
    if not isinstance(parts, (nodes.Tuple, nodes.List)) or len(parts.elts) != 2:
        return None
    if dim is None or (constant(dim) is not None and constant(dim) != -1):
        return None  # cat's default is dim 0: not a rotation of the last dimension
    negated = [e for e in parts.elts if op_named(e, "neg")]
    if len(negated) != 1:
        return None
    plain = parts.elts[1 - parts.elts.index(negated[0])]
    sources = []
    for part in (op_named(negated[0], "neg").operands[0], plain):
        found = find(part, _part_of)
        if found is None:
            return None
        sources.append(found)
    if sources[0][0].as_string() != sources[1][0].as_string():
        return None
    mode = "interleave" if op.name == "stack" else "half"
    if mode == "half" and "interleave" in (sources[0][1], sources[1][1]):
        return None
    return sources[1][0], mode


def _rotating_function(call: nodes.Call, depth: int) -> Optional[Tuple[nodes.NodeNG, str]]:
    """`rotate_half(q)` where the module's function rotates its first parameter."""
    try:
        _scope, definitions = call.func.lookup(call.func.name)
    except Exception:
        return None
    if len(definitions) != 1 or not isinstance(definitions[0], nodes.FunctionDef):
        return None
    function = definitions[0]
    parameters = function.args.args or []
    if not parameters:
        return None
    mode = None
    for ret in function.nodes_of_class(nodes.Return):
        if ret.value is None or ret.frame() is not function:
            return None
        found = find(ret.value, lambda v: _rotation(v, depth + 1))
        if found is None or not _is_parameter(found[0], parameters[0].name):
            return None
        mode = found[1]
    return (call.args[0], mode) if mode else None


def _is_parameter(node: nodes.NodeNG, name: str) -> bool:
    """The function's parameter itself (a name never rebound before this use)."""
    return isinstance(node, nodes.Name) and node.name == name and len(list(values(node))) == 1


class RotaryEmbeddingByHand(AffinityCheck):
    node_types = (nodes.BinOp,)

    def triggers(self) -> frozenset:
        return frozenset({"cat", "stack", "concat"})

    def visit(self, node: nodes.BinOp, ctx: ModuleContext) -> None:
        if node.op != "+":
            return
        products = [factors(side) for side in (node.left, node.right)]
        if any(len(p) != 2 for p in products):
            return
        for plain, rotated in ((products[0], products[1]), (products[1], products[0])):
            for factor in rotated:
                found = find(factor, lambda v: _rotation(v, 0))
                if found is None:
                    continue
                tensor, mode = found
                if any(same_tensor(tensor, other) for other in plain):
                    operator = self.available("npu_rotary_mul")
                    if operator is not None:
                        self.report(ctx, node, operator, mode=mode)
                    return
