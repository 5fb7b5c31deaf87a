"""Library modules reached through `import`: `tvm.target` in `tvm.target.cuda()`.

hummingbird-ml 0.4's _topology.py picks TVM's target with `tvm.target.cuda()` (and TVM's device is
`tvm.cuda(0)`, MXNet's `mx.gpu()`): a function of another library's module, named for CUDA, that
moves nothing of torch's. Where the library is not installed astroid cannot see the module, so the
chain's root says what it is: a name that only `import lib` binds, lib being neither torch nor a
module of the linted project. A name `from lib import x` binds may be an object, and so may a
global of the project's own module (`import config`, then `config.model.cuda()`).
"""
from __future__ import annotations

import os

from astroid import nodes

from npu_lint.analysis.names import chain_root, qualified_name, sole_import
from npu_lint.analysis.project_torch_npu import project_files_of
from npu_lint.config.project_scripts import own_packages

_TORCH_MODULES = frozenset({"torch", "torch_npu"})
# What a library names its CUDA target or device function (`tvm.target.cuda()`, `mx.gpu()`)
_CUDA_FUNCTIONS = frozenset({"cuda", "gpu"})


def library_module(node: nodes.NodeNG) -> bool:
    """Is `node` a chain of attributes (or a name) on a module of another library, bound by `import`?"""
    if not isinstance(node, (nodes.Name, nodes.Attribute)):
        return False
    root = chain_root(node)
    if root is None or not isinstance(sole_import(root), nodes.Import):
        return False
    module = qualified_name(root)
    if not module or module.split(".", 1)[0] in _TORCH_MODULES:
        return False
    path = node.root().file or ""
    if module.split(".", 1)[0] in own_packages(path):
        return False
    return not (os.path.isfile(path) and project_files_of(path, 0, module, ()))


def library_cuda_function(call: nodes.NodeNG) -> str | None:
    """The dotted name of a library module's own function for CUDA that `call` calls
    (`tvm.target.cuda`, `tvm.gpu`), or None."""
    if not (isinstance(call, nodes.Call) and isinstance(call.func, nodes.Attribute)
            and call.func.attrname in _CUDA_FUNCTIONS and library_module(call.func.expr)):
        return None
    return qualified_name(call.func)
