"""Is a node repeated: inside the body of a loop of its own function?"""
from __future__ import annotations

from astroid import nodes

_SCOPES = (nodes.FunctionDef, nodes.AsyncFunctionDef, nodes.Lambda, nodes.ClassDef, nodes.Module)
_LOOPS = (nodes.For, nodes.AsyncFor, nodes.While)


def enclosing_loop(node: nodes.NodeNG) -> nodes.NodeNG | None:
    """The innermost loop whose body (not its iterable or test) holds node, within node's scope."""
    child, parent = node, node.parent
    while parent is not None and not isinstance(parent, _SCOPES):
        if isinstance(parent, _LOOPS) and child in parent.body:
            return parent
        child, parent = parent, parent.parent
    return None
