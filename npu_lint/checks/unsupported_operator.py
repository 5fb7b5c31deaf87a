"""checks: operator_falls_back_to_cpu (NPU301), operator_without_npu_kernel (NPU302) and the
opt-in operator_may_fall_back_to_cpu (NPU931).

Calls of Python APIs that reach ATen overloads without an NPU kernel in the target torch_npu
release (data/operator_support.yaml, docs/operators.md): `torch.*`, `torch.linalg.*`,
`torch.special.*`, `torch.nn.functional.*`, `nn` modules whose forward reaches one, methods on
inferred Tensors, and hand-listed non-ATen ops (`torchvision.ops.nms`).

One statement that calls an API several times is one finding, at the first call, the others
related (analysis/call_owners.py): `torch.lgamma(1 + v) + torch.lgamma(a) - torch.lgamma(v + a)`
(pyro) moves to the CPU as one computation.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.call_owners import report_once_per_statement
from npu_lint.analysis.context import ModuleContext
from npu_lint.checks.base import Check
from npu_lint.checks.operator_calls import (
    TENSOR, ApiListCall, call_on_cpu, last_name, last_parts, operators_for, reached, release_of,
    call_scan_words, resolve_call, tensor_methods
)
from npu_lint.core.findings import Confidence

_DEFAULT_WORKAROUND = {
    "cpu-fallback": "if it must stay, move that computation to the CPU explicitly (`.cpu()`, then "
                    "`.to(device)`) so the copy is deliberate and out of the hot loop",
    "no-kernel": "rewrite it with operators the NPU supports",
}


def operator_label(overloads) -> str:
    names = [o if "::" in o else f"aten::{o}" for o in overloads]
    if len(names) == 1:
        return f"`{names[0]}`"
    if len(names) == 2:
        return f"`{names[0]}` or `{names[1]}`"
    return f"`{names[0]}` (or one of {len(names) - 1} more overloads)"


def via_text(via: str) -> str:
    if not via:
        return ""
    if via.startswith("forward: "):
        return f" (its forward calls `{via[len('forward: '):]}`)"
    if via.startswith("Ascend"):
        return " (Ascend's support list says so)"
    return f" (through `{via}`)"


def workaround_text(api) -> str:
    parts = []
    if api.npu_op:
        parts.append(f"use the NPU fused operator `{api.npu_op}`")
    if api.use:
        parts.append(f"call `{api.use}` instead, which torch_npu implements")
    if api.workaround:
        parts.append(api.workaround)
    if not parts:
        parts.append(_DEFAULT_WORKAROUND[api.cls])
    return "; or ".join(parts)


def _needed_keywords(apis) -> dict:
    """Last name -> keywords one of which a call must pass to reach any API of that name (`reduce`,
    `out`), or None when some API of that name is reached without a keyword."""
    needed: dict = {}
    for api in apis:
        last = api.name.rsplit(".", 1)[-1]
        words = {"out"} if api.out else set()
        if api.overloads:
            if not api.when or any(t.position is not None or t.by_default for t in api.when):
                words = None
            else:
                words |= {t.argument for t in api.when}
        if last in needed and needed[last] is None or words is None:
            needed[last] = None
        else:
            needed[last] = frozenset(needed.get(last, frozenset()) | words)
    return needed


class OperatorFallsBack(Check):
    node_types = (nodes.Call,)
    api_class = "cpu-fallback"
    quiet_on_cpu = True  # a call the author put on the CPU is deliberate

    def __init__(self, rule, settings):
        super().__init__(rule, settings)
        self.release = release_of(settings)
        data = operators_for(settings)
        self.table = {name: api for name, api in data.apis.items() if api.cls == self.api_class}
        self.names = last_parts(self.table)
        self.methods = tensor_methods(self.table)
        self.needed = _needed_keywords(self.table.values())

    def triggers(self) -> frozenset:
        return call_scan_words(self.table, self.table)

    def visit(self, node: nodes.Call, ctx: ModuleContext) -> None:
        needed = self.needed.get(last_name(node.func) or "")
        if needed is not None and not needed & {k.arg for k in node.keywords or ()}:
            return  # only reached with a keyword this call does not pass: no inference needed
        found = resolve_call(node, ctx, self.names, self.methods)
        if found is None or found[0] not in self.table:
            return
        api = self.table[found[0]]
        overloads, argument = reached(api, node)
        if not overloads or self.quiet_on_cpu and call_on_cpu(node, found[0].startswith(TENSOR)):
            return
        confidence = found[1]
        if api.via.startswith("forward: ") and confidence is Confidence.HIGH:
            confidence = Confidence.INFERENCE  # a path of forward, not every call of it
        # Reached only through an argument (`reduce=`, `out=`): the finding marks that argument.
        where = {"start": ctx.start(argument), "end": ctx.end(argument)} if argument is not None else {}
        report_once_per_statement(ctx, self, self.rule, node, found[0], confidence=confidence, **where,
                                  operator=operator_label(overloads), release=self.release,
                                  via=via_text(api.via), workaround=workaround_text(api))


class OperatorWithoutKernel(OperatorFallsBack):
    api_class = "no-kernel"
    quiet_on_cpu = False  # no CPU kernel either: the CPU is no way out


class OperatorMayFallBack(ApiListCall):
    """APIs Ascend's list says "may fall back to CPU" for, beyond what the kernel lists show."""

    def select(self, data):
        return (name for name, facts in data.ascend.items() if facts.falls_back == "may" and name not in data.apis)
