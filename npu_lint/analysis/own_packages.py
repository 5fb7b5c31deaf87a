"""Is a module the linted project's own? A library importing itself is not a user of it.

bitsandbytes' optimizers import `bitsandbytes.functional`, DeepSpeed's engine imports
`deepspeed.ops.adam`: inside the library, its own names are its implementation, and what is CUDA
about it is reported where it is written (the kernels, the torch.cuda calls, the .cu sources).
The package holding the file and the packages at its project root count (config.project_scripts).
"""
from __future__ import annotations

from npu_lint.analysis.context import ModuleContext
from npu_lint.config.project_scripts import own_packages


def is_own_package(ctx: ModuleContext, module: str) -> bool:
    """Is the top-level package of the dotted `module` one of the project's own?"""
    return module.split(".")[0] in project_packages(ctx)


def project_packages(ctx: ModuleContext) -> frozenset:
    """The project's own top-level packages, found once per module."""
    if "own_packages" not in ctx.scratch:
        ctx.scratch["own_packages"] = own_packages(ctx.module.file or "")
    return ctx.scratch["own_packages"]
