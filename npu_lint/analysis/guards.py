"""Uses that code has already guarded: `hasattr(torch.cuda, "x") and torch.cuda.x`.

A name the NPU lacks, read only after `hasattr(<module>, "<name>")` said it exists, is what
"remove it or guard it" asks for; the one change left is the module in the `hasattr` call.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.names import qualified_name


def guarded_by_hasattr(node: nodes.NodeNG, qname: str) -> bool:
    """Is `node` (naming `qname`) evaluated only after a `hasattr` that asks for it?"""
    child, parent = node, node.parent
    while parent is not None and not isinstance(parent, (nodes.FunctionDef, nodes.ClassDef, nodes.Module)):
        if isinstance(parent, nodes.BoolOp) and parent.op == "and":
            earlier = [value for value in parent.values if value is not child][:_index(parent.values, child)]
            if any(_asks_for(test, qname) for test in earlier):
                return True
        if isinstance(parent, (nodes.If, nodes.IfExp)) and child is not parent.test \
                and any(child is inner for inner in _bodies(parent)) and _asks_for(parent.test, qname):
            return True
        child, parent = parent, parent.parent
    return False


def _index(values, child) -> int:
    return next((i for i, value in enumerate(values) if value is child), 0)


def _bodies(node):
    return node.body if isinstance(node, nodes.If) else [node.body]


def _asks_for(test: nodes.NodeNG, qname: str) -> bool:
    """`hasattr(m, "x")` with `m.x` a prefix of qname, alone or in an `and` chain."""
    if isinstance(test, nodes.BoolOp) and test.op == "and":
        return any(_asks_for(value, qname) for value in test.values)
    if not (isinstance(test, nodes.Call) and isinstance(test.func, nodes.Name) and test.func.name == "hasattr"
            and len(test.args) == 2 and isinstance(test.args[1], nodes.Const)
            and isinstance(test.args[1].value, str)):
        return False
    owner = qualified_name(test.args[0])
    asked = f"{owner}.{test.args[1].value}" if owner else None
    return asked is not None and (qname == asked or qname.startswith(asked + "."))
