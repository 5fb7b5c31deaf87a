"""Flags: a test stored under a name and read by later tests.

    self.use_flash = torch.cuda.is_available() and torch_2
    if not self.use_flash:
        return
    props = torch.cuda.get_device_properties(0)      # runs only where the test came out true

A name the module assigns once, in one scope, is the flag; its reads are the loads of that name in
the same scope (a module-level flag: in any function that does not bind the name itself), and for
`self.x` the loads of `self.x` in the methods of the same class.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from astroid import nodes

from npu_lint.analysis.names import class_of_method, is_method_self

if TYPE_CHECKING:  # the module context asks npu_branches, which reads flags
    from npu_lint.analysis.context import ModuleContext


def flag_reads(assign: nodes.Assign | nodes.AnnAssign, ctx: ModuleContext) -> list[nodes.NodeNG]:
    """The loads of the flag that `assign` stores (its single target); [] where the target is not
    a plain name or `self.x`, or where the module stores that flag elsewhere too (then a read
    need not see this value)."""
    targets = assign.targets if isinstance(assign, nodes.Assign) else [assign.target]
    if len(targets) != 1:
        return []
    target = targets[0]
    if isinstance(target, nodes.AssignName):
        return _name_reads(target, ctx)
    if isinstance(target, nodes.AssignAttr) and is_method_self(target.expr):
        return _self_attribute_reads(target, ctx)
    return []


def _name_reads(target: nodes.AssignName, ctx: ModuleContext) -> list[nodes.NodeNG]:
    scope = target.scope()
    stores = _by_name(ctx, nodes.AssignName, "name").get(target.name, ())
    if any(other is not target and _binding_scope(other, scope) for other in stores):
        return []
    return [read for read in _by_name(ctx, nodes.Name, "name").get(target.name, ()) if _binding_scope(read, scope)]


def _binding_scope(node: nodes.NodeNG, scope: nodes.NodeNG) -> bool:
    """Does `node` (a load or a store of a name) reach the binding of `scope`?"""
    own = node.scope()
    if own is scope:
        return True
    # a module-level flag read in a function that does not bind the name itself
    return isinstance(scope, nodes.Module) and node.name not in own.locals


def _self_attribute_reads(target: nodes.AssignAttr, ctx: ModuleContext) -> list[nodes.NodeNG]:
    owner = class_of_method(target)
    if owner is None:
        return []
    stores = _by_name(ctx, nodes.AssignAttr, "attrname").get(target.attrname, ())
    if any(other is not target and class_of_method(other) is owner for other in stores):
        return []
    return [read for read in _by_name(ctx, nodes.Attribute, "attrname").get(target.attrname, ())
            if is_method_self(read.expr) and class_of_method(read) is owner]


def _by_name(ctx: ModuleContext, kind: type, field: str) -> dict[str, list[nodes.NodeNG]]:
    """The module's nodes of one kind by their name: built once per module, then a lookup."""
    key = ("flags", kind)
    if key not in ctx.scratch:
        found: dict[str, list[nodes.NodeNG]] = {}
        for node in ctx.nodes_of(kind):
            if type(node) is kind:  # not a subclass: AssignAttr is no load of an attribute
                found.setdefault(getattr(node, field), []).append(node)
        ctx.scratch[key] = found
    return ctx.scratch[key]
