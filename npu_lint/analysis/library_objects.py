"""Branches that only a CUDA-only library's object enters.

    if isinstance(ndarray, cupy.ndarray):          pytorch-pfn-extras 0.9's _tensor.py
        return torch.utils.dlpack.from_dlpack(ndarray)
    elif isinstance(obj, cupy.ndarray):
        devtype = "cuda"                           where a CuPy array lives
    if has_genbmm and isinstance(a, genbmm.BandedMatrix):    torch-struct's semirings

No NPU program holds a CuPy array or a genbmm matrix, so such a branch never runs there and the
port leaves it as it is; the type test itself names the library (NPU403 where the library is
imported by its name). The libraries are the CUDA-only ones of data/cuda_libraries.yaml
(`libraries`, `rocm_only`), named by their import or by the library's own name (`cupy` re-exported
by the project's own `_cupy` module). Libraries with CPU kernels (`without_npu_kernels`) are not:
their objects exist on an NPU host too. `ModuleContext.report` drops every finding there.
"""
from __future__ import annotations

import functools

from astroid import nodes

from npu_lint.analysis.names import chain_root, qualified_name
from npu_lint.knowledge.library_advice import table

_SCOPES = (nodes.FunctionDef, nodes.AsyncFunctionDef, nodes.Lambda, nodes.ClassDef, nodes.Module)


def may_test_library_types(text: str) -> bool:
    """The cheap test first: only a module that calls isinstance can have such a branch."""
    return "isinstance" in text


def only_for_library_objects(node: nodes.NodeNG) -> bool:
    """Is `node` in the branch that a test of a CUDA-only library's type lets in (the body of
    `if isinstance(x, cupy.ndarray):`, also of an `elif`, or `a if isinstance(...) else b`)?"""
    child, parent = node, node.parent
    while parent is not None and not isinstance(parent, _SCOPES):
        if isinstance(parent, nodes.If) and any(child is statement for statement in parent.body) \
                and _admits_library_objects_only(parent.test):
            return True
        if isinstance(parent, nodes.IfExp) and child is parent.body and _admits_library_objects_only(parent.test):
            return True
        child, parent = parent, parent.parent
    return False


def _admits_library_objects_only(test: nodes.NodeNG) -> bool:
    """`isinstance(x, cupy.ndarray)`, or an `and` with such a part (`has_genbmm and isinstance(...)`)."""
    if isinstance(test, nodes.BoolOp) and test.op == "and":
        return any(_admits_library_objects_only(part) for part in test.values)
    if not (isinstance(test, nodes.Call) and isinstance(test.func, nodes.Name) and test.func.name == "isinstance"
            and len(test.args) == 2):
        return False
    classes = test.args[1]
    members = classes.elts if isinstance(classes, nodes.Tuple) else [classes]
    return bool(members) and all(_library_class(member) for member in members)


def _library_class(node: nodes.NodeNG) -> bool:
    """A class reached through a CUDA-only library's module: `cupy.ndarray`, `genbmm.BandedMatrix`."""
    if not isinstance(node, nodes.Attribute):
        return False
    root = chain_root(node)
    if root is None:
        return False
    qname = qualified_name(node) or root.name  # the project's own re-export keeps the library's name
    return qname.split(".", 1)[0] in _cuda_only_libraries() or root.name in _cuda_only_libraries()


@functools.lru_cache(maxsize=1)
def _cuda_only_libraries() -> frozenset[str]:
    libraries = table()
    return frozenset(module.split(".", 1)[0] for module in (*libraries.libraries, *libraries.rocm_only)
                     if "." not in module)
