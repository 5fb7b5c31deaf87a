"""Code that builds CUDA code: at run time `torch.utils.cpp_extension.load(..., with_cuda=True)`, with
nvcc flags (`extra_cuda_cflags`) or with a `.cu` file among its sources, `load_inline(...,
cuda_sources=...)`; at install time `CUDAExtension` (NPU410)."""
from __future__ import annotations

import re

from astroid import nodes

from npu_lint.analysis.names import qualified_name

BUILDERS = frozenset({"torch.utils.cpp_extension.load", "torch.utils.cpp_extension.load_inline"})
CUDA_EXTENSION_CLASSES = frozenset({"torch.utils.cpp_extension.CUDAExtension"})
_LOAD = "torch.utils.cpp_extension.load"
_CUDA_SOURCE = re.compile(r"\.cu$")


def cuda_build_argument(call: nodes.Call) -> tuple[nodes.NodeNG, str] | None:
    """The argument that makes this builder call compile CUDA, and its name, else None."""
    keyword = next((keyword for keyword in call.keywords or () if _builds_cuda(keyword)), None)
    if keyword is None and not _cuda_sources_given(call):
        return None
    qname = qualified_name(call.func)
    if qname not in BUILDERS:
        return None
    if keyword is not None:
        return keyword, keyword.arg
    sources = _sources(call) if qname == _LOAD else None
    return (sources, "sources") if sources is not None and _names_cuda_source(sources) else None


def _cuda_sources_given(call: nodes.Call) -> bool:
    """`load(name, sources=[..., "kernel.cu"])`: `with_cuda` defaults to whether a source is a .cu
    file (basicsr's ops/dcn/deform_conv.py joins them into paths), unless it is set to False."""
    if any(keyword.arg == "with_cuda" for keyword in call.keywords or ()):
        return False
    sources = _sources(call)
    return sources is not None and _names_cuda_source(sources)


def _sources(call: nodes.Call) -> nodes.NodeNG | None:
    keyword = next((keyword for keyword in call.keywords or () if keyword.arg == "sources"), None)
    if keyword is not None:
        return keyword
    return call.args[1] if len(call.args) > 1 else None


def _names_cuda_source(sources: nodes.NodeNG) -> bool:
    """A string in the sources' expression that ends in `.cu` (a file, a joined path, a glob)."""
    return any(isinstance(node.value, str) and _CUDA_SOURCE.search(node.value)
               for node in sources.nodes_of_class(nodes.Const))


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
