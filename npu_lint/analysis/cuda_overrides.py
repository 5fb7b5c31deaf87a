"""Classes that override `cuda()` and have no `npu()` (or, on the agnostic route, no `to()`).

The port turns a caller's `.cuda()` into `.npu()` (`.to(device)` on the agnostic route), and
that method is then the base class's, from torch_npu or torch: what the override adds (hqq's
HQQLinear packs its quantized weights for the device, gpytorch's nearest-neighbour utility
builds its GPU index, a teacher model kept outside the submodules moves along) no longer
happens. An override that adds nothing the base's method misses (it only defers to
`super().cuda(...)`, moves registered submodules and returns self, is a copy of nn.Module's own
`self._apply(lambda t: t.cuda(device))`, or is an abstract method that does nothing) is no such class.
"""
from __future__ import annotations

from typing import Iterator

import astroid
from astroid import nodes, util

from npu_lint.analysis.not_values import abstract_stub
from npu_lint.analysis.receivers import MAX_INFERRED, ReceiverKind, receiver_kind


def unported_cuda_override(cls: nodes.ClassDef, method: str) -> bool:
    """Does `cls` (or a base of the project) override `cuda()` with something the base's
    `method` ("npu", or "to" on the agnostic route) would skip, and define no `method` itself?"""
    override = _own_cuda(cls)
    return override is not None and not is_property(override) and not adds_nothing(override) \
        and not defines(cls, method)


def receiver_classes(node: nodes.NodeNG) -> Iterator[nodes.ClassDef]:
    """The project's classes the value of `node` is an instance of (`self` inside a method is
    its class)."""
    try:
        for count, value in enumerate(node.infer()):
            if count >= MAX_INFERRED:
                return
            if value is util.Uninferable or not isinstance(value, astroid.bases.Instance):
                continue
            proxied = getattr(value, "_proxied", None)
            if isinstance(proxied, nodes.ClassDef) and not proxied.qname().startswith("torch."):
                yield proxied
    except Exception:  # inference fails in many ways on half-written code
        return


def _own_cuda(cls: nodes.ClassDef) -> nodes.FunctionDef | None:
    """The `cuda` the class or a base of the project defines, the nearest first."""
    try:
        classes = [cls, *cls.ancestors()]
    except Exception:  # astroid raises assorted errors on odd class hierarchies
        return None
    for klass in classes:
        if klass.qname().startswith("torch."):
            return None
        for found in klass.locals.get("cuda", ()):
            if isinstance(found, nodes.FunctionDef):
                return found
    return None


def is_property(node: nodes.FunctionDef) -> bool:
    return any(isinstance(d, nodes.Name) and d.name in ("property", "cached_property")
               for d in (node.decorators.nodes if node.decorators else ()))


def defines(cls: nodes.ClassDef, method: str) -> bool:
    """Does the class, or a base of the project (not torch's), define `method`?"""
    try:
        classes = [cls, *cls.ancestors()]
    except Exception:  # astroid raises assorted errors on odd class hierarchies
        return True
    return any(method in klass.locals for klass in classes if not klass.qname().startswith("torch."))


def adds_nothing(node: nodes.FunctionDef) -> bool:
    """Does the override only do what the base's npu() does anyway: defer to `super().cuda(...)`,
    move submodules the Module registers (`self.model.cuda()`, fairseq's SequenceGenerator),
    apply `t.cuda(device)` to every tensor as nn.Module's own cuda() does, return self? An
    abstract `cuda()` that does nothing (neuraloperator's Transform) adds nothing either: its
    subclasses' implementations are the overrides to port."""
    if abstract_stub(node):
        return True
    body = [stmt for stmt in node.body if not (isinstance(stmt, nodes.Expr) and isinstance(stmt.value, nodes.Const))]
    for stmt in body:
        if isinstance(stmt, nodes.Return) and (_returns_self(stmt.value) or _super_cuda(stmt.value)
                                               or _modules_own_cuda(stmt.value)):
            continue
        if isinstance(stmt, nodes.Expr) and (_super_cuda(stmt.value) or _moves_submodule(stmt.value)
                                             or _modules_own_cuda(stmt.value)):
            continue
        return False
    return True


def _returns_self(value) -> bool:
    return isinstance(value, nodes.Name) and value.name == "self"


def _cuda_call(value) -> nodes.Attribute | None:
    if isinstance(value, nodes.Call) and isinstance(value.func, nodes.Attribute) and value.func.attrname == "cuda":
        return value.func
    return None


def _super_cuda(value) -> bool:
    func = _cuda_call(value)
    return (func is not None and isinstance(func.expr, nodes.Call) and isinstance(func.expr.func, nodes.Name)
            and func.expr.func.name == "super")


def _modules_own_cuda(value) -> bool:
    """`self._apply(lambda t: t.cuda(device))`: nn.Module's own cuda(), copied (jfhealthcare's
    Chexpert models); the base's npu() moves every parameter and buffer the same way."""
    if not (isinstance(value, nodes.Call) and isinstance(value.func, nodes.Attribute)
            and value.func.attrname == "_apply" and _returns_self(value.func.expr) and len(value.args) == 1):
        return False
    mover = value.args[0]
    if not (isinstance(mover, nodes.Lambda) and len(mover.args.args or ()) == 1):
        return False
    func = _cuda_call(mover.body)
    return func is not None and isinstance(func.expr, nodes.Name) and func.expr.name == mover.args.args[0].name


def _moves_submodule(value) -> bool:
    """`self.model.cuda()` where `self.model` is a Module: registered, the base's npu() moves it."""
    func = _cuda_call(value)
    return (func is not None and isinstance(func.expr, nodes.Attribute) and _returns_self(func.expr.expr)
            and receiver_kind(func.expr) is ReceiverKind.MODULE)
