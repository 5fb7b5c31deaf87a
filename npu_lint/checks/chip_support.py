"""checks: api_unsupported_on_chip (NPU303) and the opt-in api_not_verified_on_npu (NPU930).

Both read what the generator merged from Ascend's per-API support lists into
data/operator_support.yaml: the chips marked ✘ per API, and the public torch names the list does
not mention ("not verified", which is not "unsupported").

NPU303 reports a function or class where it may run: a call, a decorator, a base class, a value
handed on (`register_forward_hook(F.avg_pool3d)`, `{"rnn": nn.RNN}`). Naming it only to test
for it, as a key, or to patch it (`F.avg_pool3d = wrap(F.avg_pool3d)`, and every other
reference of a module that patches it) runs nothing. A setting (`torch.backends.opt_einsum.enabled`)
is reported wherever it is read or set.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.call_owners import give_way, report_once_per_statement
from npu_lint.analysis.cpu_device import made_on_cpu
from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.names import chain_parts, names_without_running, qualified_name
from npu_lint.checks.base import Check
from npu_lint.checks.operator_calls import (
    TENSOR, ApiListCall, call_on_cpu, chip_of, first_tensor, load_api_table, normalize_api, owned_by_other_rules,
    resolve_chain, scan_words
)
from npu_lint.knowledge.library_advice import table as library_table
from npu_lint.knowledge.operator_data import CHIP_IDS_ORDER, chip_label
from npu_lint.knowledge.torch_model import data as torch_api

_PATCHED = "api-unsupported-on-chip:patched"


class ApiUnsupportedOnChip(Check):
    node_types = (nodes.Attribute, nodes.AssignAttr, nodes.Name)

    def __init__(self, rule, settings):
        super().__init__(rule, settings)
        chip = chip_of(settings)
        load_api_table(self, settings, lambda data: {
            name: facts for name, facts in data.ascend.items()
            if chip in facts.unsupported_on and not owned_by_other_rules(name)})

    def triggers(self) -> frozenset:
        # A Tensor method runs where it is called on a value, or where `Tensor.x` is handed on:
        # `self.mode` or `args.mode` alone lets no file in (ultralytics and timm read such
        # attributes in dozens of files that never use torch's `mode`).
        methods = {name for name in self.table if name.startswith(TENSOR) and not _is_setting(name)}
        triggers = set(scan_words(set(self.table) - methods))
        for name in methods:
            method = name[len(TENSOR):]
            triggers.update({"(" + method, ("Tensor", "." + method)})
        return frozenset(triggers)

    def visit(self, node, ctx: ModuleContext) -> None:
        found = resolve_chain(node, ctx, self.names, self.methods)
        if found is None or found[0] not in self.table:
            return
        facts = self.table[found[0]]
        others = [chip_label(c) for c in CHIP_IDS_ORDER if c not in facts.unsupported_on]
        target = node.parent if isinstance(node.parent, nodes.Call) and node.parent.func is node else node
        method = found[0].startswith(TENSOR)
        if target is not node and call_on_cpu(target, method):
            return  # `device="cpu"`: the author keeps it off the NPU
        if target is not node and made_on_cpu(first_tensor(target, method), ctx.text):
            return  # `torch.zeros([18], dtype=torch.uint8).share_memory_()`: made on the host, it stays there
        if target is node and not _is_setting(found[0]) and not _may_run(node, found[0], ctx):
            return
        if _handed_to_cuda_only_library(target):
            return  # `cudf.from_dlpack(to_dlpack(x))`: NPU403 reports the call, which goes with its arguments
        report_once_per_statement(ctx, self, self.rule, target, found[0], confidence=found[1],
                                  chip=chip_label(self.chip), list_version=self.list_version, release=self.release,
                                  others=f"; the list marks it supported on {', '.join(others)}" if others else "")

    def leave_module(self, ctx: ModuleContext) -> None:
        give_way(ctx, self.rule.code)  # NPU301/NPU302 say what the call does on the NPU


def _handed_to_cuda_only_library(node: nodes.NodeNG) -> bool:
    """Is `node` an argument of a call into a CUDA-only library (torch_geometric's
    `cudf.from_dlpack(to_dlpack(edge_index))`)? Porting replaces that call, arguments and all."""
    while isinstance(node.parent, (nodes.List, nodes.Tuple, nodes.Keyword, nodes.Starred)):
        node = node.parent
    call = node.parent
    if not isinstance(call, nodes.Call) or call.func is node:
        return False
    qname = qualified_name(call.func)
    return qname is not None and library_table().library_of(qname) is not None


def _may_run(node, api: str, ctx: ModuleContext) -> bool:
    """A reference that is not a call may still run the API later (a decorator, a value handed on),
    unless it only names it or belongs to a patch of it."""
    if isinstance(node, (nodes.AssignAttr, nodes.DelAttr)) or names_without_running(node):
        return False
    return api not in _patched_apis(ctx)


def _patched_apis(ctx: ModuleContext) -> frozenset:
    """APIs this module assigns to (`F.avg_pool3d = wrap(F.avg_pool3d)`): a profiler or a shim
    that wraps them; its other references (`_old = F.avg_pool3d`) are that patch's bookkeeping."""
    if _PATCHED not in ctx.scratch:
        ctx.scratch[_PATCHED] = frozenset(
            normalize_api(parts[0][1]) for target in ctx.module.nodes_of_class(nodes.AssignAttr)
            for parts in (chain_parts(target),) if parts)
    return ctx.scratch[_PATCHED]


def _is_setting(api: str) -> bool:
    """A value, not a function or class (`torch.backends.opt_einsum.enabled`): reading or setting it
    is the use."""
    owner, _, name = api.rpartition(".")
    record = torch_api.module_record(owner)
    if record is not None:
        return name in torch_api.names(record, "val") or name in record.get("ins", {})
    record = torch_api.class_record(owner)
    if record is not None:
        return any(name in torch_api.names(record, key) for key in ("v", "pT", "pO")) or \
            name in record.get("ins", {}) or name in record.get("lit", {})
    return False


# Tensor methods that take a host tensor only and run no NPU operator: `pin_memory()` raises for a
# device tensor and pins host memory for the copy to the NPU (torch_npu's host allocator), the
# step NPU601 advises. Ascend's operator list has no reason to name them.
_HOST_ONLY = frozenset({"torch.Tensor.pin_memory"})


class ApiNotVerified(ApiListCall):
    """Public torch names Ascend's list does not mention: not verified, which is not unsupported.
    Not the methods that only work on host memory (`_HOST_ONLY`)."""

    def select(self, data):
        return (name for name in data.unverified if not owned_by_other_rules(name) and name not in _HOST_ONLY)
