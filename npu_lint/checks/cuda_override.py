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
from npu_lint.analysis.cuda_overrides import adds_nothing, defines, is_property
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
        if node.name != "cuda" or not isinstance(cls, nodes.ClassDef) or is_property(node):
            return
        # The manual port calls `.npu()`; the agnostic one `.to(device)` (NPU103's two fixes).
        method, call, own = (("to", ".to(device)", "a `to()`") if self.settings.strategy == "agnostic"
                             else ("npu", ".npu()", "an `npu()`"))
        if adds_nothing(node) or defines(cls, method):
            return
        base = _BASE_LABEL.get(class_kind(cls))
        if base is None:
            return
        start = ctx.start(node)  # the `def`; the finding spans `def cuda`, not the whole body
        name = ctx.index.line(start.line).find("cuda", start.column)
        end = Position(start.line, name + len("cuda")) if name >= 0 else None
        ctx.report(self.rule, node, start=start, end=end, cls=cls.name, base=base, method=method, call=call, own=own)
