"""check: missing_torch_npu_import -- a program that uses a device and never imports torch_npu.

Said once per program, at its entry modules (`if __name__ == "__main__":`, `__main__.py`, console
script targets of the project): a library module is imported by one of them, and the fixes of its
own device findings bring `import torch_npu` along. The wording follows the target: from torch_npu
2.5.1 on (torch 2.5+, the wheel's `torch.backends` entry point) `import torch` loads torch_npu by
itself, so the finding is information, unless the program turns that loading off. A program that
imports a package of its own project which imports torch_npu (ColossalAI's colossalai.accelerator)
has it already (analysis/project_torch_npu.py). The "npu" that `hasattr(torch, "npu")` asks
about is no device use.
"""
from __future__ import annotations

import re

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.entry_module import entry_reason
from npu_lint.analysis.project_torch_npu import loads_torch_npu_through_project
from npu_lint.analysis.torch_npu_import import first_torch_import, imports_torch_npu
from npu_lint.checks.base import Check
from npu_lint.core.findings import Severity
from npu_lint.knowledge import release_data

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
        elif isinstance(node.value, str) and _NPU_DEVICE.match(node.value) and not _probed_attribute(node):
            ctx.scratch[self] = True

    def leave_module(self, ctx: ModuleContext) -> None:
        uses_npu = ctx.scratch.get(self, False)
        device_rules = {rule.code for rule in ctx.catalog if rule.device_use}
        uses_device = uses_npu or any(f.code in device_rules for f in ctx.findings)
        if not uses_device or imports_torch_npu(ctx.module) or entry_reason(ctx.module) is None:
            return
        stmt = first_torch_import(ctx.module)
        if stmt is None or loads_torch_npu_through_project(ctx.module):
            return
        target = release_data.facts(self.settings.release)
        consequence, severity = _consequence(target, turns_autoload_off(ctx))
        ctx.report(self.rule, stmt, edits=ctx.torch_npu_import_edits(), severity=severity,
                   consequence=consequence)


def _consequence(target: release_data.ReleaseFacts, autoload_off: bool) -> tuple[str, Severity | None]:
    where = f"torch_npu {target.release} (torch {target.torch_version})"
    if not target.torch_loads_torch_npu:
        return f"on {where} `torch.npu` exists only after `import torch_npu`", None
    if autoload_off:
        return (f"on {where} `import torch` would load torch_npu, but this program sets "
                f"{release_data.AUTOLOAD_SWITCH}, which turns that off"), None
    return (f"on {where} `import torch` loads it by itself unless {release_data.AUTOLOAD_SWITCH}=0, "
            f"so the explicit import is Ascend's documented step rather than a must"), Severity.INFO


def turns_autoload_off(ctx: ModuleContext) -> bool:
    """`os.environ["TORCH_DEVICE_BACKEND_AUTOLOAD"] = "0"`, `os.environ.setdefault(..., "0")`,
    `os.putenv(..., "0")`: any value but "1" turns torch's backend loading off."""
    for node in ctx.nodes_of((nodes.Assign, nodes.Call)):
        if isinstance(node, nodes.Assign):
            for target in node.targets:
                if isinstance(target, nodes.Subscript) and _is_switch(target.slice):
                    return not _is_one(node.value)
        elif len(node.args) >= 2 and _is_switch(node.args[0]) and isinstance(node.func, nodes.Attribute) \
                and node.func.attrname in ("setdefault", "putenv", "__setitem__"):
            return not _is_one(node.args[1])
    return False


def _is_switch(node: nodes.NodeNG) -> bool:
    return isinstance(node, nodes.Const) and node.value == release_data.AUTOLOAD_SWITCH


def _is_one(node: nodes.NodeNG) -> bool:
    return isinstance(node, nodes.Const) and node.value in ("1", 1)


def _probed_attribute(node: nodes.Const) -> bool:
    """`hasattr(torch, "npu")`, `getattr(torch, "npu", None)`: the name of an attribute the program
    asks for, no device it uses (vllm-ascend's unit tests stand in a `torch.npu` when torch has
    none). `getattr(torch, "npu")` without a default reaches torch.npu, so it is a use."""
    call = node.parent
    if not isinstance(call, nodes.Call) or not isinstance(call.func, nodes.Name) or len(call.args) < 2 \
            or call.args[1] is not node:
        return False
    return call.func.name == "hasattr" or (call.func.name == "getattr" and len(call.args) == 3)

