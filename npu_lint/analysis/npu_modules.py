"""Modules the project wrote for the NPU, and the libraries they use through Ascend's own build.

Liger-Kernel keeps its Ascend kernels in `ops/backends/_ascend/` (registered for the "npu" device
only): Triton kernels written for triton-ascend, Ascend's Triton backend, which installs as the
`triton` module. There `import triton` and `@triton.jit` are the NPU port itself, not CUDA code
left to port. A module is the project's NPU code when its file, or a package of the package chain
holding it, is named with an `npu` or `ascend` word (`_ascend/`, `npu_kernels.py`); only the
package chain counts, so a checkout under a folder such as `npu-lint/` does not. Only libraries
with an Ascend build (`npu_builds` of data/cuda_libraries.yaml) are excused there: a `torch.cuda`
call in NPU code is still wrong on the NPU.
"""
from __future__ import annotations

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.module_names import module_named_for
from npu_lint.knowledge.library_advice import table

_NPU_WORDS = frozenset({"npu", "ascend"})


def uses_npu_build(ctx: ModuleContext, name: str) -> bool:
    """Does this module use the library of the dotted `name` (`triton`, `triton.jit`) through
    Ascend's build of that library?"""
    libraries = table()
    return libraries.library_of(name) in libraries.npu_builds and written_for_npu(ctx)


def written_for_npu(ctx: ModuleContext) -> bool:
    """Is the module part of the project's NPU code, by its name or its packages' names?"""
    return module_named_for(ctx.module.file or "", _NPU_WORDS)
