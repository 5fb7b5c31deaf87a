"""Which fields of a call's result the code reads.

`torch.cuda.get_device_properties(0).major`, or `props = torch.cuda.get_device_properties(0)`
and then `props.major` in the same scope, or `self.event = torch.cuda.Event()` and then
`self.event.cuda_event` in a method of the same class (bagua's tensors): linked by name, no
inference. The module's
attribute reads come from the walk the engine keeps, so asking costs no tree walk.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.names import class_of_method


def fields_read(call: nodes.Call, ctx: ModuleContext) -> set[str]:
    """The attribute names read from what `call` returns, directly or through a local name."""
    parent = call.parent
    if isinstance(parent, nodes.Attribute) and parent.expr is call:
        return {parent.attrname}
    if not (isinstance(parent, nodes.Assign) and parent.value is call):
        return set()
    kept = _kept_in_self(parent)
    if kept:
        return _read_of_self_attribute(kept, call, ctx)
    names = {target.name for target in parent.targets if isinstance(target, nodes.AssignName)}
    if not names:
        return set()
    scope = call.scope()
    return {
        read.attrname for read in ctx.nodes_of(nodes.Attribute)
        if isinstance(read.expr, nodes.Name) and read.expr.name in names and read.scope() is scope
    }


def _kept_in_self(assign: nodes.Assign) -> set[str]:
    """The attributes of `self` that `self.<name> = value` stores the value in."""
    return {target.attrname for target in assign.targets
            if isinstance(target, nodes.AssignAttr) and isinstance(target.expr, nodes.Name) and target.expr.name == "self"}


def _read_of_self_attribute(attributes: set[str], call: nodes.Call, ctx: ModuleContext) -> set[str]:
    """The fields read as `self.<attribute>.<field>` in the methods of the class whose method
    stores `call`'s result in `self.<attribute>`."""
    klass = class_of_method(call)
    if klass is None:
        return set()
    return {
        read.attrname for read in ctx.nodes_of(nodes.Attribute)
        if isinstance(read.expr, nodes.Attribute) and read.expr.attrname in attributes
        and isinstance(read.expr.expr, nodes.Name) and read.expr.expr.name == "self"
        and class_of_method(read) is klass
    }
