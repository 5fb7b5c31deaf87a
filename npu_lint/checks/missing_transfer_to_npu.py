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

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.entry_module import entry_reason
from npu_lint.analysis.patched_program import cuda_uses, switches_patch_on
from npu_lint.analysis.torch_npu_import import first_torch_import, local_torch_import
from npu_lint.analysis.transfer import TRANSFER_IMPORT
from npu_lint.checks.base import Check


class MissingTransferToNpu(Check):
    node_types = ()  # judged once per module, in leave_module

    def triggers(self) -> frozenset:
        return frozenset({"cuda", "is_cuda"})

    def string_triggers(self) -> frozenset[str]:
        return frozenset({"^cuda", "^nccl"})

    def leave_module(self, ctx: ModuleContext) -> None:
        module = ctx.module
        if switches_patch_on(module, ctx.text):
            return
        if next(cuda_uses(module), None) is None or entry_reason(module) is None:
            return
        stmt = first_torch_import(module)
        if stmt is not None:
            # Where torch_npu would go: before anything that touches CUDA on import, or what that
            # bound (`from torch.cuda.amp import autocast`) keeps the unpatched CUDA object.
            ctx.report(self.rule, stmt, edits=ctx.device_import_edits(TRANSFER_IMPORT))
            return
        # torch imported only inside functions (diffq's hydra script imports it in `run(args)`):
        # the patch goes after the import that serves the first CUDA use, before that use runs.
        stmt = next(filter(None, map(local_torch_import, cuda_uses(module))), None)
        if stmt is not None:
            ctx.report(self.rule, stmt, edits=(ctx.insert_after(stmt, TRANSFER_IMPORT),))

