"""check: missing_torch_npu_import -- NPU device code in a module that never imports torch_npu.

`torch.npu`, `.npu()` and the "npu" device exist only once torch_npu has been
imported, so a module that uses a device (CUDA today, NPU after the fix) is
told to import it, once, at its last top-level torch import.
"""
from __future__ import annotations

import re

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.torch_npu_import import imports_torch_npu, last_torch_import
from npu_lint.checks.base import Check

_NPU_DEVICE = re.compile(r"^npu(:\d+)?$")


class MissingTorchNpuImport(Check):
    node_types = (nodes.Attribute, nodes.Const)

    def triggers(self) -> frozenset:
        return frozenset({"npu"})  # device findings of other rules come with their own triggers

    def string_triggers(self) -> frozenset[str]:
        return frozenset({"^npu"})

    def visit(self, node, ctx: ModuleContext) -> None:
        if isinstance(node, nodes.Attribute):
            if node.attrname == "npu":
                ctx.scratch[self] = True
        elif isinstance(node.value, str) and _NPU_DEVICE.match(node.value):
            ctx.scratch[self] = True

    def leave_module(self, ctx: ModuleContext) -> None:
        uses_npu = ctx.scratch.get(self, False)
        device_rules = {rule.code for rule in ctx.catalog if rule.device_use}
        uses_device = uses_npu or any(f.code in device_rules for f in ctx.findings)
        if not uses_device or imports_torch_npu(ctx.module):
            return
        stmt = last_torch_import(ctx.module)
        if stmt is None:
            return
        ctx.report(self.rule, stmt, edits=ctx.torch_npu_import_edits())
