"""Modules the project wrote for AMD's GPUs, whose `torch.cuda` and "cuda" are ROCm's.

ROCm answers through torch.cuda, so code written for AMD's GPUs reads as CUDA code: `device="cuda"`,
`torch.cuda.current_stream()`. vLLM keeps a model's AMD implementation in a package of its own
beside the NVIDIA one (`models/minimax_m3/amd/` beside `models/minimax_m3/nvidia/`, imported only
`if current_platform.is_rocm()`), its ROCm attention backends and passes in modules named so
(`rocm_aiter_mla.py`, `rocm_aiter_fusion.py`), and their tests likewise (`test_rocm_aiter_topk.py`,
`tests/kernels/models/amd/`). That code runs on AMD's GPUs alone: "npu" there would break ROCm,
and what the NPU's port needs is said where the CUDA code is. So a module is AMD's when its file,
or a package of the package chain holding it (folders with __init__.py), is named with a `rocm`,
`hip` or `amd` word, or HIP's compiler (`hipcc`), or an AMD GPU's architecture name (`gfx950`:
SGLang's kernels), or for a library of AMD's that runs on ROCm alone (data/cuda_libraries.yaml's
`rocm_only`: `aiter`, AMD's AI Tensor Engine for ROCm, in xDiT's `quant/aiter_fp8_quantizer.py` and
SGLang's `aiter_backend.py`; `flydsl`, AMD's kernel DSL, in xDiT's `layers/fused_qk_rope_flydsl.py`
and SGLang's `kda_flydsl/`). `amd64` (a build's architecture) is no such word, and only the package
chain counts, as for the project's own NPU modules (npu_modules.py). `ModuleContext.report` drops
every finding there.
"""
from __future__ import annotations

import functools
import re

from npu_lint.analysis.module_names import module_named_for
from npu_lint.knowledge.library_advice import table

# Also HIP's compiler (SGLang's `jit/utils/hipcc.py`); AMD's libraries come from the data.
_AMD_WORDS = frozenset({"rocm", "hip", "amd", "hipcc"})
# An AMD GPU's instruction set (SGLang's `kda_fused_decode_gfx950.py`, `smallm_moe_gfx950/`,
# `fp8_gfx1250.py`, `gfx95_batched_gemm_...py`).
_AMD_ARCHITECTURE = re.compile(r"gfx\d+")


def written_for_amd(path: str) -> bool:
    """Is the module at `path` the project's code for AMD's GPUs, by its name or its packages' names?"""
    return module_named_for(path, _amd_words(), _AMD_ARCHITECTURE)


@functools.lru_cache(maxsize=1)
def _amd_words() -> frozenset[str]:
    """`rocm`, `hip`, `amd`, `hipcc`, and the ROCm-only libraries of data/cuda_libraries.yaml."""
    return _AMD_WORDS | frozenset(table().rocm_only)
