"""Objects made by a `torch.cuda` call and the later method calls on them.

`ev = torch.cuda.Event(); ev.record()`, `self.scaler = torch.cuda.amp.GradScaler()`
in `__init__` and `self.scaler.scale(loss)` in another method: the creation is
the one finding, the method calls are its related locations. Linked by name
within a scope (a local name) or a class (a `self` attribute), no inference.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.legacy_fallbacks import reached_only_by_older_torch
from npu_lint.analysis.names import is_method_self, qualified_name
from npu_lint.analysis.npu_branches import off_npu_path
from npu_lint.knowledge.cuda_surface import is_cuda_name

_KEY = "cuda_object_uses"


def object_uses(ctx: ModuleContext) -> dict[nodes.Call, list[nodes.Call]]:
    """Creation call -> the method calls on the object it made (cached)."""
    if _KEY not in ctx.scratch:
        ctx.scratch[_KEY] = _link(ctx)
    return ctx.scratch[_KEY]


def linked_calls(ctx: ModuleContext) -> set[nodes.Call]:
    """Method calls that belong to a creation reported in this module."""
    return {call for calls in object_uses(ctx).values() for call in calls}


def made_only_off_npu_path(receiver: nodes.Name, release: str | None = None) -> bool:
    """Is every CUDA object `receiver` may hold made where an NPU machine never goes?

    `if is_torch_npu_available(): scaler = torch.npu.amp.GradScaler() else: scaler =
    torch.cuda.amp.GradScaler()`: the creation in the `else` is not reported, and on the NPU
    `scaler` is the NPU's scaler, so its method calls are no CUDA object's either. The same holds
    for a creation only an older torch than the target's reaches (legacy_fallbacks.py)."""
    try:
        _scope, assignments = receiver.lookup(receiver.name)
    except Exception:  # astroid raises assorted errors on odd scopes
        return False
    made = [a.parent.value for a in assignments
            if isinstance(a, nodes.AssignName) and isinstance(a.parent, nodes.Assign)
            and isinstance(a.parent.value, nodes.Call) and is_cuda_name(qualified_name(a.parent.value.func) or "")]
    return bool(made) and all(off_npu_path(call) or reached_only_by_older_torch(call, release) for call in made)


def _creations(ctx: ModuleContext):
    for assign in ctx.nodes_of(nodes.Assign):
        value = assign.value
        if isinstance(value, nodes.Call) and is_cuda_name(qualified_name(value.func) or ""):
            for target in assign.targets:
                yield target, value


def _link(ctx: ModuleContext) -> dict[nodes.Call, list[nodes.Call]]:
    local: dict[nodes.AssignName, nodes.Call] = {}
    attributes: dict[tuple[nodes.ClassDef, str], nodes.Call] = {}
    for target, call in _creations(ctx):
        if isinstance(target, nodes.AssignName):
            local[target] = call
        elif isinstance(target, nodes.AssignAttr) and is_method_self(target.expr):
            cls = target.expr.scope().parent  # _self_name: a method of this class
            attributes.setdefault((cls, target.attrname), call)  # the first creation in the class
    if not local and not attributes:
        return {}
    names = {target.name for target in local}
    attrs = {attrname for _cls, attrname in attributes}
    links: dict[nodes.Call, list[nodes.Call]] = {}
    for call in ctx.nodes_of(nodes.Call):
        func = call.func
        if not isinstance(func, nodes.Attribute):
            continue
        receiver = func.expr
        creation = None
        if isinstance(receiver, nodes.Name) and receiver.name in names:
            creation = _local_creation(receiver, call, local)
        elif isinstance(receiver, nodes.Attribute) and receiver.attrname in attrs and is_method_self(receiver.expr):
            creation = attributes.get((receiver.expr.scope().parent, receiver.attrname))
        if creation is not None and creation is not call:
            links.setdefault(creation, []).append(call)
    for calls in links.values():
        calls.sort(key=lambda c: (c.lineno, c.col_offset))
    return links


def _local_creation(receiver: nodes.Name, call: nodes.Call, local: dict) -> nodes.Call | None:
    """The creation the receiver's name holds at the call: the last one bound before it."""
    try:
        _scope, assignments = receiver.lookup(receiver.name)
    except Exception:  # astroid raises assorted errors on odd scopes
        return None
    made = [local[a] for a in assignments if a in local]
    if not made or len(made) != len(assignments):
        return None  # also bound to something that is not a CUDA object
    before = [c for c in made if c.lineno <= call.lineno]
    return (before or made)[-1]


