"""check: cuda_object_method -- methods of CUDA objects, `ev = torch.cuda.Event(); ev.record()`.

Name resolution sees `torch.cuda.Event()` but not what `ev.record()` calls.
Candidates are names assigned from a `torch.cuda` call; only those receivers
are inferred, so the cost stays with the files that create CUDA objects.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.names import qualified_name
from npu_lint.analysis.receivers import ReceiverKind, receiver_kind
from npu_lint.checks.base import Check
from npu_lint.core.findings import Confidence
from npu_lint.knowledge.cuda_surface import is_cuda_name


class CudaObjectMethod(Check):
    node_types = (nodes.Assign, nodes.Call)

    def triggers(self) -> frozenset[str]:
        return frozenset({"cuda"})

    def visit(self, node, ctx: ModuleContext) -> None:
        state = ctx.scratch.setdefault(self, {"names": set(), "calls": []})
        if isinstance(node, nodes.Assign):
            value = node.value
            if isinstance(value, nodes.Call) and is_cuda_name(qualified_name(value.func) or ""):
                for target in node.targets:
                    if isinstance(target, nodes.AssignName):
                        state["names"].add(target.name)
        elif isinstance(node.func, nodes.Attribute) and isinstance(node.func.expr, nodes.Name):
            state["calls"].append(node)

    def leave_module(self, ctx: ModuleContext) -> None:
        state = ctx.scratch.get(self)
        if not state or not state["names"]:
            return
        for call in state["calls"]:
            receiver = call.func.expr
            if receiver.name not in state["names"] or qualified_name(receiver) is not None:
                continue
            if receiver_kind(receiver) is not ReceiverKind.CUDA_OBJECT:
                continue
            cls = _class_name(receiver)
            ctx.report(self.rule, call, confidence=Confidence.INFERENCE,
                       method=call.func.attrname, cls=cls or "a torch.cuda class")


def _class_name(node: nodes.NodeNG) -> str | None:
    try:
        for value in node.infer():
            proxied = getattr(value, "_proxied", None)
            if proxied is not None:
                return proxied.qname()
    except Exception:
        return None
    return None
