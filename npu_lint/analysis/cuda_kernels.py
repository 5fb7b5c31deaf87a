"""The functions and classes of a module that run a CUDA-only kernel.

    @triton.jit                                  a kernel: decorated by a CUDA-only library
    def _rope_kernel(x_ptr, ...): ...
    @torch.library.custom_op("ns::rope", mutates_args=(), device_types="cuda")
    def rope_op(x):                              launches it
        _rope_kernel[grid](x, ...)
    class _Rope(torch.autograd.Function):        calls what launches it
        def forward(ctx, x): return rope_op(x)
    def fused_rope(x): return _Rope.apply(x)     and so on, through the module's own names
    torch.ops.ns.rope(x)                         also as the custom ops they are registered as

(torchtitan's overrides/fused_mla.py, fused_swiglu.py, helion_rope.py.) A module name bound to the
module's own CUDA build (analysis/cuda_builds.py), also one a build helper of the project makes from
`.cu` sources (OLMo-core's `LazyCudaExtension(sources=(..."kernel.cu"))`), counts as such a kernel too, and so does a function
that imports from a module of the project named for a CUDA-only library (openai-whisper's timing.py:
`def dtw_cuda(x): from .triton_ops import dtw_kernel`), and so does a function or class that builds
`.cu` sources at run time (nncf's `QuantizedFunctionsCUDALoader.load`). A method of a class that defines and
launches such a kernel in its own body runs one too, for the class's other methods that call it
through `self`. A device test that
decides whether one of them runs keeps NPU tensors out of a CUDA kernel, and the device a custom
op registers such a function for is CUDA's: `.is_npu` or "npu" there would send NPU tensors into
Triton. Names are matched within the module (definitions at module level, also under `if` or
`try`); a kernel imported from another module is not followed.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

from astroid import nodes

from npu_lint.analysis.cuda_builds import (built_module_names, builds_cuda_sources, cuda_build_argument,
                                          imports_cuda_build, prebuilt_extension_names)
from npu_lint.analysis.kernel_wrappers import applied_decorator
from npu_lint.analysis.library_words import spells_library
from npu_lint.analysis.module_facts import facts_of
from npu_lint.analysis.names import qualified_name
from npu_lint.config.project_scripts import own_packages
from npu_lint.knowledge.library_advice import table

_ATTRIBUTE = "_npu_lint_cuda_kernel_names"
_DEFINITIONS = (nodes.FunctionDef, nodes.ClassDef)


def kernel_names(module: nodes.Module) -> frozenset[str]:
    """Names of the module's functions and classes that run a CUDA-only kernel (computed once)."""
    names = getattr(module, _ATTRIBUTE, None)
    if names is None:
        names = _kernel_names(module)
        setattr(module, _ATTRIBUTE, names)
    return names


def cuda_kernel_names(module: nodes.Module) -> frozenset[str]:
    """The module's own CUDA-only names: its kernel functions and classes, and the names it binds to
    a CUDA build of its own (basicsr's `upfirdn2d_ext = load(..., [...".cu"])`)."""
    kernels = kernel_names(module)
    return kernels | _names_of_builds(module) if kernels else kernels


def runs_cuda_kernel(function: nodes.FunctionDef) -> bool:
    return function.name in kernel_names(function.root())


def method_running_kernel(callee: nodes.NodeNG) -> nodes.FunctionDef | None:
    """The method of the class that `self.<name>` (the callee of a call in one of its methods)
    names, when that method launches a CUDA-only kernel: one it defines (`@triton.jit` nested in
    its body, MiniMax-H3's `_temporal_activate` in DiffSynth-Studio) or one of the module's."""
    if not (isinstance(callee, nodes.Attribute) and isinstance(callee.expr, nodes.Name) and callee.expr.name == "self"):
        return None
    frame = callee.frame()
    owner = frame.parent if isinstance(frame, nodes.FunctionDef) else None
    if not isinstance(owner, nodes.ClassDef):
        return None
    kernels = kernel_names(callee.root())
    for method in owner.locals.get(callee.attrname, ()):
        if not isinstance(method, nodes.FunctionDef) or method is frame:
            continue
        for node in method.nodes_of_class((nodes.FunctionDef, nodes.Name)):
            if isinstance(node, nodes.FunctionDef) and node is not method and _decorated_by_library(node) \
                    or isinstance(node, nodes.Name) and node.name in kernels:
                return method
    return None


def _kernel_names(module: nodes.Module) -> frozenset[str]:
    definitions = list(_module_definitions(module))
    builds_at_run_time = _imports_cpp_extension(module)
    found = {d.name for d in definitions
             if isinstance(d, nodes.FunctionDef) and (_decorated_by_library(d) or _imports_kernel_module(d))
             or builds_at_run_time and _builds_cuda(d)}
    builds = _names_of_builds(module) | _kernel_module_imports(module)
    if not found and not builds:
        return frozenset()
    registered = _registered_ops(definitions)
    references = {id(d): _names_used(d, registered) for d in definitions if d.name not in found}
    found |= {d.name for d in definitions if d.name not in found and references[id(d)] & builds}
    if not found:
        return frozenset()
    changed = True
    while changed:  # until no definition uses a name found so far
        changed = False
        for definition in definitions:
            if definition.name not in found and references[id(definition)] & found:
                found.add(definition.name)
                changed = True
    return frozenset(found)


def _names_of_builds(module: nodes.Module) -> frozenset[str]:
    """Module names that hold a CUDA build of its own: `ext = load("ext", [..."ext.cu"])`, `import
    fast_lsh_cumulation as lsh_cumulation` after `load("fast_lsh_cumulation", ...)` (YOSO), `from . import
    upfirdn2d_ext` of an extension the project's setup.py builds (basicsr, fairscale). A
    function that calls into one runs a CUDA kernel just as one that launches a Triton kernel."""
    built = built_module_names(module)
    names = set(prebuilt_extension_names(module))
    for name, assignments in module.locals.items():
        for assignment in assignments:
            if built and isinstance(assignment, nodes.Import) and imports_cuda_build(assignment, name):
                names.add(name)
            elif isinstance(assignment, nodes.AssignName) and isinstance(assignment.parent, nodes.Assign) \
                    and isinstance(assignment.parent.value, nodes.Call) \
                    and (built and cuda_build_argument(assignment.parent.value) is not None
                         or builds_cuda_sources(assignment.parent.value)):
                names.add(name)  # also `_EXTENSION = LazyCudaExtension(sources=(..."kernel.cu"))`
    return frozenset(names)


def _module_definitions(module: nodes.Module) -> Iterator[nodes.NodeNG]:
    """Functions and classes whose scope is the module: in its body or in its `if`/`try` blocks."""
    stack = list(module.body)
    while stack:
        node = stack.pop()
        if isinstance(node, _DEFINITIONS):
            yield node
        elif isinstance(node, (nodes.If, nodes.Try, nodes.With, nodes.ExceptHandler)):
            stack.extend(node.get_children())


def _decorated_by_library(function: nodes.FunctionDef) -> bool:
    """`@triton.jit`, `@triton.autotune(...)`, `@helion.kernel(...)`, `@cuda.jit` (numba), and a
    decorator of the project's own that applies one (trl's `@_jit`: analysis/kernel_wrappers.py)."""
    for decorator in function.decorators.nodes if function.decorators else ():
        target = decorator.func if isinstance(decorator, nodes.Call) else decorator
        qname = qualified_name(target) or applied_decorator(target)
        if qname is not None and table().library_of(qname) is not None:
            return True
    return False


def _imports_cpp_extension(module: nodes.Module) -> bool:
    """Does the module import from torch.utils? `from torch.utils import cpp_extension` is known
    only as `torch.utils` to the module's facts, so any torch.utils import lets the builds be read.
    So does `import torch` with `torch.utils.cpp_extension.load(...)` spelled out (nncf 3.4's
    torch/quantization/extensions.py)."""
    imported = facts_of(module).imported
    if any(name.startswith("torch.utils") for name in imported):
        return True
    return "torch" in imported and any(attribute.attrname == "cpp_extension"
                                       for attribute in module.nodes_of_class(nodes.Attribute))


def _builds_cuda(definition: nodes.FunctionDef | nodes.ClassDef) -> bool:
    """`def _load(name): ... load(name, sources=[...".cu"], extra_cuda_cflags=[...])` (SevenNet's
    calculator.py and batch_d3.py, which then load the library with ctypes): the function builds
    and loads a CUDA kernel, so what calls it runs one. So does a class one of whose methods does
    (nncf 3.4's `QuantizedFunctionsCUDALoader.load`): what makes one is set to build it."""
    return any(cuda_build_argument(call) is not None for call in definition.nodes_of_class(nodes.Call))


def _kernel_module_imports(module: nodes.Module) -> frozenset[str]:
    """`from fairchem.core.models.uma.triton.kernels import packed_gate_fwd_kernel` at the top of
    packed_gate.py: names the module imports from a module of its own project named for a CUDA-only
    library, which holds the kernels (as a function's `from .triton_ops import dtw_kernel`)."""
    names = set()
    for statement in module.body:
        if not (isinstance(statement, nodes.ImportFrom) and spells_library(statement.modname)):
            continue
        if statement.level or _own_module(statement.modname, module.file or ""):
            names.update(alias or name for name, alias in statement.names if name != "*")
    return frozenset(names)


def _own_module(modname: str, path: str) -> bool:
    """A module of the project holding `path`: one of its packages, or a namespace package
    (fairchem's `src/fairchem/core/`, without an `__init__.py` in `fairchem/`) among its folders."""
    top = modname.split(".", 1)[0]
    return top in own_packages(path) or top in Path(path).parent.parts


def _imports_kernel_module(function: nodes.FunctionDef) -> bool:
    """`from .triton_ops import dtw_kernel` in its body: a module of the project named for a
    CUDA-only library holds its kernels (a real library's import is its own rules' matter)."""
    return any(statement.level and spells_library(statement.modname)
               for statement in function.nodes_of_class(nodes.ImportFrom))


def _names_used(definition: nodes.NodeNG, registered: dict[str, str]) -> set[str]:
    """The names its body uses (not its decorators: `@op.register_fake` runs no kernel), and the
    module's functions it calls as the custom ops they are registered as (`torch.ops.ns.op`)."""
    used: set[str] = set()
    stack = list(definition.body)
    while stack:
        node = stack.pop()
        if isinstance(node, nodes.Name):
            used.add(node.name)
        elif registered and isinstance(node, nodes.Attribute) and isinstance(node.expr, nodes.Attribute):
            function = registered.get(f"{node.expr.attrname}::{node.attrname}")
            if function is not None and _torch_ops(node.expr.expr):
                used.add(function)
        stack.extend(node.get_children())
    return used


def _registered_ops(definitions: list[nodes.NodeNG]) -> dict[str, str]:
    """`@triton_op("uma_nitro::equivariant_rms_norm", ...)` on a function (fairchem's UMA Nitro,
    which calls it as `torch.ops.uma_nitro.equivariant_rms_norm` from another custom op): the
    op names that the module's functions are registered as, to the function's name."""
    ops = {}
    for definition in definitions:
        if not isinstance(definition, nodes.FunctionDef) or not definition.decorators:
            continue
        for decorator in definition.decorators.nodes:
            first = decorator.args[0] if isinstance(decorator, nodes.Call) and decorator.args else None
            if isinstance(first, nodes.Const) and isinstance(first.value, str) and "::" in first.value:
                ops[first.value] = definition.name
    return ops


def _torch_ops(node: nodes.NodeNG) -> bool:
    return isinstance(node, nodes.Attribute) and node.attrname == "ops" and qualified_name(node) == "torch.ops"
