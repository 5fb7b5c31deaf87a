"""Which fields of a call's result the code reads.

`torch.cuda.get_device_properties(0).major`, or `props = torch.cuda.get_device_properties(0)`
and then `props.major` in the same scope: linked by name, no inference. The module's
attribute reads come from the walk the engine keeps, so asking costs no tree walk.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.context import ModuleContext


def fields_read(call: nodes.Call, ctx: ModuleContext) -> set[str]:
    """The attribute names read from what `call` returns, directly or through a local name."""
    parent = call.parent
    if isinstance(parent, nodes.Attribute) and parent.expr is call:
        return {parent.attrname}
    if not (isinstance(parent, nodes.Assign) and parent.value is call):
        return set()
    names = {target.name for target in parent.targets if isinstance(target, nodes.AssignName)}
    if not names:
        return set()
    scope = call.scope()
    return {
        read.attrname for read in ctx.nodes_of(nodes.Attribute)
        if isinstance(read.expr, nodes.Name) and read.expr.name in names and read.scope() is scope
    }
