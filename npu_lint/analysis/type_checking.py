"""Code that only a type checker reads: the body of `if TYPE_CHECKING:` (MONAI's data/image_reader.py):

    cp, has_cp = optional_import("cupy")
    if TYPE_CHECKING:
        import cupy
        NdarrayOrCupy: TypeAlias = np.ndarray | cupy.ndarray
    else:
        NdarrayOrCupy: TypeAlias = Any

`typing.TYPE_CHECKING` is False whenever the program runs, on CUDA and the NPU alike: nothing in
that body imports or calls anything, so a port has nothing to change there (`ModuleContext.report`
drops findings in it, for every rule). The `else` branch runs and keeps its findings; so does the
body of `if not TYPE_CHECKING:`.
"""
from __future__ import annotations

from astroid import nodes

_NAME = "TYPE_CHECKING"


def may_check_types(text: str) -> bool:
    """False when the text never names TYPE_CHECKING, so `only_for_type_checkers` cannot hold."""
    return _NAME in text


def only_for_type_checkers(node: nodes.NodeNG) -> bool:
    """Is `node` inside the body of an `if TYPE_CHECKING:` (or `if typing.TYPE_CHECKING:`)?"""
    child, parent = node, node.parent
    while parent is not None:
        if isinstance(parent, nodes.If) and _is_type_checking(parent.test) \
                and any(child is stmt for stmt in parent.body):
            return True
        child, parent = parent, parent.parent
    return False


def _is_type_checking(test: nodes.NodeNG) -> bool:
    return (isinstance(test, nodes.Name) and test.name == _NAME) \
        or (isinstance(test, nodes.Attribute) and test.attrname == _NAME)
