"""Code that only builds the message of an error on its way out.

    if (elem_idxs[atomic_nums != -1] == -1).any():         torchani 2.9's nn/_containers.py
        raise ValueError(f"Input elements include: {torch.unique(atomic_nums)}")

What is computed inside a raised exception (or an assert's message) runs once, as the program
stops: advice about the shapes of a step that runs again and again (dynamic shapes that make the
NPU compile a graph per step) says nothing about it.
"""
from __future__ import annotations

from astroid import nodes


def in_error_message(node: nodes.NodeNG) -> bool:
    """Is `node` part of the exception a `raise` raises, or of an `assert`'s message?"""
    child, parent = node, node.parent
    while parent is not None and not isinstance(parent, (nodes.FunctionDef, nodes.ClassDef, nodes.Module,
                                                         nodes.Lambda)):
        if isinstance(parent, nodes.Raise):
            return child is parent.exc
        if isinstance(parent, nodes.Assert):
            return child is parent.fail
        child, parent = parent, parent.parent
    return False
