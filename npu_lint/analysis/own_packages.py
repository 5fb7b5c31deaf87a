"""Is a module the linted project's own? A library importing itself is not a user of it.

bitsandbytes' optimizers import `bitsandbytes.functional`, DeepSpeed's engine imports
`deepspeed.ops.adam`: inside the library, its own names are its implementation, and what is CUDA
about it is reported where it is written (the kernels, the torch.cuda calls, the .cu sources).
The package holding the file and the packages at its project root count (config.project_scripts).
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.names import bindings
from npu_lint.config.project_scripts import own_packages


def is_own_package(ctx: ModuleContext, module: str) -> bool:
    """Is the top-level package of the dotted `module` one of the project's own?"""
    return module.split(".")[0] in project_packages(ctx)


def project_packages(ctx: ModuleContext) -> frozenset:
    """The project's own top-level packages, found once per module."""
    if "own_packages" not in ctx.scratch:
        ctx.scratch["own_packages"] = own_packages(ctx.module.file or "")
    return ctx.scratch["own_packages"]


def imported_from_own_module(ctx: ModuleContext, name: nodes.Name) -> bool:
    """Is `name` bound only by `from <the project's module> import name` (or a relative import)
    at the top of the module? super-gradients' `from super_gradients.common.environment.device_utils
    import device_config`: the project's own object, whose attributes (`device_config.is_cuda`, a
    property of its DeviceConfig) are the project's, written and ported where it defines them."""
    found = bindings(name)
    return bool(found) and all(
        isinstance(binding, nodes.ImportFrom) and binding.scope() is binding.root()
        and (bool(binding.level) or is_own_package(ctx, binding.modname))
        for binding in found)
