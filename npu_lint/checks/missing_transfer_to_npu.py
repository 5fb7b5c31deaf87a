"""check: missing_transfer_to_npu -- an entry-point script on the auto route without the patch.

`from torch_npu.contrib import transfer_to_npu` must run once, in the script
that starts the job, before CUDA code runs. Library modules are not told:
only entry modules (analysis.entry_module: main guard, `__main__.py`, console scripts). A script
that imports torch only inside functions gets it after the import that serves its first CUDA use.

A CUDA use counts unless it is a test that keeps CUDA-only code off other devices: mmdet3d's and
mmagic's setup.py only ask `if torch.cuda.is_available() or os.getenv('FORCE_CUDA', '0') == '1':`
before `extension = CUDAExtension`. The patch would make that test True on the NPU host and the
build compile CUDA sources there; without it the build takes its C++-only side.
"""
from __future__ import annotations

from typing import Iterator

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.cuda_library_guards import guards_cuda_library
from npu_lint.analysis.entry_module import entry_reason
from npu_lint.analysis.torch_npu_import import first_torch_import, local_torch_import
from npu_lint.analysis.transfer import TRANSFER_IMPORT
from npu_lint.checks.base import Check

ENVIRONMENT_SWITCH = "TORCH_TRANSFER_TO_NPU"


def imports_transfer_to_npu(module: nodes.Module) -> bool:
    for stmt in module.nodes_of_class((nodes.Import, nodes.ImportFrom)):
        if isinstance(stmt, nodes.ImportFrom) and stmt.modname == "torch_npu.contrib" and any(
            name == "transfer_to_npu" for name, _ in stmt.names
        ):
            return True
        if isinstance(stmt, nodes.ImportFrom) and stmt.modname == "torch_npu.contrib.transfer_to_npu":
            return True
        if isinstance(stmt, nodes.Import) and any(name == "torch_npu.contrib.transfer_to_npu" for name, _ in stmt.names):
            return True
    return False


class MissingTransferToNpu(Check):
    node_types = ()  # judged once per module, in leave_module

    def triggers(self) -> frozenset:
        return frozenset({"cuda", "is_cuda"})

    def string_triggers(self) -> frozenset[str]:
        return frozenset({"^cuda", "^nccl"})

    def leave_module(self, ctx: ModuleContext) -> None:
        module = ctx.module
        if ENVIRONMENT_SWITCH in ctx.text or imports_transfer_to_npu(module):
            return
        if next(_cuda_uses(module), None) is None or entry_reason(module) is None:
            return
        stmt = first_torch_import(module)
        if stmt is not None:
            # Where torch_npu would go: before anything that touches CUDA on import, or what that
            # bound (`from torch.cuda.amp import autocast`) keeps the unpatched CUDA object.
            ctx.report(self.rule, stmt, edits=ctx.device_import_edits(TRANSFER_IMPORT))
            return
        # torch imported only inside functions (diffq's hydra script imports it in `run(args)`):
        # the patch goes after the import that serves the first CUDA use, before that use runs.
        stmt = next(filter(None, map(local_torch_import, _cuda_uses(module))), None)
        if stmt is not None:
            ctx.report(self.rule, stmt, edits=(ctx.insert_after(stmt, TRANSFER_IMPORT),))


def _cuda_uses(module: nodes.Module) -> Iterator[nodes.NodeNG]:
    """The module's uses of CUDA, in order (a `.cuda`/`.is_cuda` attribute, a "cuda..."/"nccl"
    string), but not a test guarding a CUDA-only library."""
    for node in module.nodes_of_class((nodes.Attribute, nodes.Const)):
        if isinstance(node, nodes.Attribute) and node.attrname in ("cuda", "is_cuda"):
            if not guards_cuda_library(_chain_top(node)):
                yield node
        elif isinstance(node, nodes.Const) and isinstance(node.value, str) and node.value.startswith(("cuda", "nccl")):
            if not guards_cuda_library(node):
                yield node


def _chain_top(node: nodes.Attribute) -> nodes.NodeNG:
    """`torch.cuda.is_available` for its `torch.cuda`: the name a test asks."""
    while isinstance(node.parent, nodes.Attribute) and node.parent.expr is node:
        node = node.parent
    return node
