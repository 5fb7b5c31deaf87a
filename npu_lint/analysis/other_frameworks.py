"""Modules written for another array framework: their device names are that framework's.

skrl's tests/test_jax_config.py imports jax and no torch: its `"cuda"` strings are JAX platform
names (`jax.devices("cuda")`, `config.jax.device = "cuda"`), and JAX knows no "npu". Renamed, they
would ask JAX for a platform it does not have; torch_npu has nothing to do with them.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.module_facts import facts_of

# Top-level modules of frameworks with device names of their own and no NPU backend for torch_npu.
OTHER_FRAMEWORKS = frozenset({"jax", "flax", "tensorflow", "paddle", "mindspore"})


def other_framework_module(node: nodes.NodeNG) -> bool:
    """Does the module of `node` import another framework and nothing of torch (nor star-import
    what might be torch)?"""
    facts = facts_of(node)
    if facts.star_imports:
        return False
    tops = {name.split(".", 1)[0] for name in facts.imported}
    return bool(tops & OTHER_FRAMEWORKS) and "torch" not in tops and "torch_npu" not in tops
