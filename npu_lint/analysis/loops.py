"""Is a node repeated: inside the body of a loop of its own function?"""
from __future__ import annotations

from astroid import nodes

_SCOPES = (nodes.FunctionDef, nodes.AsyncFunctionDef, nodes.Lambda, nodes.ClassDef, nodes.Module)
_LOOPS = (nodes.For, nodes.AsyncFor, nodes.While)


_BLOCKS = ("body", "orelse", "handlers", "finalbody")


def enclosing_loop(node: nodes.NodeNG) -> nodes.NodeNG | None:
    """The innermost loop whose body (not its iterable or test) holds node, within node's scope,
    and runs it on more than one pass: a statement that a `return` or `raise` follows in its
    block runs once per call, and one that a `break` follows, once per run of its own loop
    (FunASR's `for key in sd: if "embed_tokens.weight" in key: ... .to(self.device, ...); return`)."""
    child, parent = node, node.parent
    leaves_loop = False
    while parent is not None and not isinstance(parent, _SCOPES):
        later = _statements_after(parent, child)
        if any(isinstance(statement, (nodes.Return, nodes.Raise)) for statement in later):
            return None
        if any(isinstance(statement, nodes.Break) for statement in later):
            leaves_loop = True
        if isinstance(parent, _LOOPS) and child in parent.body:
            if not leaves_loop:
                return parent
            leaves_loop = False
        child, parent = parent, parent.parent
    return None


def _statements_after(parent: nodes.NodeNG, child: nodes.NodeNG) -> list[nodes.NodeNG]:
    """The statements after `child` in the block of `parent` that holds it."""
    for field in _BLOCKS:
        block = getattr(parent, field, None)
        if isinstance(block, list):
            for index, statement in enumerate(block):
                if statement is child:
                    return block[index + 1:]
    return []
