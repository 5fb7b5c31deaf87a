"""check: library_takes_cuda_path -- libraries that branch on torch.cuda.is_available().

Under transfer_to_npu, `torch.cuda.is_available()` is True on an NPU host.
The patch keeps the real answer for the library functions listed in the
release's apis_config.json; any other library that checks it may take a
CUDA-only path.

Said once per program: in entry modules only (analysis.entry_module, as NPU190 decides), since
the patch and the libraries it leaves alone belong to the program that runs, not to each module
that imports them (mmdet's 300 modules that import mmengine said the same advice 300 times); once
per module there, naming every such library it imports; not for the project's own packages (fairseq
importing fairseq: its CUDA code is reported where it is written, the package holding the file
and the packages at its project root count), nor for a library whose NPU plugin the project is
(vllm-ascend declares `ascend = vllm_ascend:register` in `vllm.platform_plugins`: vLLM loads the
NPU's platform by itself); not on an import a CUDA-only-library rule (NPU4xx) already reports; not in an entry module that runs unpatched (no patch, no switch, no
CUDA use for NPU190 to add one for: a dataset converter that imports mmcv).
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.entry_module import entry_reason
from npu_lint.analysis.transfer import transfer_facts
from npu_lint.analysis.own_packages import is_own_package, npu_plugin_hosts
from npu_lint.analysis.patched_program import runs_patched
from npu_lint.checks.base import Check
from npu_lint.knowledge import release_data

LIBRARY_FAMILY = "NPU4"


class LibraryTakesCudaPath(Check):
    node_types = (nodes.Import, nodes.ImportFrom)

    def triggers(self) -> frozenset[str]:
        return frozenset(transfer_facts().cuda_path_libraries)

    def visit(self, node, ctx: ModuleContext) -> None:
        release = self.settings.release
        handled = release_data.facts(release).apis_config
        if isinstance(node, nodes.ImportFrom):
            names = [] if node.level else [node.modname]
        else:
            names = [name for name, _ in node.names]
        for name in names:
            top = name.split(".")[0]
            if top in transfer_facts().cuda_path_libraries and top not in handled:
                # a library importing itself is not a user of it; a library the project is the NPU
                # plugin of (vllm-ascend's `vllm.platform_plugins` entry) loads the NPU's code itself
                if not is_own_package(ctx, top) and top not in npu_plugin_hosts(ctx):
                    ctx.scratch.setdefault(self, []).append((node, top, release, handled))
                return

    def leave_module(self, ctx: ModuleContext) -> None:
        if not ctx.scratch.get(self) or entry_reason(ctx.module) is None:
            return  # a library module: the program that imports it is told
        if not runs_patched(ctx.module, ctx.text):
            return  # no patch, none to add (NPU190): its libraries see the real answer
        said = {f.start for f in ctx.findings if f.code.startswith(LIBRARY_FAMILY)}
        first: dict[str, nodes.NodeNG] = {}  # library -> its first import not said already
        for node, top, _release, _handled in ctx.scratch.get(self, ()):
            if top not in first and ctx.start(node) not in said:
                first[top] = node
        if not first:
            return
        # One cause, the patch: said once per module, naming every library it misleads
        # (mmpose's demos import mmcv and mmengine: one finding, not two).
        _node, _top, release, handled = ctx.scratch[self][0]
        nodes_in_order = sorted(first.items(), key=lambda item: (item[1].lineno, item[1].col_offset))
        at, others = nodes_in_order[0][1], nodes_in_order[1:]
        ctx.report(self.rule, at, libraries=", ".join(f"`{top}`" for top, _ in nodes_in_order), release=release,
                   handled=", ".join(sorted(handled)) or "none",
                   related=tuple(ctx.related(node, f"`{top}` is imported here") for top, node in others))

