"""astroid's model of `builtins`: each class's members built when first asked for, and one
class node per kind of builtin method.

Before the first module is built, astroid builds a model of the live `builtins` module by
introspection: ~150 classes with ~2,900 methods, built one by one (half of a one-file `npu-lint
check`). A lint run asks for the members of a dozen of them (`object`, `str`, `int`, `type`,
...), so here each class is built as astroid builds it (name, bases, doc, the instance
attributes of exceptions), and its members, `locals` and `body`, are built by astroid's own
code the first time anything reads either of them. And for each method astroid builds a fresh
class node for its `__class__` (`method_descriptor`, `builtin_function_or_method`, ...); there
are a handful of such kinds, so each is built once and shared. What inference sees is the
same: `str.join.__class__` is still the class `method_descriptor` of the builtins module, only
not one copy per method.

Only for processes npu-lint owns (the CLI, its workers, flake8, the editor server): inside
pylint, astroid builds its model as pylint expects.
"""
from __future__ import annotations

import contextlib
import inspect

import astroid
from astroid import nodes, raw_building

_EXPECTED_PARAMETERS = ["func", "parent", "member"]
_PENDING = "_npu_lint_members_to_build"  # (builder, live class) until the members are built
_method_classes: dict[type, list] = {}  # kind of builtin method -> its shared `__class__` node


def bootstrap_builtins() -> None:
    """Build astroid's `builtins` model now, unless it is built already."""
    if "builtins" in astroid.MANAGER.astroid_cache:
        return
    if not _astroid_builds_as_expected():
        astroid.MANAGER.bootstrap()  # an astroid that builds its model another way: its own way
        return
    real_object_build = raw_building.InspectBuilder.object_build
    raw_building.InspectBuilder.object_build = _members_later
    try:
        with _one_class_per_method_kind():
            astroid.MANAGER.bootstrap()
    finally:
        raw_building.InspectBuilder.object_build = real_object_build


def _astroid_builds_as_expected() -> bool:
    add_dunder_class = getattr(raw_building, "_add_dunder_class", None)
    object_build = getattr(getattr(raw_building, "InspectBuilder", None), "object_build", None)
    return (add_dunder_class is not None and object_build is not None
            and list(inspect.signature(add_dunder_class).parameters) == _EXPECTED_PARAMETERS
            and list(inspect.signature(object_build).parameters) == ["self", "node", "obj"])


_real_object_build = raw_building.InspectBuilder.object_build


def _members_later(builder, node, obj) -> None:
    """InspectBuilder.object_build, except that a class's members wait until they are read."""
    if type(node) is not nodes.ClassDef or obj in builder._done:
        _real_object_build(builder, node, obj)
        return
    builder._done[obj] = node  # as astroid does: a class met again is this node
    node.__dict__[_PENDING] = (builder, obj)
    node.__class__ = _ClassWithMembersLater


def _build_members(node) -> None:
    builder, obj = node.__dict__.pop(_PENDING)
    del builder._done[obj]  # astroid's own object_build skips what it has done
    # A class met among the members (`type.__base__` is `object`) is made a child of this one.
    # Built all at once, the module's own loop then makes each class its child again, last; so
    # here every class built before keeps the parent it has.
    parents = [(built, built.parent) for built in builder._done.values()]
    with _one_class_per_method_kind():
        _real_object_build(builder, node, obj)
    for built, parent in parents:
        built.parent = parent


def _built_on_read(field: str) -> property:
    def read(node):
        if _PENDING in node.__dict__:
            _build_members(node)
        return node.__dict__[field]

    def write(node, value) -> None:
        node.__dict__[field] = value

    return property(read, write)


class _ClassWithMembersLater(nodes.ClassDef):
    """A ClassDef of the builtins whose `locals` and `body` are built on the first read."""

    locals = _built_on_read("locals")
    body = _built_on_read("body")


# The node's kind name is what visitors and reprs go by (`visit_classdef`, `<ClassDef.str ...>`).
_ClassWithMembersLater.__name__ = _ClassWithMembersLater.__qualname__ = "ClassDef"


@contextlib.contextmanager
def _one_class_per_method_kind():
    real = raw_building._add_dunder_class

    def add_shared_dunder_class(func, parent, member) -> None:
        kind = member.__class__
        if kind not in _method_classes:
            real(func, parent.root(), member)  # built once, in the module rather than in one class
            _method_classes[kind] = func.instance_attrs.get("__class__", [])
        if _method_classes[kind]:
            func.instance_attrs["__class__"] = list(_method_classes[kind])

    raw_building._add_dunder_class = add_shared_dunder_class
    try:
        yield
    finally:
        raw_building._add_dunder_class = real
