"""Code that builds CUDA code: at run time `torch.utils.cpp_extension.load(..., with_cuda=True)`, with
nvcc flags (`extra_cuda_cflags`) or with a `.cu` file among its sources, `load_inline(...,
cuda_sources=...)`; at install time `CUDAExtension` (NPU410). Also the names a module binds to such a
run-time build, or by import to a CUDA extension its project's setup.py builds
(config/cuda_extensions.py: basicsr's `from . import upfirdn2d_ext`), which hold its CUDA kernels, and the
project modules that build CUDA code at run time when they are imported (cogdl's operators/spmm.py),
and the `torch.ops` calls of a module that builds its CUDA code into torch's op registry (rwkv)."""
from __future__ import annotations

import ast
import os
import re

from astroid import nodes

from npu_lint.analysis.module_facts import facts_of
from npu_lint.analysis.names import assigned_values, qualified_name
from npu_lint.analysis.project_torch_npu import imports_in_text, project_files_of
from npu_lint.config.cuda_extensions import cuda_extensions
from npu_lint.config.project_scripts import project_root
from npu_lint.core.file_facts import FileFacts
from npu_lint.core.python_ast import dotted_name, parse_file

BUILDERS = frozenset({"torch.utils.cpp_extension.load", "torch.utils.cpp_extension.load_inline"})
CUDA_EXTENSION_CLASSES = frozenset({"torch.utils.cpp_extension.CUDAExtension"})
# Where torch found the CUDA toolkit (None without one): code that reads it is about compiling CUDA
CUDA_TOOLKIT_HOME = "torch.utils.cpp_extension.CUDA_HOME"
_LOAD = "torch.utils.cpp_extension.load"
_CUDA_SOURCE = re.compile(r"\.cu$")
_BUILT_NAMES = "_npu_lint_cuda_built_names"
_PREBUILT_NAMES = "_npu_lint_prebuilt_cuda_names"
_SHORTEST_NAME = 4
_OP_LIBRARY = "_npu_lint_cuda_op_library"
# torch's own op namespaces and its domain libraries': no run-time build of the module registers them
_TORCH_OP_NAMESPACES = frozenset({"aten", "prims", "quantized", "_quantized", "npu", "higher_order", "profiler",
                                  "c10d", "_c10d_functional", "c10d_functional", "_dtensor", "inductor", "mkldnn",
                                  "onednn", "torchvision", "image", "torchaudio"})
_CPP_EXTENSION = "torch.utils.cpp_extension"
_BUILDER_NAMES = ("load", "load_inline")
MAX_CACHED = 2048


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


def _names_cuda_source(sources: nodes.NodeNG, follow: bool = True) -> bool:
    """A string in the sources' expression that ends in `.cu` (a file, a joined path, a glob), also
    in what a name among them is assigned (transformers' YOSO: `src_files = append_root([...".cu"])`)."""
    if any(isinstance(node.value, str) and _CUDA_SOURCE.search(node.value)
           for node in sources.nodes_of_class(nodes.Const)):
        return True
    return follow and any(_names_cuda_source(value, follow=False)
                          for name in sources.nodes_of_class(nodes.Name) for value in assigned_values(name))


def builds_cuda_sources(call: nodes.Call) -> bool:
    """`LazyCudaExtension(name="moe_chunk_reorder", sources=("moe_chunk_reorder.cpp",
    "moe_chunk_reorder_kernel.cu"))` (OLMo-core's kernels): a project's own build helper, whatever
    its name, handed `.cu` files as its `sources` builds them with nvcc."""
    return any(keyword.arg == "sources" and _names_cuda_source(keyword.value, follow=False)
               for keyword in call.keywords or ())




def built_module_names(module: nodes.Module) -> frozenset[str]:
    """The module names of the CUDA builds this module makes at run time: `load("fast_lsh_cumulation",
    [..."fast_lsh_cumulation.cu"])` builds a module that `import fast_lsh_cumulation` then binds
    (transformers' YOSO and MRA). Computed once; only modules that import torch.utils look."""
    names = getattr(module, _BUILT_NAMES, None)
    if names is None:
        names = frozenset()
        if any(imported.startswith("torch.utils") for imported in facts_of(module).imported):
            names = frozenset(filter(None, (_built_name(call) for call in module.nodes_of_class(nodes.Call))))
        setattr(module, _BUILT_NAMES, names)
    return names


def op_of_own_build(attribute: nodes.Attribute) -> bool:
    """Is `attribute` `torch.ops.<namespace>.<op>` in a module that builds CUDA code at run time into
    torch's op registry (`load(..., sources=[..."operators.cu"], is_python_module=False)`: rwkv 0.8's
    model.py, which then calls `torch.ops.rwkv.gemm_fp16_cublas`)? The namespace is the C++
    source's (`TORCH_LIBRARY(rwkv, m)`), which Python does not show, so any namespace counts but
    torch's own and its domain libraries' (`aten`, `torchvision`, `image`), which run elsewhere too."""
    namespace = attribute.expr
    return isinstance(namespace, nodes.Attribute) and namespace.attrname not in _TORCH_OP_NAMESPACES \
        and isinstance(namespace.expr, nodes.Attribute) and namespace.expr.attrname == "ops" \
        and _loads_op_library(attribute.root()) and qualified_name(namespace.expr) == "torch.ops"


def _loads_op_library(module: nodes.Module) -> bool:
    """Does the module build CUDA code with `load(..., is_python_module=False)`? Computed once; only
    modules that import torch.utils look."""
    found = getattr(module, _OP_LIBRARY, None)
    if found is None:
        found = any(imported.startswith("torch.utils") for imported in facts_of(module).imported) and any(
            _builder_name(call) and any(keyword.arg == "is_python_module" and isinstance(keyword.value, nodes.Const)
                                        and keyword.value.value is False for keyword in call.keywords or ())
            and cuda_build_argument(call) is not None
            for call in module.nodes_of_class(nodes.Call))
        setattr(module, _OP_LIBRARY, found)
    return found


def _builder_name(call: nodes.Call) -> bool:
    func = call.func
    return (func.name if isinstance(func, nodes.Name) else getattr(func, "attrname", None)) in _BUILDER_NAMES


def imports_cuda_build(statement: nodes.Import, bound: str) -> bool:
    """Does `statement` bind `bound` to one of its module's run-time CUDA builds (`import
    fast_lsh_cumulation as lsh_cumulation` after `load("fast_lsh_cumulation", [...".cu"])`)?"""
    built = built_module_names(statement.root())
    return any((alias or name) == bound and name in built for name, alias in statement.names)


def _built_name(call: nodes.Call) -> str | None:
    func = call.func
    if (func.name if isinstance(func, nodes.Name) else getattr(func, "attrname", None)) not in ("load", "load_inline"):
        return None  # most calls: no qualified name asked for
    name = next((keyword.value for keyword in call.keywords or () if keyword.arg == "name"), None)
    name = name if name is not None else (call.args[0] if call.args else None)
    if not (isinstance(name, nodes.Const) and isinstance(name.value, str)):
        return None
    return name.value if cuda_build_argument(call) is not None else None


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


def prebuilt_extension_names(module: nodes.Module) -> frozenset[str]:
    """The names `module` binds by import to a CUDA extension its project's setup.py builds:
    `from . import upfirdn2d_ext` beside `make_cuda_ext(name="upfirdn2d_ext",
    module="basicsr.ops.upfirdn2d", ...)`. Computed once; only modules of a project whose
    setup.py builds one look at their imports."""
    names = getattr(module, _PREBUILT_NAMES, None)
    if names is None:
        names = frozenset()
        extensions, package = _project_extensions(module)
        if extensions:
            names = frozenset(name for name, assignments in module.locals.items() for assignment in assignments
                              if isinstance(assignment, (nodes.Import, nodes.ImportFrom))
                              and not extensions.isdisjoint(_imported_modules(assignment, name, package)))
        setattr(module, _PREBUILT_NAMES, names)
    return names


def extension_short_names(module: nodes.Module) -> frozenset[str]:
    """The last dotted part of each CUDA extension `module`'s project builds (`cuaev` for torchani's
    `torchani.cuaev`), long enough to be a name rather than a word part (`_C` is not one)."""
    extensions, _package = _project_extensions(module)
    return frozenset(tail for tail in (name.rsplit(".", 1)[-1] for name in extensions) if len(tail) >= _SHORTEST_NAME)


def _project_extensions(module: nodes.Module) -> tuple[frozenset[str], tuple[str, ...]]:
    """(the dotted names of the extensions, with each tail too: a src/ layout puts folders in front;
    the dotted parts of the module's package from the project root)."""
    path = getattr(module, "file", None)
    if not path or not os.path.isfile(path):
        return frozenset(), ()
    folder = os.path.dirname(os.path.abspath(path))
    root = project_root(folder)
    extensions = cuda_extensions(root) if root is not None else frozenset()
    if not extensions:
        return frozenset(), ()
    package = tuple(part for part in os.path.relpath(folder, root).split(os.sep) if part not in ("", "."))
    return frozenset(extensions), package


def _imported_modules(statement: nodes.NodeNG, bound: str, package: tuple[str, ...]) -> tuple[str, ...]:
    """The dotted modules `statement` binds `bound` to or takes it from, made absolute from the
    project root: `import ext` binds the extension (AutoGPTQ's `import autogptq_cuda_64`), `from .
    import ext` too, and `from ext import make_q4` takes one of its functions (AutoGPTQ's
    `exllama_kernels`)."""
    if isinstance(statement, nodes.Import):
        for name, alias in statement.names:
            if (alias or name.split(".")[0]) == bound:
                # `import a.b.ext` binds `a`, the package, not the extension
                return (name,) if alias or "." not in name else ()
        return ()
    imported = next((name for name, alias in statement.names if (alias or name) == bound), None)
    if imported is None:
        return ()
    level = statement.level or 0
    if level:
        if level - 1 > len(package):
            return ()
        base = list(package[:len(package) - (level - 1)])
        # a src/ layout: the root's folders in front of the top package are no part of the name
        if base and base[0] == "src":
            base = base[1:]
    else:
        base = []
    module = [*base, *filter(None, (statement.modname or "").split("."))]
    return (".".join([*module, imported]),) + ((".".join(module),) if module else ())


def imported_cuda_build_module(statement: nodes.Import | nodes.ImportFrom) -> str | None:
    """The project module that `statement` imports whose own top level builds CUDA code at run
    time, else None. cogdl 0.6's operators/spmm.py runs `load(name="spmm", sources=[...,
    "spmm_kernel.cu"])` in a `try:` at its top, and utils/spmm_utils.py imports it only `if
    torch.cuda.is_available():`: the import is the nvcc build, so on the NPU the test must keep
    saying no. A build inside a function of that module runs only when called, and is not one."""
    path = getattr(statement.root(), "file", None)
    if not path or not os.path.isfile(path):
        return None
    if isinstance(statement, nodes.ImportFrom):
        imports = [(statement.level or 0, statement.modname or "", tuple(name for name, _alias in statement.names))]
    else:
        imports = [(0, name, ()) for name, _alias in statement.names]
    for level, module, names in imports:
        files = project_files_of(os.path.abspath(path), level, module, names)
        for file in files:
            if (not file.endswith("__init__.py") or file == files[-1]) and _MODULE_BUILDS.get(file):
                return module or ", ".join(names)
    return None


def build_modules_read(path: str, source: bytes) -> list[str]:
    """The project files `imported_cuda_build_module` may read for the imports inside blocks of
    `source`: a CUDA test around such an import stays or goes with what they build, so a result
    kept for the file is stale once one of them changes (the result cache records them)."""
    if b"import" not in source or b"cuda" not in source.lower():
        return []
    importer = os.path.abspath(path)
    return sorted({file for level, module, names in imports_in_text(source, in_blocks_only=True)
                   for file in project_files_of(importer, level, module, names)})


def _module_builds_cuda(path: str) -> bool:
    """Does the module at `path` call cpp_extension's `load`/`load_inline` on CUDA code outside its
    functions and classes (at its top, or in a `try:`/`if` there)?"""
    tree = parse_file(path)
    if tree is None:
        return False
    builders = {alias.asname or alias.name for statement in ast.walk(tree) if isinstance(statement, ast.ImportFrom)
                and statement.module == _CPP_EXTENSION and not statement.level
                for alias in statement.names if alias.name in _BUILDER_NAMES}
    return any(_ast_cuda_build(call, builders) for call in _top_level_calls(tree))


def ast_builds_cuda(definition: ast.AST, imported: dict[str, str]) -> bool:
    """Does a call in `definition` (a class or function, read with Python's ast) compile CUDA code
    with cpp_extension's `load`/`load_inline`? `imported` maps the module's top-level import names
    to what they stand for (`load` -> "torch.utils.cpp_extension.load")."""
    builders = {name for name, full in imported.items() if full in BUILDERS}
    return any(isinstance(node, ast.Call) and _ast_cuda_build(node, builders) for node in ast.walk(definition))


def _top_level_calls(tree: ast.AST):
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(child, ast.Call):
            yield child
        yield from _top_level_calls(child)


def _ast_cuda_build(call: ast.Call, builders: set[str]) -> bool:
    func = call.func
    if isinstance(func, ast.Name):
        if func.id not in builders:
            return False
    else:
        name = dotted_name(func)
        if name is None or name.rsplit(".", 1)[-1] not in _BUILDER_NAMES or ".cpp_extension." not in f".{name}":
            return False
    keywords = {keyword.arg: keyword.value for keyword in call.keywords if keyword.arg}
    if "with_cuda" in keywords:
        value = keywords["with_cuda"]
        return isinstance(value, ast.Constant) and value.value is True
    if "cuda_sources" in keywords or _non_empty(keywords.get("extra_cuda_cflags")):
        return True
    sources = keywords.get("sources", call.args[1] if len(call.args) > 1 else None)
    return sources is not None and any(isinstance(node, ast.Constant) and isinstance(node.value, str)
                                       and _CUDA_SOURCE.search(node.value) for node in ast.walk(sources))


def _non_empty(value: ast.AST | None) -> bool:
    if value is None or (isinstance(value, ast.Constant) and value.value is None):
        return False
    return not (isinstance(value, (ast.List, ast.Tuple)) and not value.elts)


_MODULE_BUILDS: FileFacts[bool] = FileFacts(_module_builds_cuda, MAX_CACHED)
