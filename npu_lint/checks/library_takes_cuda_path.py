"""check: library_takes_cuda_path -- libraries that branch on torch.cuda.is_available().

Under transfer_to_npu, `torch.cuda.is_available()` is True on an NPU host.
The patch keeps the real answer for the library functions listed in the
release's apis_config.json; any other library that checks it may take a
CUDA-only path.
"""
from __future__ import annotations

import os

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.transfer import transfer_facts
from npu_lint.checks.base import Check
from npu_lint.knowledge import release_data


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
        reported = ctx.scratch.setdefault(self, set())
        for name in names:
            top = name.split(".")[0]
            if top in reported or top == own_package(ctx.module.file):
                continue  # said once per module; a library importing itself is not a user of it
            if top in transfer_facts().cuda_path_libraries and top not in handled:
                reported.add(top)
                ctx.report(self.rule, node, library=top, release=release,
                           handled=", ".join(sorted(handled)) or "none")
                return


def own_package(path: str | None) -> str | None:
    """The top-level package a file belongs to (folders with __init__.py above it), if any."""
    if not path or not os.path.isabs(path):
        return None
    folder, top = os.path.dirname(path), None
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        top = os.path.basename(folder)
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return top
