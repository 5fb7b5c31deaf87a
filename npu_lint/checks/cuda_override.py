"""check: cuda_override -- a Module or Tensor class that overrides `cuda()` but not `npu()`.

The port turns the callers' `.cuda()` into `.npu()` (NPU103), and `npu()` is then the base
class's, from torch_npu: what the override adds (moving a teacher model kept outside the
submodules, dropping cached values, building a GPU index) no longer happens. Only classes whose
lineage astroid sees reach torch.nn.Module or torch.Tensor; a class with an `npu()` of its own
(or from a base of the project) is ported already.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.receivers import ReceiverKind, class_kind
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
        if _only_calls_super(node) or _has_npu_method(cls):
            return
        base = _BASE_LABEL.get(class_kind(cls))
        if base is None:
            return
        start = ctx.start(node)  # the `def`; the finding spans `def cuda`, not the whole body
        name = ctx.index.line(start.line).find("cuda", start.column)
        end = Position(start.line, name + len("cuda")) if name >= 0 else None
        ctx.report(self.rule, node, start=start, end=end, cls=cls.name, base=base)


def _is_property(node: nodes.FunctionDef) -> bool:
    return any(isinstance(d, nodes.Name) and d.name in ("property", "cached_property")
               for d in (node.decorators.nodes if node.decorators else ()))


def _has_npu_method(cls: nodes.ClassDef) -> bool:
    try:
        classes = [cls, *cls.ancestors()]
    except Exception:  # astroid raises assorted errors on odd class hierarchies
        return True
    return any("npu" in klass.locals for klass in classes if not klass.qname().startswith("torch."))


def _only_calls_super(node: nodes.FunctionDef) -> bool:
    """`def cuda(self, *a, **k): return super().cuda(*a, **k)` adds nothing the base skips."""
    body = [stmt for stmt in node.body if not (isinstance(stmt, nodes.Expr) and isinstance(stmt.value, nodes.Const))]
    if len(body) != 1 or not isinstance(body[0], (nodes.Return, nodes.Expr)):
        return False
    call = body[0].value
    return (isinstance(call, nodes.Call) and isinstance(call.func, nodes.Attribute) and call.func.attrname == "cuda"
            and isinstance(call.func.expr, nodes.Call) and isinstance(call.func.expr.func, nodes.Name)
            and call.func.expr.func.name == "super")
