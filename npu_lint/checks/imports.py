"""kind: import -- importing a CUDA-only library (apex, flash_attn, ...)."""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.library_uses import library_uses
from npu_lint.checks.base import Check


class ImportCheck(Check):
    node_types = (nodes.Import, nodes.ImportFrom)

    def __init__(self, rule, settings):
        super().__init__(rule, settings)
        self.modules = tuple(rule.match["modules"])
        # module or module.name -> what to use instead; the longest match wins
        self.suggestions = dict(rule.match.get("suggestions", {}))
        self.runs_on_npu = tuple(rule.match.get("runs_on_npu", ()))

    def triggers(self) -> frozenset[str]:
        return frozenset(tuple(module.split(".")) if "." in module else module for module in self.modules)

    def _matched(self, name: str) -> str | None:
        for module in self.modules:
            if name == module or name.startswith(module + "."):
                return module
        return None

    def _runs_on_npu(self, name: str) -> bool:
        return any(name == part or name.startswith(part + ".") for part in self.runs_on_npu)

    def _suggestion(self, names: list[str]) -> str:
        best = ""
        for name in names:
            parts = name.split(".")
            for end in range(len(parts), 0, -1):
                key = ".".join(parts[:end])
                if key in self.suggestions and len(key) > len(best):
                    best = key
                    break
        return f"; {self.suggestions[best]}" if best else ""

    def visit(self, node, ctx: ModuleContext) -> None:
        if isinstance(node, nodes.ImportFrom):
            if node.level:
                return
            names = [node.modname]
            imported = [f"{node.modname}.{name}" for name, _ in node.names]
        else:
            names = imported = [name for name, _alias in node.names]
        if imported and all(self._runs_on_npu(name) for name in imported):
            return  # `from deepspeed.ops.adam import DeepSpeedCPUAdam`: built for the NPU too
        for name in names:
            module = self._matched(name)
            if module:
                ctx.report(self.rule, node, module=module, suggestion=self._suggestion(imported),
                           related=self._uses(node, ctx))
                return

    def _uses(self, node, ctx: ModuleContext) -> tuple:
        """The places that use what this import binds, shown with the import's finding."""
        return tuple(
            ctx.related(use.node, f"`{use.qname}` is used here ({use.role})")
            for use in library_uses(ctx, self.modules)
            if use.binding is node
        )
