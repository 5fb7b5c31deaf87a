"""checks: dtype_unsupported_by_operator (NPU304) and dtype_unsupported_on_npu (NPU305).

NPU304: a call whose tensor argument is float64 or complex128 where Ascend's support list gives
the operator an allowlist without it. The dtype must be written down: a literal (`dtype=
torch.float64`, `.double()`, `.to(torch.float64)`, `torch.cuda.DoubleTensor(...)`) or a local name
assigned once from one (`x = torch.randn(3).double(); x.lgamma()`).

NPU305: dtypes the NPU does not support at all: the quantized dtypes of
`torch_npu.unsupported_dtype` and uint64 (no arithmetic kernels). A comparison
(`x.dtype == torch.quint8`, `dtype in (torch.qint8, torch.int8)`) asks for no tensor of the dtype:
it tells one apart, so it is left alone.
"""
from __future__ import annotations

import re
from typing import Optional, Tuple

from astroid import nodes

from npu_lint.analysis.call_owners import add_related, drop, report_about
from npu_lint.analysis.context import ModuleContext, quoted_source
from npu_lint.analysis.cpu_device import in_cpu_call, made_on_cpu
from npu_lint.analysis.names import bindings, imported_name, keyword, qualified_name, single_value
from npu_lint.analysis.not_values import comparison_of
from npu_lint.checks.base import Check
from npu_lint.checks.operator_calls import (
    TENSOR, call_on_cpu, chip_of, last_parts, load_api_table, operators_for, release_of, resolve_call, resolve_chain
)
from npu_lint.knowledge.argument_positions import argument_positions
from npu_lint.knowledge.operator_data import DTYPE_NAMES, chip_label

TENSOR_PREFIX = "torch.Tensor."
# Literals naming the checked dtypes.
DTYPE_QNAMES = {
    "torch.float64": "fp64", "torch.double": "fp64",
    "torch.complex128": "complex128", "torch.cdouble": "complex128",
}
DTYPE_STRINGS = {"torch.DoubleTensor": "fp64", "torch.cuda.DoubleTensor": "fp64", "float64": "fp64",
                 "double": "fp64", "complex128": "complex128"}
CAST_METHODS = {"double": "fp64", "cdouble": "complex128"}
DOUBLE_TENSOR_CLASSES = frozenset({"torch.DoubleTensor", "torch.cuda.DoubleTensor", "torch.npu.DoubleTensor"})
# Methods whose result has the dtype of their receiver.
SAME_DTYPE = frozenset({"view", "reshape", "contiguous", "clone", "t", "transpose", "permute", "squeeze",
                        "unsqueeze", "flatten", "detach", "cuda", "npu", "cpu", "requires_grad_", "expand",
                        "repeat", "to", "abs", "neg", "exp", "log", "sqrt", "sum", "mean"})
MAX_DEPTH = 4
# Casts, copies and moves: the cure for a float64 tensor, not a computation on it.
CONVERSIONS = frozenset(TENSOR_PREFIX + name for name in (
    "to", "type", "float", "half", "bfloat16", "double", "cdouble", "int", "long", "short", "bool", "byte",
    "char", "cpu", "cuda", "npu", "numpy", "item", "tolist", "clone", "detach", "contiguous", "copy_",
    "type_as", "element_size", "size", "dim", "numel"))
# Methods that set or read a tensor's autograd flags, hooks or layout facts run no operator kernel,
# whatever the dtype: Ascend's list gives them `self=fp32` only (the dtype its tests used), so
# deepchem's `torch.as_tensor(x, dtype=torch.float64, device=self.device).requires_grad_()` asks
# nothing of the NPU that the factory did not.
NO_KERNEL = frozenset(TENSOR_PREFIX + name for name in (
    "requires_grad_", "retain_grad", "retains_grad", "register_hook", "register_post_accumulate_grad_hook",
    "ndim", "ndimension", "nelement", "data_ptr", "storage_offset", "stride", "is_contiguous",
    "is_floating_point", "is_complex", "get_device", "record_stream", "rename", "rename_", "refine_names"))
# Data loading runs on the host: samplers, datasets and collate functions are Python over what the
# dataset holds, and WeightedRandomSampler casts its weights to float64 itself (torch 2.8's
# torch/utils/data/sampler.py: `torch.as_tensor(weights, dtype=torch.double)`), so the dtype the
# caller writes never reaches an NPU kernel. Ascend's allowlists for them (`weights`仅支持fp32,
# DataLoader's `dataset`) describe the data that was tested, not a kernel's limit.
HOST_DATA_LOADING = "torch.utils.data."
# A call given both `dtype=` and `out_dtype=` computes in the first and returns the second
# (`torch._scaled_mm`, mergekit's `merge_tensors(..., dtype=torch.float64, out_dtype=torch.float32)`):
# its result is what the calls on it compute with.
OUT_DTYPE = "out_dtype"
# Collectives and point-to-point calls read and write their tensor in place.
COLLECTIVES = "torch.distributed."


def dtype_literal(node: Optional[nodes.NodeNG], depth: int = 0) -> Optional[str]:
    """"fp64" / "complex128" for an expression that names that dtype, else None."""
    if node is None or depth > MAX_DEPTH:
        return None
    if isinstance(node, nodes.Const) and isinstance(node.value, str):
        return DTYPE_STRINGS.get(node.value)
    if isinstance(node, (nodes.Attribute, nodes.Name)):
        qname = qualified_name(node)
        if qname in DTYPE_QNAMES:
            return DTYPE_QNAMES[qname]
        if qname in DOUBLE_TENSOR_CLASSES:
            return "fp64"
        if isinstance(node, nodes.Name):
            return dtype_literal(single_value(node), depth + 1)
    return None


def tensor_dtype(node: Optional[nodes.NodeNG], depth: int = 0) -> Optional[str]:
    """The checked dtype of a tensor expression, when it is written down; else None."""
    if node is None or depth > MAX_DEPTH:
        return None
    if isinstance(node, nodes.Subscript):
        return tensor_dtype(node.value, depth + 1)
    if isinstance(node, nodes.Name):
        return tensor_dtype(single_value(node), depth + 1)
    if not isinstance(node, nodes.Call):
        return None
    if keyword(node, OUT_DTYPE) is not None:
        return dtype_literal(keyword(node, OUT_DTYPE))  # `dtype=` is what it computes in, not what it returns
    if keyword(node, "dtype") is not None:
        return dtype_literal(keyword(node, "dtype"))
    func = node.func
    if qualified_name(func) in DOUBLE_TENSOR_CLASSES:
        return "fp64"
    if not isinstance(func, nodes.Attribute) or qualified_name(func.expr) is not None:
        return None  # torch.x(...) without dtype=: not written down
    if func.attrname in CAST_METHODS and not node.args:
        return CAST_METHODS[func.attrname]
    if func.attrname in ("to", "type") and node.args:
        cast = dtype_literal(node.args[0])
        if cast or _names_torch_attribute(node.args[0]):
            return cast  # a cast to another dtype ends the trail
    if func.attrname in SAME_DTYPE:
        return tensor_dtype(func.expr, depth + 1)
    return None


def written_at(node: Optional[nodes.NodeNG], depth: int = 0) -> Optional[nodes.NodeNG]:
    """Where, inside the expression itself, its checked dtype is written: the `dtype=` keyword, or
    the `.double()`, `.to(torch.float64)` or `DoubleTensor(...)` call (as `tensor_dtype` reads it,
    without following names: what another statement wrote is another place to change)."""
    if node is None or depth > MAX_DEPTH:
        return None
    if isinstance(node, nodes.Subscript):
        return written_at(node.value, depth + 1)
    if not isinstance(node, nodes.Call):
        return None
    if keyword(node, OUT_DTYPE) is not None:
        return _keyword(node, OUT_DTYPE) if dtype_literal(keyword(node, OUT_DTYPE)) else None
    if keyword(node, "dtype") is not None:
        return _keyword(node, "dtype")
    func = node.func
    if qualified_name(func) in DOUBLE_TENSOR_CLASSES:
        return node
    if not isinstance(func, nodes.Attribute) or qualified_name(func.expr) is not None:
        return None
    if func.attrname in CAST_METHODS and not node.args:
        return node
    if func.attrname in ("to", "type") and node.args and dtype_literal(node.args[0]):
        return node
    if func.attrname in SAME_DTYPE:
        return written_at(func.expr, depth + 1)
    return None


def _keyword(call: nodes.Call, name: str) -> Optional[nodes.Keyword]:
    return next((item for item in call.keywords or () if item.arg == name), None)


def _names_torch_attribute(node: nodes.NodeNG) -> bool:
    """`torch.float32` and the like (a dtype, not a device)."""
    qname = qualified_name(node) if isinstance(node, (nodes.Attribute, nodes.Name)) else None
    return bool(qname) and qname.startswith("torch.") and qname != "torch.device"


def _argument(call: nodes.Call, api: str, argument: str, method: bool) -> Optional[nodes.NodeNG]:
    """The expression given for `argument`: by keyword, or positionally (`input` and `self` first,
    other names where data/argument_positions.yaml puts them: `dist.all_reduce(t)` gives `tensor`)."""
    if method and argument == "self":
        return call.func.expr if isinstance(call.func, nodes.Attribute) else None
    value = keyword(call, argument)
    if value is not None or method or not call.args:
        return value
    position = 0 if argument in ("input", "self") else argument_positions().get(api, {}).get(argument)
    if position is None or position >= len(call.args):
        return None
    if any(isinstance(item, nodes.Starred) for item in call.args[:position + 1]):
        return None  # `f(*args)`: where each argument lands is not written down
    return call.args[position]


def _made_float32_instead(dtype: str, allowed: Optional[Tuple[str, ...]], api: str) -> bool:
    """A collective works on its float64 tensor in place: `dist.all_reduce(t.float())` would reduce
    a copy and drop the result, so the change is where the tensor is made."""
    return api.startswith(COLLECTIVES) and dtype == "fp64" and (allowed is None or "fp32" in allowed)


def _cast_advice(dtype: str, allowed: Optional[Tuple[str, ...]], api: str = "") -> str:
    if _made_float32_instead(dtype, allowed, api):
        return "make the tensor float32 where it is made (the collective works on it in place, so a cast copy would lose the result)"
    if dtype == "fp64" and (allowed is None or "fp32" in allowed):
        return "cast to float32 first (`.float()`), or keep this computation on the CPU"
    if dtype == "complex128" and (allowed is None or "complex64" in allowed):
        return "cast to complex64 first (`.to(torch.complex64)`), or keep this computation on the CPU"
    return "cast to a supported dtype first, or keep this computation on the CPU"


def _allowed_text(allowed: Optional[Tuple[str, ...]]) -> str:
    if allowed is None:
        return ""
    return " (it supports " + ", ".join(DTYPE_NAMES.get(d, d) for d in allowed) + ")"


class DtypeUnsupportedByOperator(Check):
    node_types = (nodes.Call,)

    def __init__(self, rule, settings):
        super().__init__(rule, settings)
        chip = chip_of(settings)
        load_api_table(self, settings, lambda data: {
            name: facts for name, facts in data.ascend.items()
            if (facts.arguments(chip) or facts.denied.get(chip)) and name not in CONVERSIONS | NO_KERNEL
            and not name.startswith(HOST_DATA_LOADING)})

    def triggers(self) -> frozenset:
        """One of the words, and a way `dtype_literal` or `tensor_dtype` reads the dtype: a torch
        name (`np.float64` is not one), a cast method called, or a string literal."""
        written = ({"@" + name for name in (*DTYPE_QNAMES, *DOUBLE_TENSOR_CLASSES)}
                   | {"(" + method for method in CAST_METHODS} | {"'" + text for text in DTYPE_STRINGS})
        return frozenset((word, way) for word in ("float64", "double", "complex128", "DoubleTensor")
                         for way in written)

    def visit(self, node: nodes.Call, ctx: ModuleContext) -> None:
        if not self._writes_down_a_checked_dtype(node):
            return  # cheap syntax first: inference only for calls that could fire
        found = resolve_call(node, ctx, self.names, self.methods)
        if found is None or found[0] not in self.table:
            return
        api = found[0]
        facts = self.table[api]
        method = api.startswith(TENSOR)
        if call_on_cpu(node, method):
            return  # `device="cpu"`, `x.cpu()`: the author keeps it off the NPU
        if made_on_cpu(node, ctx.text):
            return  # `torch.eye(4, dtype=torch.float64)`: a factory without a device makes it on the CPU
        first = "self" if method else "input"
        compute = dtype_literal(keyword(node, "dtype"))
        arguments = facts.arguments(self.chip) or (first,)
        for argument in arguments:
            named = argument  # what asks for the dtype: the argument, or the `dtype=` it is computed in
            if argument == "dtype":
                dtype, expression, source = compute, keyword(node, "dtype"), _keyword(node, "dtype")
            elif keyword(node, "dtype") is not None and argument == first and api.endswith("_like"):
                # `torch.zeros_like(x, dtype=torch.bool)` (deepinv's TV prior tests, on a float64 x):
                # the new tensor has the dtype asked for, and x lends only its shape and device
                dtype, expression, source, named = compute, keyword(node, "dtype"), _keyword(node, "dtype"), "dtype"
            else:
                expression = _argument(node, api, argument, method)
                dtype, source = tensor_dtype(expression), written_at(expression)
                if dtype is None and argument in ("self", "input") and compute:
                    # `torch.mean(x, dtype=torch.float64)`: x is cast to float64 for the computation
                    dtype, expression, source, named = compute, keyword(node, "dtype"), _keyword(node, "dtype"), "dtype"
            if dtype is None or not facts.rejects(self.chip, argument, dtype):
                continue
            if named != "dtype" and made_on_cpu(expression, ctx.text):
                continue  # the float64 tensor is made on the CPU, where this computation stays
            allowed = facts.allowed(self.chip, argument)
            workaround = _cast_advice(dtype, allowed, api)
            about = (source,) if source is not None else ()
            if source is None and _made_float32_instead(dtype, allowed, api) and isinstance(expression, nodes.Name):
                # `t = torch.tensor([count, total], dtype=torch.float64)`, then `dist.all_reduce(t)`
                # (torchvision references' SmoothedValue, copied into surya's rfdetr): the advice is
                # to change the statement that made it, where NPU606's float64 is that same change
                made = written_at(single_value(expression))
                about = (made,) if made is not None else ()
            said = report_about(
                ctx, self.rule, node, about=about, confidence=found[1], api=api,
                argument=named, dtype=DTYPE_NAMES[dtype], expression=quoted_source(ctx.node_text(expression)),
                chip=chip_label(self.chip), list_version=self.list_version, release=self.release,
                allowed=_allowed_text(allowed), workaround=workaround)
            if said is not None and source is not None:
                ctx.scratch.setdefault(self, {}).setdefault(source, []).append((said, node, api))
            return

    def leave_module(self, ctx: ModuleContext) -> None:
        """Calls whose float64 is written in one place are one finding: `torch.mean(x,
        dtype=torch.float64).sum()` is said at `torch.mean`, the call nearest to that place; the
        calls on its result are related places."""
        for found in ctx.scratch.get(self, {}).values():
            if len(found) < 2:
                continue
            found.sort(key=lambda item: -len(list(item[1].node_ancestors())))  # the innermost first
            owner = found[0][0]
            for said, node, api in found[1:]:
                drop(ctx, said)
                add_related(ctx, owner, (*said.finding.related,
                                         ctx.related(node, f"`{api}` computes on this float64 result too")))

    @staticmethod
    def _writes_down_a_checked_dtype(node: nodes.Call) -> bool:
        candidates = [keyword(node, "dtype"), *node.args, *(k.value for k in node.keywords or ())]
        if isinstance(node.func, nodes.Attribute):
            candidates.append(node.func.expr)
        return any(dtype_literal(c) or tensor_dtype(c) for c in candidates if c is not None)


class DtypeUnsupportedOnNpu(Check):
    node_types = (nodes.Attribute, nodes.Name)

    def __init__(self, rule, settings):
        super().__init__(rule, settings)
        self.release = release_of(settings)
        data = operators_for(settings)
        self.reasons = {f"torch.{d}": "a quantized dtype that torch_npu lists as unsupported on the NPU "
                                      "(`torch_npu.unsupported_dtype`)"
                        for d in data.unsupported_dtypes}
        self.reasons.update({f"torch.{d}": "a dtype without arithmetic kernels on the NPU"
                             for d in data.no_arithmetic_dtypes})
        self.advice = {f"torch.{d}": "keep tensors of this dtype on the CPU (the eager quantized kernels "
                                     "of torch.ao are CPU kernels)"
                       for d in data.unsupported_dtypes}
        self.advice.update({f"torch.{d}": "use int64 on the NPU" for d in data.no_arithmetic_dtypes})
        self.names = last_parts(self.reasons)

    def triggers(self) -> frozenset[str]:
        return self.names

    def visit(self, node, ctx: ModuleContext) -> None:
        found = resolve_chain(node, ctx, self.names, frozenset())
        if found is None or found[0] not in self.reasons or in_cpu_call(node) or comparison_of(node) is not None:
            return
        if _entry_of_dtype_table(node) or _returned_by_dtype_translation(node) or _argument_of_torch_npu_call(node):
            return
        ctx.report(self.rule, node, confidence=found[1], dtype=found[0], reason=self.reasons[found[0]],
                   release=self.release, workaround=self.advice[found[0]])


def _returned_by_dtype_translation(node: nodes.NodeNG) -> bool:
    """`if dtype == DataType.DT_QINT8: return torch.qint8` ... (torch_npu's torchair `_ge_dtype_to_torch`):
    a function that returns one of at least three dtypes translates a name into a dtype, as a
    table does, and makes no tensor. Where a tensor of the dtype is made, the dtype is a call's."""
    parent = node.parent
    if not isinstance(parent, nodes.Return) or parent.value is not node:
        return False
    function = parent.scope()
    if not isinstance(function, nodes.FunctionDef):
        return False
    returned = {qualified_name(statement.value) for statement in function.nodes_of_class(nodes.Return)
                if isinstance(statement.value, (nodes.Attribute, nodes.Name))}
    return sum(1 for name in returned if name and _DTYPE_NAME.match(name)) >= MIN_TABLE_DTYPES


def _argument_of_torch_npu_call(node: nodes.NodeNG) -> bool:
    """`torch_npu.npu_quantize(x, scale, offset, torch.qint8, -1, False)`,
    `torch_npu.npu_dynamic_quant(x, dst_type=torch.quint4x2)` (vllm-ascend's quantization
    methods), also through the operator registry (`torch.ops.npu.npu_quantize(...)`, SGLang's NPU
    backend): torch_npu's own operators take these dtypes as what to quantize to; torch.ao's
    quantization flow takes them for its CPU engines."""
    parent = node.parent
    if isinstance(parent, nodes.Keyword):
        parent = parent.parent
    if not isinstance(parent, nodes.Call) or parent.func is node:
        return False
    callee = qualified_name(parent.func) or _imported_in_try(parent.func) or ""
    # `torch.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)` (simpletransformers'
    # models): torch.ao's quantization flow makes a model for its CPU engines (fbgemm, qnnpack) on
    # every platform, so the dtype it is given asks nothing of the NPU.
    return callee.startswith(("torch_npu.", "torch.ops.npu.", "torch.quantization.", "torch.ao.quantization."))


def _imported_in_try(callee: nodes.NodeNG) -> Optional[str]:
    """What a `try:` imports under the callee's name, when its `except ImportError:` binds a
    stand-in for older torch (mmrazor's `from torch.ao.quantization.backend_config import
    DTypeConfig`, else `DTypeConfig = get_placeholder('torch>=1.13')`): where the import works, the
    call is the imported one."""
    if not isinstance(callee, nodes.Name):
        return None
    imported = [binding for binding in bindings(callee) if isinstance(binding, nodes.ImportFrom)
                and isinstance(binding.parent, nodes.Try) and any(binding is item for item in binding.parent.body)]
    return imported_name(imported[0], callee.name) if len(imported) == 1 else None


# torch's dtype names, as a table lists them (`torch.float16`, `torch.uint64`, `torch.quint8`)
_DTYPE_NAME = re.compile(r"^torch\.(u?int\d+|float\d+\w*|bfloat16|half|float|double|long|int|short|bool|"
                         r"complex\d+|cfloat|cdouble|chalf|q\w+|bits\w+)$")
MIN_TABLE_DTYPES = 3


def _entry_of_dtype_table(node: nodes.NodeNG) -> bool:
    """`{"F64": torch.float64, "U64": torch.uint64}` (safetensors' names in transformers),
    `{torch.uint64: torch.int64}`, `SUPPORTED_QDTYPES = [torch.quint8, torch.qint8, ...]`
    (torchao, torchrl, kornia): a table of dtypes translates or lists them and makes no tensor.
    A dtype counts as a table's entry where its side of the table (a dict's keys or values, a
    collection's elements) names at least three dtypes."""
    parent = node.parent
    if isinstance(parent, nodes.Dict):
        keys = [key for key, _value in parent.items]
        column = keys if any(key is node for key in keys) else [value for _key, value in parent.items]
    elif isinstance(parent, (nodes.List, nodes.Tuple, nodes.Set)):
        column = parent.elts
    else:
        return False
    named = sum(1 for entry in column if isinstance(entry, (nodes.Attribute, nodes.Name))
                and _DTYPE_NAME.match(qualified_name(entry) or ""))
    return named >= MIN_TABLE_DTYPES
