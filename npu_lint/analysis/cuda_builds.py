"""Code that builds CUDA code: at run time `torch.utils.cpp_extension.load(..., with_cuda=True)` or
with nvcc flags (`extra_cuda_cflags`), `load_inline(..., cuda_sources=...)`; at install time
`CUDAExtension` (NPU410)."""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.names import qualified_name

BUILDERS = frozenset({"torch.utils.cpp_extension.load", "torch.utils.cpp_extension.load_inline"})
CUDA_EXTENSION_CLASSES = frozenset({"torch.utils.cpp_extension.CUDAExtension"})


def cuda_build_keyword(call: nodes.Call) -> nodes.Keyword | None:
    """The keyword that makes this builder call compile CUDA, else None."""
    keyword = next((keyword for keyword in call.keywords or () if _builds_cuda(keyword)), None)
    if keyword is None or qualified_name(call.func) not in BUILDERS:
        return None
    return keyword


def _builds_cuda(keyword: nodes.Keyword) -> bool:
    """`with_cuda` defaults to whether the sources hold a .cu file, which a variable may hide:
    nvcc flags (`extra_cuda_cflags=[...]`, espnet's RWKV WKV kernel) say so too."""
    value = keyword.value
    if keyword.arg == "with_cuda":
        return isinstance(value, nodes.Const) and value.value is True
    if keyword.arg == "extra_cuda_cflags":
        empty = isinstance(value, nodes.Const) and value.value is None
        return not empty and not (isinstance(value, (nodes.List, nodes.Tuple)) and not value.elts)
    return keyword.arg == "cuda_sources"
