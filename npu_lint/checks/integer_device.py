"""check: integer_device_means_cuda (NPU112) -- an integer device index that still means CUDA.

What a bare index means depends on the torch the target pairs with and on torch_npu's patches
(data/integer_devices.yaml, docs/integer-devices.md): from torch 2.3 on every form means the NPU
once torch_npu is loaded, so on newer targets this check finds nothing by design. Only values
that are certainly integers are reported: literals, and expressions astroid infers to int and
nothing else (`int(os.environ["LOCAL_RANK"])`); `args.local_rank` is unknown and stays quiet.
"""
from __future__ import annotations

from typing import Optional, Tuple

import astroid
from astroid import nodes, util

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.names import keyword, last_name, name_trigger, qualified_name, single_value
from npu_lint.analysis.receivers import ReceiverKind, receiver_kind
from npu_lint.analysis.transfer import device_is_rewritten
from npu_lint.checks.base import Check
from npu_lint.checks.operator_calls import has_star_arguments, release_of
from npu_lint.core.findings import Applicability, Confidence, Edit
from npu_lint.knowledge.integer_devices import DeviceForm, integer_device_facts

_METHOD_OWNER = {ReceiverKind.TENSOR: "torch.Tensor.", ReceiverKind.MODULE: "torch.nn.Module."}
_MAX_INFERRED = 8
_TRANSFER_WRAPPER = "_wrapper_cuda"  # transfer_to_npu turns `device=<int>` into "npu:<int>"


class IntegerDeviceMeansCuda(Check):
    node_types = (nodes.Call,)

    def __init__(self, rule, settings):
        super().__init__(rule, settings)
        facts = integer_device_facts()
        self.release = release_of(settings)
        self.row = facts.release(self.release)
        self.forms: dict[str, DeviceForm] = {}  # callable -> form, for the forms that mean CUDA here
        for form in self.row.cuda_forms():
            for name in facts.forms[form].callables:
                self.forms[name] = facts.forms[form]
        self.last_names = frozenset(name.rsplit(".", 1)[-1] for name in self.forms)
        self.integer_results = facts.integer_results

    def triggers(self) -> frozenset:
        # A keyword-only argument (`device=` of factories) is the cheapest word to look for.
        words = set()
        for name, form in self.forms.items():
            words.add("=" + form.keyword if form.position is None else name_trigger(name))
            if form.keyword is not None:
                words.add("=" + form.keyword)
        return frozenset(words)

    def visit(self, node: nodes.Call, ctx: ModuleContext) -> None:
        func = node.func
        if last_name(func) not in self.last_names:
            return
        api = self._callee(func)
        form = self.forms.get(api) if api else None
        if form is None:
            return
        value = _argument(node, form)
        if value is None:
            return
        confidence = _integer_confidence(value, self.integer_results)
        if confidence is None:
            return
        if self.settings.strategy == "auto" and device_is_rewritten(node, _TRANSFER_WRAPPER, self.release):
            return  # transfer_to_npu rewrites the integer to "npu:N" at run time
        replacement, edit = _replacement(ctx, value)
        ctx.report(self.rule, value, confidence=confidence, edits=(edit,) if edit else (),
                   applicability=Applicability.UNSAFE if confidence is not Confidence.HIGH else None,
                   api=api, value=ctx.node_text(value), torch=self.row.torch, release=self.row.release,
                   form=form.label, replacement=replacement)

    def _callee(self, func: nodes.NodeNG) -> Optional[str]:
        qname = qualified_name(func)
        if qname is not None:
            return qname
        if isinstance(func, nodes.Attribute) and qualified_name(func.expr) is None:
            owner = _METHOD_OWNER.get(receiver_kind(func.expr))
            return owner + func.attrname if owner else None
        return None


def _argument(call: nodes.Call, form: DeviceForm) -> Optional[nodes.NodeNG]:
    if form.keyword is not None:
        value = keyword(call, form.keyword)
        if value is not None:
            return value
    if form.position is not None and not has_star_arguments(call) and len(call.args) > form.position:
        return call.args[form.position]
    return None


def _is_int(value) -> bool:
    return isinstance(value, nodes.Const) and type(value.value) is int


def _inferred_int(value) -> bool:
    """An int literal, or an instance of int (`int(text)` infers to one); never a bool."""
    if isinstance(value, nodes.Const):
        return _is_int(value)
    return isinstance(value, astroid.bases.Instance) and value.pytype() == "builtins.int"


def _builtin_int_call(node: Optional[nodes.NodeNG]) -> bool:
    """`int(...)` of the builtins, told from the syntax: it does not need astroid's brain
    transforms, which the engine may not run on the user's module."""
    if not isinstance(node, nodes.Call) or not isinstance(node.func, nodes.Name) or node.func.name != "int":
        return False
    try:
        scope, _assignments = node.func.lookup("int")
    except Exception:  # astroid raises assorted errors on odd scopes
        return False
    return isinstance(scope, nodes.Module) and scope.name == "builtins"


def _integer_confidence(node: nodes.NodeNG, integer_results: frozenset) -> Optional[Confidence]:
    """HIGH for an int literal or a call documented to return one (`torch.npu.current_device()`),
    INFERENCE for a name assigned once from such a call or when every inferred value is an int;
    else None."""
    if _is_int(node):
        return Confidence.HIGH
    if isinstance(node, nodes.Const):
        return None
    if isinstance(node, nodes.Call) and qualified_name(node.func) in integer_results:
        return Confidence.HIGH
    if _builtin_int_call(node):
        return Confidence.INFERENCE  # `int(...)` returns an int or raises
    if isinstance(node, nodes.Call) and isinstance(node.func, nodes.Name) and node.func.name == "int":
        return None  # a rebound `int`: astroid's brain would still call it the builtin
    if isinstance(node, nodes.Name):
        value = single_value(node)
        if isinstance(value, nodes.Call) and qualified_name(value.func) in integer_results or _builtin_int_call(value):
            return Confidence.INFERENCE
    try:
        values = []
        for count, value in enumerate(node.infer()):
            if count >= _MAX_INFERRED or value is util.Uninferable:
                return None
            values.append(value)
    except astroid.AstroidError:
        return None
    except Exception:  # inference fails in many ways on half-written code
        return None
    return Confidence.INFERENCE if values and all(_inferred_int(v) for v in values) else None


def _replacement(ctx: ModuleContext, value: nodes.NodeNG) -> Tuple[str, Optional[Edit]]:
    """`"npu:0"` for a literal, `f"npu:{rank}"` for a name; other expressions get no edit."""
    if _is_int(value) and value.value >= 0:
        text = f'"npu:{value.value}"'
    elif isinstance(value, nodes.Name):
        text = f'f"npu:{{{value.name}}}"'
    else:
        return f'torch.device("npu", {ctx.node_text(value)})', None
    return text, Edit(ctx.start(value), ctx.end(value), text)
