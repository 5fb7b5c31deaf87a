"""Shared by the operator checks (NPU3xx, NPU930/931): which Python API a node uses.

`torch.x(...)`, `F.x(...)`, `nn.X(...)`, `torchvision.ops.nms(...)` resolve through the imports
(cheap); `x.digamma()` becomes `torch.Tensor.digamma` only when the method name is in the
calling check's table and astroid infers a Tensor receiver. Results are cached per module, so
that several checks asking about one node pay once.
"""
from __future__ import annotations

import functools
from typing import FrozenSet, Iterable, Mapping, Optional, Tuple

from astroid import nodes

from npu_lint.analysis.api_names import TENSOR, normalize_api
from npu_lint.analysis.call_owners import give_way, report_once_per_statement
from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.cpu_device import explicitly_on_cpu, made_on_cpu, says_cpu
from npu_lint.analysis.names import chain_parts, is_chain_top, keyword, last_name, name_trigger, qualified_name
from npu_lint.analysis.receivers import ReceiverKind, receiver_kind
from npu_lint.checks.base import Check
from npu_lint.core.findings import Confidence
from npu_lint.knowledge import operator_data

_QNAMES = "operator-calls:qnames"
_RECEIVERS = "operator-calls:receivers"


def last_parts(names: Iterable[str]) -> FrozenSet[str]:
    return frozenset(name.rsplit(".", 1)[-1] for name in names)


# Every API these checks match is reached through an import of torch (or torchvision), so
# "torch" is in the text of any file they can fire on. The engine's scan ORs the words of all
# checks, so short names ("lu", "i0", "load") would let nearly every file through.
def scan_words(qnames: Iterable[str]) -> FrozenSet:
    """The triggers for a table of qualified API names: the identifiers a use must show
    (`("functional", "interpolate")`, `"digamma"`), matched exactly on the ast, as attributes or
    in imports only: `resolve` reads an attribute chain, a name an import binds, or a method,
    so a local `mode` or `double` never lets a file in (a quarter of the real-code files that
    reached astroid did so for such a word alone and had no finding). A name outside
    `torch.Tensor` also needs a chain that the imports make that name (`"@torch.nn.RNN"`):
    fairseq's own `TransformerEncoderLayer` or `np.float64` is not torch's."""
    return frozenset(_with_qualified(_as_attribute(name_trigger(name)), name) for name in qnames)


def _with_qualified(words, qname: str):
    """The word trigger, and for a name only imports can reach, the name itself (see prefilter)."""
    if qname.startswith(TENSOR):
        return words  # also a method of an inferred Tensor: no import names it
    return (words if isinstance(words, tuple) else (words,)) + ("@" + qname,)


def call_scan_words(qnames: Iterable[str], apis: Mapping[str, operator_data.ApiFacts] | None = None
                    ) -> FrozenSet:
    """`scan_words` for checks that match calls only (`resolve_call`): the last word must also
    be the last name of some callee, so `self.mode = ...` or `if x.scatter:` lets no file in
    for `Tensor.mode(...)`. With `apis`, the words `reached` needs too: `F.interpolate` falls
    back only with the literal `"lanczos"` as its mode, `torch.frexp` only with `out=`."""
    triggers = set()
    for qname in qnames:
        words = _as_attribute(name_trigger(qname))
        words = (words if isinstance(words, tuple) else (words,))
        words = words[:-1] + ("(" + words[-1][1:],)
        for extra in (reach_words(apis[qname]) if apis else [()]):
            group = _with_qualified(words + extra, qname)
            triggers.add(group if len(group) > 1 else group[0])
    return frozenset(triggers)


def reach_words(api: operator_data.ApiFacts) -> list[tuple[str, ...]]:
    """What a file must show for some call of `api` to reach its overloads (see `reached`), as
    alternatives: "=arg" a keyword argument, "'text" a string literal; () when nothing."""
    alternatives: list[tuple[str, ...]] = []
    if api.overloads:
        alternatives += [_trigger_words(t) for t in api.when] if api.when else [()]
    if api.out:
        alternatives += [("=out",) + _trigger_words(t) for t in api.out_when] if api.out_when else [("=out",)]
    return alternatives


def _trigger_words(trigger: operator_data.Trigger) -> tuple[str, ...]:
    """What a file must show for `trigger_holds` to hold on some call."""
    if trigger.has_value:
        if trigger.by_default:
            return ()
        if isinstance(trigger.value, str):
            return ("'" + trigger.value,)  # a literal, by keyword or by position
    return ("=" + trigger.argument,) if trigger.position is None else ()


def _as_attribute(trigger):
    if isinstance(trigger, tuple):
        return tuple("." + word for word in trigger)
    return "." + trigger


def tensor_methods(names: Iterable[str]) -> FrozenSet[str]:
    return frozenset(name[len(TENSOR):] for name in names if name.startswith(TENSOR))


def _qname(node: nodes.NodeNG, ctx: ModuleContext) -> Optional[str]:
    cache = ctx.scratch.setdefault(_QNAMES, {})
    if node not in cache:
        cache[node] = qualified_name(node)
    return cache[node]


def _is_tensor(node: nodes.NodeNG, ctx: ModuleContext) -> bool:
    cache = ctx.scratch.setdefault(_RECEIVERS, {})
    if node not in cache:
        cache[node] = receiver_kind(node)
    return cache[node] is ReceiverKind.TENSOR


def resolve(node: nodes.NodeNG, ctx: ModuleContext, methods: FrozenSet[str]
            ) -> Optional[Tuple[str, Confidence]]:
    """(API name, confidence) of a Name/Attribute expression, or None.

    Inference runs only for an attribute whose name is in `methods` and whose receiver is not a
    module attribute (`torch.linalg.x` is a name, not a method call)."""
    qname = _qname(node, ctx)
    if qname:
        return normalize_api(qname), Confidence.HIGH
    if isinstance(node, nodes.Attribute) and node.attrname in methods:
        if _qname(node.expr, ctx) is None and _is_tensor(node.expr, ctx):
            return TENSOR + node.attrname, Confidence.INFERENCE
    return None


def resolve_call(call: nodes.Call, ctx: ModuleContext, names: FrozenSet[str], methods: FrozenSet[str]
                 ) -> Optional[Tuple[str, Confidence]]:
    """`resolve` for the callee, after a cheap check that its last name is in `names`."""
    if last_name(call.func) not in names:
        return None
    return resolve(call.func, ctx, methods)


def resolve_chain(node: nodes.NodeNG, ctx: ModuleContext, names: FrozenSet[str], methods: FrozenSet[str]
                  ) -> Optional[Tuple[str, Confidence]]:
    """`resolve` for the whole `a.b.c` (not its parts), also as an assignment target."""
    if not is_chain_top(node) or last_name(node) not in names:
        return None
    if isinstance(node, nodes.AssignAttr):
        parts = chain_parts(node)
        return (normalize_api(parts[0][1]), Confidence.HIGH) if parts else None
    return resolve(node, ctx, methods)


def release_of(settings) -> str:
    return settings.release


def operators_for(settings) -> operator_data.OperatorRelease:
    return operator_data.operators(release_of(settings))


def chip_of(settings) -> str:
    return settings.chip


def has_star_arguments(call: nodes.Call) -> bool:
    return any(isinstance(a, nodes.Starred) for a in call.args) or any(k.arg is None for k in call.keywords or ())


def trigger_holds(trigger: operator_data.Trigger, call: nodes.Call) -> bool:
    """Whether the call certainly meets the trigger (unknown values do not)."""
    value = keyword(call, trigger.argument)
    if value is None and trigger.position is not None:
        if has_star_arguments(call):
            return False
        if len(call.args) > trigger.position:
            value = call.args[trigger.position]
    if not trigger.has_value:
        return value is not None and not (isinstance(value, nodes.Const) and value.value is None)
    if value is None:
        return trigger.by_default and not has_star_arguments(call)
    return isinstance(value, nodes.Const) and value.value == trigger.value and \
        type(value.value) is type(trigger.value)


def reached(api: operator_data.ApiFacts, call: nodes.Call) -> Tuple[Tuple[str, ...], Optional[nodes.NodeNG]]:
    """(overloads this call reaches, the argument that selects them), ((), None) when none."""
    out = _keyword_node(call, "out")
    overloads, triggers = (api.out, api.out_when) if out is not None else (api.overloads, api.when)
    if not overloads:
        return (), None
    selector = out if out is not None and not api.overloads else None  # out= is what selects them
    if not triggers:
        return overloads, selector
    for trigger in triggers:
        if trigger_holds(trigger, call):
            node = _keyword_node(call, trigger.argument)
            if node is None and trigger.position is not None and len(call.args) > trigger.position:
                node = call.args[trigger.position]
            return overloads, node if node is not None else selector
    return (), None


def _keyword_node(call: nodes.Call, name: str) -> Optional[nodes.Keyword]:
    for item in call.keywords or ():
        if item.arg == name:
            return item
    return None


def call_on_cpu(call: nodes.Call, method: bool) -> bool:
    """The call runs on the CPU by what it says: a cpu `device=`, or its receiver (a method) or
    first tensor (a function) visibly on the CPU. Device and operator rules stay quiet there."""
    return says_cpu(call) or explicitly_on_cpu(first_tensor(call, method))


def first_tensor(call: nodes.Call, method: bool) -> Optional[nodes.NodeNG]:
    """The receiver of a method call, else the first argument (or `input=`)."""
    if method:
        return call.func.expr if isinstance(call.func, nodes.Attribute) else None
    return keyword(call, "input") or (call.args[0] if call.args else None)


@functools.lru_cache(maxsize=1)
def _owned() -> Tuple[FrozenSet[str], Tuple[str, ...]]:
    from npu_lint.knowledge.loader import shipped_rules

    # The CUDA surface the NPU1xx/NPU4xx checks report with their own advice (torch.cuda, the
    # cuDNN/CUDA backend flags, C++/CUDA extension builds), and every symbol rule's names.
    symbols, prefixes = set(), ["torch.cuda.", "torch.backends.cuda.", "torch.backends.cudnn.",
                                "torch.utils.cpp_extension."]
    for rule in shipped_rules():
        if rule.kind == "symbol":
            symbols.update(rule.match.get("symbols", ()))
            prefixes.extend(p.rstrip(".") + "." for p in rule.match.get("prefixes", ()))
    return frozenset(symbols), tuple(prefixes)


def owned_by_other_rules(name: str) -> bool:
    """Names that a CUDA-surface rule (NPU1xx, NPU2xx, NPU4xx) already reports, with its own advice:
    `torch.cuda.*`, `torch.backends.cudnn.*`, `torch.utils.cpp_extension.*` and the symbols of the
    symbol rules (`torch.nn.DataParallel`, NPU140)."""
    symbols, prefixes = _owned()
    return name in symbols or name.startswith(prefixes)


def load_api_table(check: Check, settings, select) -> None:
    """What every Ascend-list check holds: release, chip, list version, its table of APIs
    (`select(data)`: a mapping or an iterable of qualified names) and their last names."""
    check.release = release_of(settings)
    check.chip = chip_of(settings)
    data = operators_for(settings)
    check.list_version = data.ascend_version
    table = select(data)
    check.table = table if isinstance(table, dict) else frozenset(table)
    check.names = last_parts(check.table)
    check.methods = tensor_methods(check.table)


class ApiListCall(Check):
    """A call of one of a list of APIs that Ascend's support lists single out.

    Subclasses say which APIs (`select`); matching and reporting are the same. A call that names
    the CPU, or works on a tensor visibly there (`x.cpu()`, made by a torch factory without a
    device), runs no NPU operator.
    """

    node_types = (nodes.Call,)

    def __init__(self, rule, settings):
        super().__init__(rule, settings)
        load_api_table(self, settings, self.select)

    def select(self, data) -> Iterable[str]:
        raise NotImplementedError

    def triggers(self) -> frozenset:
        return call_scan_words(self.table)

    def visit(self, node: nodes.Call, ctx: ModuleContext) -> None:
        found = resolve_call(node, ctx, self.names, self.methods)
        if found is None or found[0] not in self.table:
            return
        method = found[0].startswith(TENSOR)
        if call_on_cpu(node, method) or made_on_cpu(first_tensor(node, method), ctx.text):
            return  # `torch.rand((10, 2)).double()`: made on the host without a device, it stays there
        report_once_per_statement(ctx, self, self.rule, node, found[0], confidence=found[1],
                                  list_version=self.list_version, release=self.release)

    def leave_module(self, ctx: ModuleContext) -> None:
        give_way(ctx, self.rule.code)  # a call NPU301, NPU304 or NPU606 says more about
