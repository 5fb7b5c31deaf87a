"""Names that spell a CUDA-only library: `convert_to_cupy`, `ToCupy`, `has_cucim`, and the project's
own modules named for one (`from .triton_ops import dtw_kernel`, openai-whisper's timing.py). The
libraries are the top modules of data/cuda_libraries.yaml (`libraries`, `without_npu_kernels`,
`rocm_only`),
but for a name torch uses for its own backend: `cudnn` (NVIDIA's cuDNN frontend) is also
`torch.backends.cudnn`, which runs anywhere (a setting the NPU ignores, NPU130)."""
from __future__ import annotations

import functools

from npu_lint.analysis.names import identifier_words
from npu_lint.knowledge.library_advice import table

_TORCH_WORDS = frozenset({"cudnn"})  # torch.backends.cudnn, torch.cudnn_convolution


def spells_library(identifier: str) -> bool:
    """An identifier or dotted module name with a library's words in a row."""
    words = identifier_words(identifier)
    return any(_contains(words, library) for library in _library_words())


@functools.lru_cache(maxsize=1)
def _library_words() -> tuple[tuple[str, ...], ...]:
    """The listed top modules as words (`flash_attn` -> flash, attn); dotted ones (`nvidia.dali`)
    only count by their qualified names."""
    modules = (*table().libraries, *table().without_npu_kernels, *table().rocm_only)
    return tuple(tuple(module.lower().split("_")) for module in modules
                 if "." not in module and module not in _TORCH_WORDS)


def _contains(words: tuple[str, ...], part: tuple[str, ...]) -> bool:
    return any(words[start:start + len(part)] == part for start in range(len(words) - len(part) + 1))
