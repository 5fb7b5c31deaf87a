"""check: cuda_override -- a Module or Tensor class that overrides `cuda()` but not `npu()`.

The port turns the callers' `.cuda()` into `.npu()` (NPU103; `.to(device)` on the agnostic
route, where the class needs its own `to()`), and `npu()` is then the base class's, from
torch_npu: what the override adds (moving a teacher model kept outside the submodules, dropping
cached values, building a GPU index) no longer happens. Only classes whose
lineage astroid sees reach torch.nn.Module or torch.Tensor; a class with an `npu()` of its own
(or from a base of the project) is ported already.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.receivers import ReceiverKind, class_kind, receiver_kind
from npu_lint.checks.base import Check
from npu_lint.core.findings import Position

_BASE_LABEL = {ReceiverKind.MODULE: "nn.Module", ReceiverKind.TENSOR: "Tensor"}


class CudaOverride(Check):
    node_types = (nodes.FunctionDef,)

    def triggers(self) -> frozenset[str]:
        # A name of a `def` is no trigger word; an override of cuda() says `.cuda` or `torch.cuda`.
        return frozenset({"cuda"})

    def visit(self, node: nodes.FunctionDef, ctx: ModuleContext) -> None:
        cls = node.parent
        if node.name != "cuda" or not isinstance(cls, nodes.ClassDef) or _is_property(node):
            return
        # The manual port calls `.npu()`; the agnostic one `.to(device)` (NPU103's two fixes).
        method, call, own = (("to", ".to(device)", "a `to()`") if self.settings.strategy == "agnostic"
                             else ("npu", ".npu()", "an `npu()`"))
        if _adds_nothing(node) or _defines(cls, method):
            return
        base = _BASE_LABEL.get(class_kind(cls))
        if base is None:
            return
        start = ctx.start(node)  # the `def`; the finding spans `def cuda`, not the whole body
        name = ctx.index.line(start.line).find("cuda", start.column)
        end = Position(start.line, name + len("cuda")) if name >= 0 else None
        ctx.report(self.rule, node, start=start, end=end, cls=cls.name, base=base, method=method, call=call, own=own)


def _is_property(node: nodes.FunctionDef) -> bool:
    return any(isinstance(d, nodes.Name) and d.name in ("property", "cached_property")
               for d in (node.decorators.nodes if node.decorators else ()))


def _defines(cls: nodes.ClassDef, method: str) -> bool:
    """Does the class, or a base of the project (not torch's), define `method`?"""
    try:
        classes = [cls, *cls.ancestors()]
    except Exception:  # astroid raises assorted errors on odd class hierarchies
        return True
    return any(method in klass.locals for klass in classes if not klass.qname().startswith("torch."))


def _adds_nothing(node: nodes.FunctionDef) -> bool:
    """Does the override only do what the base's npu() does anyway: defer to `super().cuda(...)`,
    move submodules the Module registers (`self.model.cuda()`, fairseq's SequenceGenerator),
    return self?"""
    body = [stmt for stmt in node.body if not (isinstance(stmt, nodes.Expr) and isinstance(stmt.value, nodes.Const))]
    for stmt in body:
        if isinstance(stmt, nodes.Return) and (_returns_self(stmt.value) or _super_cuda(stmt.value)):
            continue
        if isinstance(stmt, nodes.Expr) and (_super_cuda(stmt.value) or _moves_submodule(stmt.value)):
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


def _moves_submodule(value) -> bool:
    """`self.model.cuda()` where `self.model` is a Module: registered, the base's npu() moves it."""
    func = _cuda_call(value)
    return (func is not None and isinstance(func.expr, nodes.Attribute) and _returns_self(func.expr.expr)
            and receiver_kind(func.expr) is ReceiverKind.MODULE)
