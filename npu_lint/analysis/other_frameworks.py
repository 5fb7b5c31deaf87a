"""Code written for another array framework: its device names are that framework's.

skrl's tests/test_jax_config.py imports jax and no torch: its `"cuda"` strings are JAX platform
names (`jax.devices("cuda")`, `config.jax.device = "cuda"`), and JAX knows no "npu". So is the
`self._device = f"cuda:{rank}"` of skrl's JAX configuration class, whose `__init__` imports jax
and no torch, in a module whose PyTorch class imports torch. Renamed, they would ask JAX for a
platform it does not have; torch_npu has nothing to do with them. So are the "cuda" targets of
a module that imports Apache TVM and no torch (GPTQModel's bitblas_target_detector.py picks the
TVM target BitBLAS compiles its kernels for).
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.module_facts import facts_of

# Top-level modules of frameworks with device names of their own and no NPU backend for torch_npu.
# TVM names its compile targets so (`Target("cuda")`: GPTQModel's BitBLAS target detector).
OTHER_FRAMEWORKS = frozenset({"jax", "flax", "tensorflow", "paddle", "mindspore", "tvm"})
_TORCH = frozenset({"torch", "torch_npu"})


def other_framework_code(node: nodes.NodeNG) -> bool:
    """Does the innermost function or class around `node` that imports a framework import
    another one and nothing of torch, in a module that does not import torch for all of its code?
    Without such a scope, the module's own imports decide (and a star import, which might bring
    torch, keeps the string torch's)."""
    facts = facts_of(node)
    if not {name.split(".", 1)[0] for name in facts.imported} & OTHER_FRAMEWORKS:
        return False  # the usual module: no other framework anywhere, no walk
    module_wide = _imported_tops(node.root(), skip=(nodes.FunctionDef, nodes.ClassDef))
    if module_wide & _TORCH:
        return False
    scope = node.parent
    while scope is not None and not isinstance(scope, nodes.Module):
        if isinstance(scope, (nodes.FunctionDef, nodes.ClassDef)):
            tops = _imported_tops(scope)
            if tops & (OTHER_FRAMEWORKS | _TORCH):
                return _other_only(tops)
        scope = scope.parent
    return not facts.star_imports and _other_only(module_wide)


def _other_only(tops: set[str]) -> bool:
    return bool(tops & OTHER_FRAMEWORKS) and not tops & _TORCH


def _imported_tops(scope: nodes.NodeNG, skip=None) -> set[str]:
    tops = set()
    for statement in scope.nodes_of_class((nodes.Import, nodes.ImportFrom), skip_klass=skip):
        if isinstance(statement, nodes.Import):
            tops.update(name.split(".", 1)[0] for name, _alias in statement.names)
        elif not statement.level and statement.modname:
            tops.add(statement.modname.split(".", 1)[0])
    return tops
