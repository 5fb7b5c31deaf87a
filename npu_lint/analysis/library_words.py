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
    return bool(spelled_libraries(identifier))


def spelled_libraries(identifier: str) -> frozenset[str]:
    """The libraries (top modules, `flash_attn`) whose words `identifier` has in a row."""
    words = identifier_words(identifier)
    by_first_word = _library_words()
    return frozenset("_".join(library) for start, word in enumerate(words) for library in by_first_word.get(word, ())
                     if words[start:start + len(library)] == library)


@functools.lru_cache(maxsize=1)
def _library_words() -> dict[str, tuple[tuple[str, ...], ...]]:
    """The listed top modules as words (`flash_attn` -> flash, attn), by their first word; dotted
    ones (`nvidia.dali`) only count by their qualified names."""
    modules = (*table().libraries, *table().without_npu_kernels, *table().rocm_only)
    by_first_word: dict[str, list[tuple[str, ...]]] = {}
    for module in modules:
        if "." not in module and module not in _TORCH_WORDS:
            words = tuple(module.lower().split("_"))
            by_first_word.setdefault(words[0], []).append(words)
    return {word: tuple(libraries) for word, libraries in by_first_word.items()}
