"""The shape of a computation: which tensor operation an expression is, and where a local name came from.

The NPU5xx checks recognise hand-written layers (RMSNorm, rotary embedding, attention...) by the
operations they are made of, never by class or function names. `op_of` turns `a * b`,
`torch.mul(a, b)` and `a.mul(b)` into the same `Op("mul", (a, b))`; `values` follows a local name
back to what was assigned to it earlier in the same function (the statements astroid's lookup says
can reach the use), so a chain spread over several statements reads as one expression.
"""
from __future__ import annotations

from typing import Callable, Iterator, Optional, Tuple

from astroid import nodes

from npu_lint.analysis.names import keyword, last_name, qualified_name, values_stored_in_self
from npu_lint.core.records import record

MAX_DEPTH = 8

_BINARY = {"+": "add", "-": "sub", "*": "mul", "/": "div", "@": "matmul", "**": "pow"}
# Method and function spellings of the same operation.
_ALIASES = {"mul_": "mul", "multiply": "mul", "add_": "add", "div_": "div", "divide": "div",
            "true_divide": "div", "sub_": "sub", "subtract": "sub", "pow_": "pow", "neg_": "neg",
            "negative": "neg", "concat": "cat", "concatenate": "cat", "tanh_": "tanh", "sigmoid_": "sigmoid",
            "rsqrt_": "rsqrt", "sqrt_": "sqrt", "masked_fill_": "masked_fill"}
MULTIPLY = frozenset({"mul", "mul_", "multiply"})
# Calls that keep the values of their receiver: casts and layout changes.
VALUE_PRESERVING = frozenset({"float", "half", "bfloat16", "double", "to", "type_as", "type", "contiguous"})


@record(frozen=True)
class Op:
    """A tensor operation: its name and operands (the receiver first for a method)."""

    name: str
    operands: Tuple[nodes.NodeNG, ...]
    node: nodes.NodeNG

    def keyword(self, name: str) -> Optional[nodes.NodeNG]:
        return keyword(self.node, name) if isinstance(self.node, nodes.Call) else None

    def argument(self, position: int, name: str) -> Optional[nodes.NodeNG]:
        """Operand at `position` (receiver or first tensor = 0), else the keyword `name`."""
        if position < len(self.operands):
            return self.operands[position]
        return self.keyword(name)


def torch_function(node: nodes.NodeNG) -> Optional[str]:
    """`torch.rsqrt`, `F.softmax`, `torch.nn.functional.silu` -> "rsqrt", "softmax", "silu"."""
    qname = qualified_name(node)
    if qname and (qname.startswith("torch.") or qname == "math.sqrt"):
        return qname.rsplit(".", 1)[-1]
    return None


def op_of(node: nodes.NodeNG) -> Optional[Op]:
    """The tensor operation an expression is, or None (a name, a constant, a user's call)."""
    if isinstance(node, nodes.BinOp) and node.op in _BINARY:
        return Op(_BINARY[node.op], (node.left, node.right), node)
    if isinstance(node, nodes.AugAssign) and node.op[:-1] in _BINARY:
        return Op(_BINARY[node.op[:-1]], (node.target, node.value), node)  # `x += y`: the target's old value
    if isinstance(node, nodes.UnaryOp) and node.op == "-":
        return Op("neg", (node.operand,), node)
    if not isinstance(node, nodes.Call) or any(isinstance(a, nodes.Starred) for a in node.args):
        return None
    function = torch_function(node.func)
    if function is not None:
        return Op(_ALIASES.get(function, function), tuple(node.args), node)
    if isinstance(node.func, nodes.Attribute) and qualified_name(node.func.expr) is None:
        method = node.func.attrname
        return Op(_ALIASES.get(method, method), (node.func.expr, *node.args), node)
    return None


def spelled(node: nodes.NodeNG, operator: str, names: frozenset) -> bool:
    """Cheap syntactic guard before `op_of`: `a <operator> b`, or a call whose last name is in names."""
    if isinstance(node, nodes.BinOp):
        return node.op == operator
    if isinstance(node, nodes.Call):
        return last_name(node.func) in names
    return False


def values(node: nodes.NodeNG, depth: int = 0) -> Iterator[nodes.NodeNG]:
    """The node, and for a local name every value assigned to it that can reach this use.

    A name unpacked from a tuple (`a, b = x.chunk(2, -1)`) yields an `Unpacked` marker.
    """
    yield node
    if not isinstance(node, (nodes.Name, nodes.AssignName)) or depth >= MAX_DEPTH:
        return
    try:
        _scope, assignments = node.lookup(node.name)
    except Exception:  # astroid raises assorted errors on odd scopes
        return
    for assignment in assignments:
        if not isinstance(assignment, nodes.AssignName) or assignment.frame() is not node.frame():
            continue
        parent = assignment.parent
        if isinstance(parent, nodes.AugAssign):
            yield parent
        elif isinstance(parent, (nodes.Assign, nodes.AnnAssign)) and parent.value is not None:
            if isinstance(parent, nodes.AnnAssign) or parent.targets[0] is assignment:
                yield from values(parent.value, depth + 1)
        elif isinstance(parent, nodes.Tuple) and isinstance(parent.parent, nodes.Assign):
            position = parent.elts.index(assignment)
            yield Unpacked(parent.parent.value, position, len(parent.elts))


@record(frozen=True)
class Unpacked:
    """`a, b = value`: the name is element `index` of `count`."""

    value: nodes.NodeNG
    index: int
    count: int


def find(node: nodes.NodeNG, predicate: Callable, depth: int = 0):
    """The first non-None `predicate(value)` over the values of node (see `values`)."""
    for value in values(node, depth):
        found = predicate(value)
        if found is not None and found is not False:
            return found
    return None


def op_named(node, *names: str) -> Optional[Op]:
    """The operation of node when it is one of `names` (never for an unpacked name)."""
    op = None if isinstance(node, Unpacked) else op_of(node)
    return op if op is not None and op.name in names else None


def strip_casts(node: nodes.NodeNG) -> nodes.NodeNG:
    """`x.float()`, `x.to(torch.float32)`, `x.type_as(y)` -> x."""
    while isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute) \
            and node.func.attrname in VALUE_PRESERVING and qualified_name(node.func.expr) is None:
        node = node.func.expr
    return node


def same_tensor(a: nodes.NodeNG, b: nodes.NodeNG) -> bool:
    """The same expression, casts aside (`hidden_states` and `hidden_states.to(torch.float32)`)."""
    return strip_casts(a).as_string() == strip_casts(b).as_string()


def constant(node: Optional[nodes.NodeNG]):
    """The value of a literal number, `-1` included; None otherwise."""
    if isinstance(node, nodes.Const) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, nodes.UnaryOp) and node.op == "-" and isinstance(node.operand, nodes.Const) \
            and isinstance(node.operand.value, (int, float)):
        return -node.operand.value
    return None


def is_constant(node: Optional[nodes.NodeNG], value) -> bool:
    found = constant(node)
    return found is not None and found == value


def factors(node: nodes.NodeNG) -> list:
    """The operands of a product, nested products flattened (`0.5 * x * (1 + t)` -> 3 factors)."""
    op = op_of(node)
    if op is None or op.name != "mul" or len(op.operands) != 2:
        return [node]
    return factors(op.operands[0]) + factors(op.operands[1])


def is_outermost_product(node: nodes.NodeNG) -> bool:
    """A product that is not itself a factor of a larger one (report a formula once)."""
    parent = node.parent
    if isinstance(parent, nodes.BinOp) and parent.op == "*":
        return False
    if isinstance(parent, nodes.Call) and isinstance(parent.func, nodes.Attribute) \
            and parent.func.attrname in ("mul", "mul_") and node in parent.args:
        return False
    if isinstance(parent, nodes.Attribute) and parent.attrname in ("mul", "mul_") \
            and isinstance(parent.parent, nodes.Call):
        return False
    return True


def calls_in_frame(node: nodes.NodeNG, names: frozenset) -> bool:
    """Whether the function around node calls a torch function or method named in `names`."""
    frame = node.frame()
    for call in frame.nodes_of_class(nodes.Call):
        if last_name(call.func) in names:
            return True
    return False


def module_attribute_class(node: nodes.NodeNG) -> Optional[str]:
    """For `self.act` assigned `nn.SiLU()` in the class: "torch.nn.SiLU" (what the attribute holds)."""
    values = values_stored_in_self(node)
    if not values or not all(isinstance(value, nodes.Call) for value in values):
        return None
    found = {qualified_name(value.func) for value in values}
    return found.pop() if len(found) == 1 else None
