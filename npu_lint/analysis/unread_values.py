"""Values no path reads: a local name's default that the statements after it replace first.

    accelerator_module = torch.cuda               mergekit's common.py get_torch_accelerator_count
    if accelerator_name is not None:
        ...
        accelerator_module = getattr(torch, accelerator.type)
    else:
        accelerator_module = getattr(torch, torch.accelerator.current_accelerator().type)
    return accelerator_module.device_count()

Every path stores the name again (or leaves) before anything reads it, and one stores it, so
the first value is a default never used: renaming it to `torch.npu` changes nothing. Only a
value that calls nothing but `torch.device` counts, since a call runs whether its result is
read or not; only a function's own name (a module's or class's may be read from elsewhere),
and only when no nested function or lambda could read it later; a `break` or `continue`, or
anything that reads the name, may read it.
"""
from __future__ import annotations

from typing import Optional

from astroid import nodes

from npu_lint.analysis.names import qualified_name, unpacked_into

# What the statements after the store do with the name: store it again first, read it (maybe),
# leave without either (a `return`: never read, but no replacement says the store is a default),
# or neither, handing over to the next statement.
_REPLACED, _READ, _LEFT, _THROUGH = "replaced", "read", "left", "through"


def never_read(node: nodes.NodeNG) -> bool:
    """Is `node` part of the value of `name = ...` in a function whose next statements store
    `name` again on every path before any of them reads it?"""
    statement = node.statement()
    name = _stored_name(statement)
    if name is None or not (statement.value is node or statement.value.parent_of(node)):
        return False
    if any(qualified_name(call.func) != "torch.device" for call in statement.value.nodes_of_class(nodes.Call)):
        return False  # a call runs, read or not (`torch.cuda.current_device()` fails on the NPU)
    function = statement.scope()
    if not isinstance(function, nodes.FunctionDef) or not isinstance(statement.parent, (nodes.FunctionDef, nodes.If)):
        return False  # a `try:` handler or a loop's next turn may read it
    if _declared_outside(function, name) or _closed_over(function, name):
        return False
    following = []
    sibling = statement.next_sibling()
    while sibling is not None:
        following.append(sibling)
        sibling = sibling.next_sibling()
    return _block(following, name) == _REPLACED


def stored_unread(node: nodes.NodeNG) -> bool:
    """Is `node` (an expression that calls nothing) stored in a local name of its function that
    nothing in the function reads, alone or as its item of an unpacking (`_, heads, is_cuda,
    device = *q.shape, q.is_cuda, q.device`, where only `device` is used)?"""
    statement = node.parent
    if isinstance(statement, nodes.Tuple) and isinstance(statement.parent, nodes.Assign):
        target, statement = unpacked_into(statement, node), statement.parent
    elif isinstance(statement, nodes.Assign) and statement.value is node and len(statement.targets) == 1:
        target = statement.targets[0]
    else:
        return False
    if not isinstance(target, nodes.AssignName):
        return False
    function = statement.scope()
    if not isinstance(function, nodes.FunctionDef) or _declared_outside(function, target.name):
        return False
    return not _reads(function, target.name)


def _stored_name(statement: nodes.NodeNG) -> Optional[str]:
    if isinstance(statement, nodes.Assign) and len(statement.targets) == 1 \
            and isinstance(statement.targets[0], nodes.AssignName):
        return statement.targets[0].name
    if isinstance(statement, nodes.AnnAssign) and statement.value is not None \
            and isinstance(statement.target, nodes.AssignName):
        return statement.target.name
    return None


def _declared_outside(function: nodes.FunctionDef, name: str) -> bool:
    return any(name in declaration.names for declaration in function.nodes_of_class((nodes.Global, nodes.Nonlocal)))


def _closed_over(function: nodes.FunctionDef, name: str) -> bool:
    return any(_reads(inner, name) for inner in function.nodes_of_class((nodes.FunctionDef, nodes.Lambda))
               if inner is not function)


def _block(statements: list[nodes.NodeNG], name: str) -> str:
    for statement in statements:
        state = _statement(statement, name)
        if state != _THROUGH:
            return state
    return _THROUGH


def _statement(statement: nodes.NodeNG, name: str) -> str:
    if isinstance(statement, (nodes.Return, nodes.Raise)):
        return _READ if _reads(statement, name) else _LEFT
    if isinstance(statement, (nodes.Break, nodes.Continue)):
        return _READ
    if isinstance(statement, nodes.If):
        if _reads(statement.test, name):
            return _READ
        states = {_block(statement.body, name), _block(statement.orelse, name)}
        if _READ in states or _THROUGH in states:
            return _READ if _READ in states else _THROUGH
        return _REPLACED if _REPLACED in states else _LEFT
    if _reads(statement, name) or isinstance(statement, nodes.AugAssign) \
            and isinstance(statement.target, nodes.AssignName) and statement.target.name == name:
        return _READ
    return _REPLACED if _stored_name(statement) == name else _THROUGH


def _reads(node: nodes.NodeNG, name: str) -> bool:
    return any(read.name == name for read in node.nodes_of_class(nodes.Name))
