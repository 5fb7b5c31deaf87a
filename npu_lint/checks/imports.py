"""kind: import -- importing a CUDA-only library (apex, flash_attn, ...)."""
from __future__ import annotations

from astroid import nodes

from ..context import ModuleContext
from .base import Check


class ImportCheck(Check):
    node_types = (nodes.Import, nodes.ImportFrom)

    def __init__(self, rule, settings):
        super().__init__(rule, settings)
        self.modules = tuple(rule.match["modules"])
        self.suggestion = rule.match.get("suggestion", "")

    def triggers(self) -> frozenset[str]:
        return frozenset(module.split(".")[0] for module in self.modules)

    def _matched(self, name: str) -> str | None:
        for module in self.modules:
            if name == module or name.startswith(module + "."):
                return module
        return None

    def visit(self, node, ctx: ModuleContext) -> None:
        if isinstance(node, nodes.ImportFrom):
            names = [node.modname] if not node.level else []
        else:
            names = [name for name, _alias in node.names]
        for name in names:
            module = self._matched(name)
            if module:
                ctx.report(self.rule, node, module=module, suggestion=self.suggestion)
                return
