"""Serve torch stubs from astroid's module cache, building each one on first request.

astroid looks every module up in ``AstroidManager.astroid_cache`` before it searches the disk
(``ast_from_module_name`` tests ``modname in cache`` and then reads ``cache[modname]``), so a
dict subclass that answers for ``torch``/``torch_npu`` names is the one place that covers
imports, attribute access on packages and pylint's import checks.  The dict object outlives
``AstroidManager.clear_cache()`` (which pylint calls): it is only emptied, and the stubs are
rebuilt on the next request.
"""

from __future__ import annotations

import ast
import inspect

import astroid
from astroid import nodes, rebuilder, util
from astroid.builder import AstroidBuilder
from astroid.exceptions import AstroidBuildingError, AstroidSyntaxError, AttributeInferenceError
from astroid.manager import AstroidManager

from npu_lint.knowledge.torch_model import data, render

ROOTS = ("torch", "torch_npu")
_PREFIXES = tuple(root + "." for root in ROOTS)


def is_stub_name(name: object) -> bool:
    return isinstance(name, str) and (name in ROOTS or name.startswith(_PREFIXES))


# astroid 4.4 passes `is_stub` to its TreeRebuilder (and the rebuilder takes it); older ones do neither
REBUILDER_TAKES_IS_STUB = "is_stub" in inspect.signature(rebuilder.TreeRebuilder.__init__).parameters


def tree_rebuilder(manager: AstroidManager, text: str | None, is_stub: bool = False) -> rebuilder.TreeRebuilder:
    """astroid's TreeRebuilder; without `text` it gives classes and functions no `position`.

    With the text, the rebuilder tokenizes every class's and function's header again to find
    where its keyword and name stand (`node.position`), which only pylint reads, to place a
    message on a def. The stubs' defs never get a message, nor do the user's in npu-lint's own
    processes (pylint hands over its own module): that tokenizing was a fifth of a one-script
    check.
    """
    if REBUILDER_TAKES_IS_STUB:
        return rebuilder.TreeRebuilder(manager, text, is_stub=is_stub)
    return rebuilder.TreeRebuilder(manager, text)


class _StubBuilder(AstroidBuilder):
    """astroid's string_build for the stub text npu-lint renders: no brain transforms, no positions."""

    def __init__(self):
        super().__init__(AstroidManager(), apply_transforms=False)

    def _data_build(self, data: str, modname: str, path: str | None, is_stub: bool | None = None):
        try:
            tree = ast.parse(data + "\n", filename=modname or "<unknown>")
        except (SyntaxError, ValueError, MemoryError) as exc:  # a data bug: the caller degrades
            raise AstroidSyntaxError("Parsing the stub failed:\n{error}", source=data, modname=modname,
                                     path=path, error=exc) from exc
        builder = tree_rebuilder(self._manager, None)
        return builder.visit_module(tree, modname, "<?>", False), builder


class StubFunction(nodes.FunctionDef):
    """A stub function or method: unknown signature, return value taken from the data.

    Its ``args.args`` is None, as for a C builtin, so pylint skips argument checks against
    it (no arguments-differ when a user's ``forward(self, x)`` overrides the stub).
    """

    npu_returns = "O"  # "T": a torch.Tensor instance, "S": self, "O": Uninferable

    def accept(self, visitor):  # as_string() dispatches on the class name
        return visitor.visit_functiondef(self)

    def infer_call_result(self, caller, context=None):
        if self.npu_returns == "T":
            return iter((_tensor_instance(),))
        if self.npu_returns == "S":
            bound = context.boundnode if context is not None else None
            if isinstance(bound, nodes.ClassDef):  # a classmethod returning cls()
                bound = bound.instantiate_class()
            return iter((bound if bound is not None else util.Uninferable,))
        return iter((util.Uninferable,))


def _tensor_instance():
    try:
        tensor = AstroidManager().ast_from_module_name("torch").locals["Tensor"][0]
    except (AstroidBuildingError, KeyError, IndexError):
        return util.Uninferable
    return tensor.instantiate_class()


def _attach(owner: str, body: list[nodes.NodeNG], returns: dict[tuple[str, str], str]) -> None:
    """Turn the functions of a stub's body (owner: "" for the module, else the class name)
    into StubFunctions that know what they return."""
    for func in body:
        if isinstance(func, nodes.FunctionDef):
            func.__class__ = StubFunction
            func.npu_returns = returns.get((owner, func.name), "O")
            if func.name != "__getitem__":  # astroid needs its real (self, index)
                func.args.args = None


class LazyStubClass(nodes.ClassDef):
    """A stub class whose body (its methods and attributes) is built the first time anything
    reads its `locals` or `body`.

    The `torch` stub holds 142 classes with 1,600 methods, three quarters of its build time,
    and a file uses a few of them: its name, bases and position are there from the start (so
    `ancestors()`, `qname()` and isinstance checks need no body); the body is built from the
    class's own lines of the stub, at their own line numbers, and moved under the class.
    """

    @property
    def locals(self):
        self._npu_build_body()
        return self.__dict__["locals"]

    @locals.setter
    def locals(self, value):
        self.__dict__["locals"] = value

    @property
    def body(self):
        self._npu_build_body()
        return self.__dict__["body"]

    @body.setter
    def body(self, value):
        self.__dict__["body"] = value

    def _npu_build_body(self) -> None:
        pending = self.__dict__.get("_npu_pending")
        if pending is None:
            return
        self.__dict__["_npu_pending"] = None  # once, even if building fails
        source, returns = pending
        try:
            holder = _StubBuilder().string_build(source, _CLASS_HOLDER)
        except AstroidBuildingError:  # a data bug must not break linting: an empty class
            body, namespace = [], {}
        else:
            body, namespace = holder.body[-1].body, holder.body[-1].locals
        finally:
            dict.pop(AstroidManager().astroid_cache, _CLASS_HOLDER, None)
        for node in body:
            node.parent = self
        _attach(self.name, body, returns)
        self.__dict__["body"] = body
        self.__dict__["locals"] = FrozenNamespace(namespace)
        for node in self.nodes_of_class(nodes.FunctionDef):
            _freeze_node(node)


# astroid tests `_proxied.__class__.__name__ == "ClassDef"` before looking up an instance's
# attribute through its class (bases.Instance.igetattr); `accept` (as_string) and pylint's walker
# dispatch on that name too.
LazyStubClass.__name__ = "ClassDef"

_CLASS_HOLDER = "_npu_lint_stub_class_body"  # not a torch name: the stub cache leaves it alone


def _add_functions(module: nodes.Module, stub) -> None:
    """The module's `def name(): pass` functions, made as nodes directly (as astroid's
    raw_building does for a live module): parsing them was most of a module stub's build."""
    line = stub.functions_line
    for name in stub.functions:
        func = nodes.FunctionDef(name, lineno=line, col_offset=0, parent=module, end_lineno=line, end_col_offset=0)
        arguments = nodes.Arguments(vararg=None, kwarg=None, parent=func)
        arguments.postinit(args=[], defaults=[], kwonlyargs=[], kw_defaults=[], annotations=[], posonlyargs=[],
                           kwonlyargs_annotations=[], posonlyargs_annotations=[])
        func.postinit(args=arguments, body=[nodes.Pass(lineno=line, col_offset=0, parent=func,
                                                       end_lineno=line, end_col_offset=0)])
        module.body.append(func)
        module.set_local(name, func)


def _make_lazy(module: nodes.Module, stub) -> None:
    """Empty the classes of a stub built from its shell source, to be built on first use."""
    lines = stub.source.split("\n")
    for node in module.body:
        if isinstance(node, nodes.ClassDef) and node.name in stub.classes:
            first, count = stub.classes[node.name]
            # The class's own lines at their own line numbers, without the bases (the shell
            # has them, resolved in the module).
            source = "\n" * first + f"class {node.name}:\n" + "\n".join(lines[first + 1:first + count]) + "\n"
            node.__class__ = LazyStubClass
            node.__dict__["_npu_pending"] = (source, stub.returns)
            node.__dict__["body"] = []
            node.__dict__["locals"] = {}


def _shell_source(stub) -> str:
    """The stub's source with each class body blanked (same line numbers): what is built first."""
    lines = stub.source.split("\n")
    for first, count in stub.classes.values():  # a class is at least its line and one more
        lines[first + 1:first + count] = ["    pass"] + [""] * (count - 2)
    return "\n".join(lines)


class StubModule(nodes.Module):
    """Stub of a modelled torch module: a name torch does not have is Uninferable.

    Attribute access on a package only imports submodules that torch has, so that
    ``torch.cuda.not_a_real_name`` is not mistaken for a (catch-all) module.
    """

    npu_submodules: frozenset[str] = frozenset()

    def accept(self, visitor):  # as_string() dispatches on the class name
        return visitor.visit_module(self)

    def _unknown(self, name: str) -> list[nodes.NodeNG]:
        raise AttributeInferenceError(target=self, attribute=name)

    def getattr(self, name, context=None, ignore_locals=False):
        known = (name in self.locals and not ignore_locals) or name in self.special_attributes
        if known or (self.package and name in self.npu_submodules):
            return super().getattr(name, context, ignore_locals)
        return self._unknown(name)

    def igetattr(self, name, context=None):
        try:
            self.getattr(name, context)
        except AttributeInferenceError:
            return iter((util.Uninferable,))
        return super().igetattr(name, context)


class CatchAllModule(StubModule):
    """Stub of a torch module the data does not model: every attribute is Uninferable."""

    def _unknown(self, name: str) -> list[nodes.NodeNG]:
        return [nodes.Unknown(parent=self)]


def build_stub(name: str) -> nodes.Module:
    """Build, cache and return the stub module ``name``."""
    builder = _StubBuilder()
    record = data.module_record(name)
    stub = render.render(name) if record else None
    # string_build stores the module in the cache before anything can infer through it.
    try:
        module = builder.string_build(_shell_source(stub) if stub else render.CATCH_ALL, name)
    except AstroidBuildingError:  # a data bug must not break linting: degrade to catch-all
        record, stub = None, None
        module = builder.string_build(render.CATCH_ALL, name)
    if stub is not None:
        _add_functions(module, stub)
    _attach("", module.body, stub.returns if stub else {})
    if stub is not None:
        _make_lazy(module, stub)
    if record is None:
        module.__class__ = CatchAllModule
        module.package = True
    else:
        module.__class__ = StubModule
        module.package = bool(record.get("pkg"))
        module.npu_submodules = frozenset(data.names(record, "sub"))
    # No transforms: astroid's brain plugins (enum, namedtuple, dataclasses...) only ask of each
    # stub class whether it is an enum or a namedtuple, inferring every base class to answer;
    # that was half the cost of building the stubs, for classes the data defines plainly.
    _freeze(module)
    return module


class FrozenNamespace(dict):
    """The locals of a stub after it is built: reads as usual, writes are discarded.

    astroid's builder records `torch.backends.cudnn.benchmark = True` or
    `tensor.foo = 1` in a user's file by appending to the target's locals or
    instance_attrs (`setdefault(name, []).append(node)`). On a stub shared by
    every file of a run, that would make one file's answers depend on the
    files linted before it.
    """

    def setdefault(self, key, default=None):
        if dict.__contains__(self, key):
            return list(dict.__getitem__(self, key))  # a copy: an append changes nothing
        return [] if default is None else default  # a new name is not stored either


def _freeze(module: nodes.Module) -> None:
    """Freeze the module and its top-level functions and classes; a lazy class freezes its body
    when it builds it (walking into it here would build it)."""
    _freeze_node(module)
    for node in module.body:
        if isinstance(node, LazyStubClass):
            node.instance_attrs = FrozenNamespace(node.instance_attrs)
        elif isinstance(node, (nodes.ClassDef, nodes.FunctionDef)):
            for inner in (node, *node.nodes_of_class((nodes.ClassDef, nodes.FunctionDef))):
                _freeze_node(inner)


def _freeze_node(node: nodes.NodeNG) -> None:
    node.locals = FrozenNamespace(node.locals)
    if hasattr(node, "instance_attrs"):
        node.instance_attrs = FrozenNamespace(node.instance_attrs)


class StubCache(dict):
    """astroid's module cache; torch and torch_npu modules are built on demand."""

    def _stub(self, key: object) -> nodes.Module | None:
        if not is_stub_name(key):
            return None
        module = build_stub(key)
        dict.__setitem__(self, key, module)
        return module

    def __missing__(self, key):
        module = self._stub(key)
        if module is None:
            raise KeyError(key)
        return module

    def __contains__(self, key) -> bool:
        return dict.__contains__(self, key) or self._stub(key) is not None

    def get(self, key, default=None):
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        module = self._stub(key)
        return default if module is None else module


def install(manager: AstroidManager | None = None) -> None:
    """Make astroid resolve torch and torch_npu only from stubs (idempotent)."""
    brain = AstroidManager.brain
    cache = brain["astroid_cache"]
    if not isinstance(cache, StubCache):
        new = StubCache((k, v) for k, v in cache.items() if not is_stub_name(k))
        brain["astroid_cache"] = cache = new
    # Manager instances keep a reference to the dict they were created with.
    for each in {id(m): m for m in (manager, astroid.MANAGER) if m is not None}.values():
        each.astroid_cache = cache
