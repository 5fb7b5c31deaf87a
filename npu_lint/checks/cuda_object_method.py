"""check: cuda_object_method -- methods of CUDA objects, `ev = torch.cuda.Event(); ev.record()`.

A method call on an object whose creation this module reports (NPU101/NPU102)
is folded into that finding as a related location (analysis/cuda_objects.py):
the creation is the one thing to change. This check reports only the calls
left over: a receiver that inference finds to be a CUDA object made where no
creation links it, unless every such creation is on a path an NPU machine never
takes (the `else` of `if is_torch_npu_available():`). Only those receivers are
inferred, so the cost stays with the files that create CUDA objects.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.cuda_objects import linked_calls, made_only_off_npu_path
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
        folded = linked_calls(ctx)
        for call in state["calls"]:
            if call in folded:
                continue
            receiver = call.func.expr
            if receiver.name not in state["names"] or qualified_name(receiver) is not None:
                continue
            if receiver_kind(receiver) is not ReceiverKind.CUDA_OBJECT \
                    or made_only_off_npu_path(receiver, self.settings.release):
                continue
            cls = _class_name(receiver)
            ctx.report(self.rule, call, confidence=Confidence.INFERENCE,
                       method=call.func.attrname, cls=cls or "a torch.cuda class")


def _class_name(node: nodes.NodeNG) -> str | None:
    try:
        for value in node.infer():
            proxied = getattr(value, "_proxied", None)
            if proxied is not None and proxied.qname().startswith("torch.cuda."):
                return proxied.qname()  # not the `None` a rebound name may also hold
    except Exception:
        return None
    return None
