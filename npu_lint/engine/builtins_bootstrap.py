"""astroid's model of `builtins`, built with one class node per kind of builtin method.

Before the first module is built, astroid builds a model of the live `builtins` module by
introspection. For each of its ~2,900 methods (`str.join`, `dict.get`, ...) it builds a fresh
class node for the method's `__class__` (`method_descriptor`, `builtin_function_or_method`, ...):
about a third of the instructions of the whole bootstrap, and a fifth of a one-file
`npu-lint check`. There are only a handful of such kinds, so here each is built once and
shared. What inference sees is the same classes: `str.join.__class__` is still the class
`method_descriptor` of the builtins module, only not one copy per method.

Only for processes npu-lint owns (the CLI, its workers, flake8, the editor server), and only
for the bootstrap: inside pylint, astroid builds its model as pylint expects.
"""
from __future__ import annotations

import contextlib
import inspect

import astroid
from astroid import raw_building

_EXPECTED_PARAMETERS = ["func", "parent", "member"]


def bootstrap_builtins() -> None:
    """Build astroid's `builtins` model now, unless it is built already."""
    if "builtins" in astroid.MANAGER.astroid_cache:
        return
    with _one_class_per_method_kind():
        astroid.MANAGER.bootstrap()


@contextlib.contextmanager
def _one_class_per_method_kind():
    real = getattr(raw_building, "_add_dunder_class", None)
    if real is None or list(inspect.signature(real).parameters) != _EXPECTED_PARAMETERS:
        yield  # an astroid that builds its model another way: leave it as it is
        return
    shared: dict[type, list] = {}

    def add_shared_dunder_class(func, parent, member) -> None:
        kind = member.__class__
        if kind not in shared:
            real(func, parent.root(), member)  # built once, in the module rather than in one class
            shared[kind] = func.instance_attrs.get("__class__", [])
        if shared[kind]:
            func.instance_attrs["__class__"] = list(shared[kind])

    raw_building._add_dunder_class = add_shared_dunder_class
    try:
        yield
    finally:
        raw_building._add_dunder_class = real
