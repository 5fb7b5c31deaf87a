"""checks: api_unsupported_on_chip (NPU303) and the opt-in api_not_verified_on_npu (NPU930).

Both read what the generator merged from Ascend's per-API support lists into
data/operator_support.yaml: the chips marked ✘ per API, and the public torch names the list does
not mention ("not verified", which is not "unsupported").
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.checks.base import Check
from npu_lint.checks.operator_calls import (
    TENSOR, ApiListCall, call_on_cpu, chip_of, load_api_table, owned_by_other_rules, resolve_chain, scan_words
)
from npu_lint.knowledge.operator_data import CHIP_IDS_ORDER, chip_label


class ApiUnsupportedOnChip(Check):
    node_types = (nodes.Attribute, nodes.AssignAttr, nodes.Name)

    def __init__(self, rule, settings):
        super().__init__(rule, settings)
        chip = chip_of(settings)
        load_api_table(self, settings, lambda data: {
            name: facts for name, facts in data.ascend.items()
            if chip in facts.unsupported_on and not owned_by_other_rules(name)})

    def triggers(self) -> frozenset[str]:
        return scan_words(self.table)

    def visit(self, node, ctx: ModuleContext) -> None:
        found = resolve_chain(node, ctx, self.names, self.methods)
        if found is None or found[0] not in self.table:
            return
        facts = self.table[found[0]]
        others = [chip_label(c) for c in CHIP_IDS_ORDER if c not in facts.unsupported_on]
        target = node.parent if isinstance(node.parent, nodes.Call) and node.parent.func is node else node
        if target is not node and call_on_cpu(target, found[0].startswith(TENSOR)):
            return  # `device="cpu"`: the author keeps it off the NPU
        ctx.report(self.rule, target, confidence=found[1], api=found[0], chip=chip_label(self.chip),
                   list_version=self.list_version, release=self.release,
                   others=f"; the list marks it supported on {', '.join(others)}" if others else "")


class ApiNotVerified(ApiListCall):
    """Public torch names Ascend's list does not mention: not verified, which is not unsupported."""

    def select(self, data):
        return (name for name in data.unverified if not owned_by_other_rules(name))
