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
from npu_lint.analysis.names import qualified_name
from npu_lint.analysis.receivers import ReceiverKind, class_kind
from npu_lint.checks.base import Check
from npu_lint.core.findings import Position

_BASE_LABEL = {ReceiverKind.MODULE: "nn.Module", ReceiverKind.TENSOR: "Tensor"}
_TORCH_BASES = {"torch.nn.Module": "nn.Module", "torch.Tensor": "Tensor"}


def _star_imported_base(cls: nodes.ClassDef) -> str | None:
    """The label of a direct base that names torch's Module or Tensor through the module's
    imports, also a star import of the project's own module that astroid does not follow
    (trankit 1.1.2's layers/seq2seq.py: `nn` from `from trankit.utils.mwt_lemma_utils.seq2seq_utils
    import *`, then `class Seq2SeqModel(nn.Module)`); pylint, which imports the project, sees it."""
    for base in cls.bases:
        label = _TORCH_BASES.get(qualified_name(base) or "")
        if label is not None:
            return label
    return None


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
        base = _BASE_LABEL.get(class_kind(cls)) or _star_imported_base(cls)
        if base is None:
            return
        start = ctx.start(node)  # the `def`; the finding spans `def cuda`, not the whole body
        name = ctx.index.line(start.line).find("cuda", start.column)
        end = Position(start.line, name + len("cuda")) if name >= 0 else None
        ctx.report(self.rule, node, start=start, end=end, cls=cls.name, base=base, method=method, call=call, own=own)
