"""kind: method -- `.cuda()` / `.is_cuda` on Tensors, Modules and unknown receivers.

An attribute read as a test is said once with the device it picks: `torch.device("cuda:%d" %
x.get_device()) if x.is_cuda else torch.device("cpu")` (espnet's ctc_prefix_score.py, copied into
funasr) is one port, as `"cuda" if torch.cuda.is_available() else "cpu"` is (checks/device_choice.py).
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis import device_neutral, edits
from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.cuda_library_guards import guards_cuda_library, library_base
from npu_lint.analysis.cuda_overrides import receiver_classes, unported_cuda_override
from npu_lint.analysis.failing_on_npu import failing_name_in, held_with, rule_of
from npu_lint.analysis.guards import guarded_by
from npu_lint.analysis.imported_classes import ImportedClass, class_of_receiver
from npu_lint.analysis.library_modules import library_module
from npu_lint.analysis.names import qualified_name
from npu_lint.analysis.own_packages import own_object
from npu_lint.analysis.receivers import ReceiverKind, receiver_kind
from npu_lint.analysis.unread_values import stored_unread
from npu_lint.checks.base import Check
from npu_lint.checks.device_choice import fold_device_strings
from npu_lint.core.findings import Applicability, Confidence

_RECEIVER_LABEL = {
    ReceiverKind.TENSOR: "Tensor",
    ReceiverKind.MODULE: "Module",
    ReceiverKind.UNKNOWN: "value (its type could not be inferred)",
}
_CONFIDENCE = {
    ReceiverKind.TENSOR: Confidence.INFERENCE,
    ReceiverKind.MODULE: Confidence.INFERENCE,
    ReceiverKind.UNKNOWN: Confidence.INFERENCE_FAILURE,
}


class MethodCheck(Check):
    node_types = (nodes.Attribute,)

    def __init__(self, rule, settings):
        super().__init__(rule, settings)
        self.methods = frozenset(rule.match["methods"])
        self.call = rule.match.get("call", True)
        self.receivers = frozenset(ReceiverKind(kind) for kind in rule.match["receivers"])
        self.replacement = rule.match.get("replacement")

    def triggers(self) -> frozenset[str]:
        return self.methods

    def visit(self, node: nodes.Attribute, ctx: ModuleContext) -> None:
        if node.attrname not in self.methods:
            return
        called = isinstance(node.parent, nodes.Call) and node.parent.func is node
        if called != self.call:
            return
        receiver = qualified_name(node.expr) or ""
        if receiver == "torch" or receiver.startswith("torch."):
            return  # `torch.cuda` and other torch module attributes belong to the symbol rules
        kind = receiver_kind(node.expr, node.attrname)
        imported = class_of_receiver(node.expr) if called and kind is ReceiverKind.UNKNOWN else None
        if imported is not None and imported.plain:
            # torchbearer's `Trial(...).cuda()`, a class of another module of the project: its own
            # method, on no torch value (pylint, which infers the instance, says nothing either)
            return
        if imported is not None and imported.torch_module:
            kind = ReceiverKind.MODULE  # what pylint infers through the project's module
        if kind not in self.receivers:
            return
        if called and kind is ReceiverKind.UNKNOWN and library_module(node.expr):
            return  # `tvm.target.cuda()`: the library's own function, not a move
        if not called and kind is ReceiverKind.UNKNOWN and own_object(ctx, node.expr):
            # super-gradients' `device_config.is_cuda`: its DeviceConfig's property, not torch's;
            # SGLang's `get_platform().is_cuda`: a fact of its platform, whose `is_npu` is another
            return
        if not called and isinstance(node.parent, (nodes.Attribute, nodes.AssignAttr)) \
                and not hasattr(bool, node.parent.attrname):
            return  # `platform.is_cuda.return_value = True`: a mock's attribute; a Tensor's is a bool
        if not called and guards_cuda_library(node):
            return  # `if x.is_cuda: cupy.asarray(x)`: False on the NPU, as the port wants
        if not called and stored_unread(node):
            # `_, heads, q_len, _, k_len, is_cuda, device = *q.shape, k.shape[-2], q.is_cuda, q.device`
            # in an attention helper that later uses only `device`: nothing reads the answer
            return
        if library_base(node) is not None:
            # InvokeAI's `class InvokeInt8Params(bnb.nn.Int8Params)` moves its quantized data in
            # its own cuda(): the class is the port (NPU403), and `.npu()` there would hand NPU
            # tensors to the library's CUDA kernels, as its devices would (not_values.py)
            return
        edit = edits.attribute_name_edit(ctx, node, self.replacement) if self.replacement else None
        neutral = self._device_neutral(node, ctx) if self.settings.strategy == "agnostic" else None
        applicability = None if kind is not ReceiverKind.UNKNOWN else Applicability.UNSAFE
        label = _RECEIVER_LABEL[kind]
        override = self._unported_override(node, imported) if called and kind is not ReceiverKind.TENSOR else None
        if override is not None:
            # hqq's `self.cuda(self.device)` in HQQLinear, gpytorch's `return self.cuda()`: the
            # rename would call the base class's npu() (or to()), which skips the override
            # (NPU119); it is right once the class has a method of its own.
            applicability = Applicability.DISPLAY_ONLY
            label = f"{label}, whose class `{override}` overrides `cuda()` without {self._own_method()} (NPU119),"
        count = len(ctx.findings)
        ctx.report(
            self.rule, node.parent if called else node,
            confidence=_CONFIDENCE[kind],
            edits=(edit,) if edit else (),
            applicability=applicability,
            method=node.attrname, replacement=self.replacement or "", receiver=label,
            agnostic_edits=neutral[1] if neutral else (), agnostic=neutral[0] if neutral else "",
        )
        if not called and len(ctx.findings) > count:
            self._hold_back_with_failing_name(node, ctx)
            ctx.scratch.setdefault(self, []).append((node, ctx.findings[-1]))

    @staticmethod
    def _hold_back_with_failing_name(node: nodes.Attribute, ctx: ModuleContext) -> None:
        """`if next(model.parameters()).is_cuda: data = scatter(data, [device])[0]` (mmcv 1.x's
        CUDA scatter, NPU142; `nn.DataParallel`, NPU140): renamed alone, `.is_npu` would send the
        NPU into a name that fails there as it stands, where the code ran before without it. The
        fix is shown with that name's, as a device string's or a torch.cuda test's is."""
        finding = ctx.findings[-1]
        fix = finding.fix
        if fix is None or not fix.edits or fix.applicability is Applicability.DISPLAY_ONLY:
            return
        used = failing_name_in(guarded_by(node, ctx), ctx)
        if used is None:
            return
        code = rule_of(used[1], ctx)
        related = ctx.related(used[0], f"{code}: `{used[1]}` fails on the NPU as it stands")
        ctx.findings[-1] = held_with(finding, used[1], code, related)

    def _own_method(self) -> str:
        return "a `to()`" if self.settings.strategy == "agnostic" else "an `npu()`"

    def _unported_override(self, node: nodes.Attribute, imported: ImportedClass | None) -> str | None:
        """The name of the receiver's class of `.cuda()` that overrides it with no `npu()` (no
        `to()` on the agnostic route, whose fix calls that), if the receiver is always such an
        instance: of this module's classes, or of one another module of the project defines."""
        if node.attrname != "cuda":
            return None
        method = "to" if self.settings.strategy == "agnostic" else "npu"
        if imported is not None:
            return imported.name if imported.torch_module and imported.cuda_adds_work \
                and method not in imported.methods else None
        classes = list(receiver_classes(node.expr))
        if classes and all(unported_cuda_override(cls, method) for cls in classes):
            return classes[0].name
        return None

    def leave_module(self, ctx: ModuleContext) -> None:
        if self.settings.strategy == "manual" and self in ctx.scratch:
            fold_device_strings(ctx, ctx.scratch[self])  # `"cuda" if x.is_cuda else "cpu"`: one port

    def _device_neutral(self, node: nodes.Attribute, ctx: ModuleContext):
        """`.cuda(non_blocking=True)` -> `.to(<device>, non_blocking=True)`; a call that names its own
        device (`.cuda(0)`, `.cuda(device=d)`) has no neutral form."""
        spec = self.rule.agnostic
        call = device_neutral.called(node)
        device = device_neutral.expression(ctx, spec.get("expression", "device")) if spec else None
        if device is None or call is None or call.args or any(k.arg in (None, "device") for k in call.keywords or ()):
            return None
        rename = edits.attribute_name_edit(ctx, node, spec["method"])
        insert = device_neutral.insert_first_argument(ctx, call, device)
        return (device, (rename, insert)) if rename and insert else None
