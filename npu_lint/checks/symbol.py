"""kind: symbol -- a qualified name (or prefix) such as torch.distributed.Backend.NCCL."""
from __future__ import annotations

from astroid import nodes

from .. import edits
from ..context import ModuleContext
from ..names import ATTRIBUTE_NODES, chain_parts, is_chain_top
from .base import Check


class SymbolCheck(Check):
    node_types = (*ATTRIBUTE_NODES, nodes.Name)

    def __init__(self, rule, settings):
        super().__init__(rule, settings)
        self.symbols = frozenset(rule.match.get("symbols", ()))
        self.prefixes = tuple(rule.match.get("prefixes", ()))
        self.replace_last = rule.match.get("replace_last")
        self.suggestion = rule.match.get("suggestion", "")

    def triggers(self) -> frozenset[str]:
        return frozenset(name.rsplit(".", 1)[-1] for name in (*self.symbols, *self.prefixes))

    def matches(self, qname: str) -> bool:
        return qname in self.symbols or any(
            qname == prefix or qname.startswith(prefix + ".") for prefix in self.prefixes
        )

    def visit(self, node, ctx: ModuleContext) -> None:
        if not is_chain_top(node):
            return
        # One finding per chain, at its longest matching part: a prefix rule
        # flags all of `torch.backends.cudnn.benchmark`, a symbol rule flags
        # `dist.Backend.NCCL` inside `dist.Backend.NCCL.value`.
        for node, qname in chain_parts(node):
            if self.matches(qname):
                break
        else:
            return
        found = [] if self.replace_last is None else [self._rename_edit(node, ctx)]
        replacement = qname.rsplit(".", 1)[0] + "." + self.replace_last if self.replace_last else ""
        ctx.report(
            self.rule, node, edits=tuple(e for e in found if e),
            qname=qname, replacement=replacement, suggestion=self.suggestion,
        )

    def _rename_edit(self, node, ctx: ModuleContext):
        if isinstance(node, ATTRIBUTE_NODES):
            return edits.attribute_name_edit(ctx, node, self.replace_last)
        return None  # a from-imported name: renaming it means editing the import too
