"""Classes of the project's other modules that define `cuda()` of their own, read from their source.

npu-lint builds one module at a time, so astroid infers no instance of a class another module of
the project defines, and `.cuda()` on one is NPU103's "value (its type could not be inferred)",
renamed to `.npu()`. A framework's own class that its tests and examples move (torchbearer's
`Trial`: `trial.cuda()` sends its model and optimizer state to the device through its own
`to()`) has no `npu()`, and the renamed call raises AttributeError. pylint, which puts the
project on the import path, infers such an instance and says nothing; this module gives the CLI
and flake8 the same answer from the class's own module, read with Python's ast:

- a class whose bases are none but `object` is no torch value: `.cuda()` is its own method;
- a class based on torch's `Module` (`nn.Module`, `torch.nn.Module`, through the module's own
  imports, or those a star import of a project module brings) is a Module, as astroid would
  infer; if it overrides `cuda()` with work of its own
  (more than `super().cuda(...)`, moving its `self.<submodule>` and returning self) and has no
  `npu()`, the rename would skip the override (cuda_overrides.py).

Any other class (another project base, a mixin) stays unknown. The class is looked up in the
module its `from ... import` names, and through one re-export there (`from .trial import Trial`
in the package's `__init__.py`). The result cache keeps the modules read (`modules_read`).

The same reading tells the classes and functions of another module that compile CUDA code when
they are made or called (`load(name=..., sources=[..., "kernel.cu"])` in a method's body, ParlAI's
`NGramRepeatBlock()`): a device test that decides whether one is made keeps nvcc off the NPU
(`imported_cuda_builder`), while the import of such a module builds nothing.
"""
from __future__ import annotations

import ast
import os
import re
from typing import Optional

from astroid import nodes

from npu_lint.analysis.cuda_builds import ast_builds_cuda
from npu_lint.analysis.names import bindings, single_value, values_stored_in_self
from npu_lint.analysis.project_torch_npu import imports_in_text, project_files_of
from npu_lint.core.file_facts import FileFacts
from npu_lint.core.python_ast import dotted_parts, parse_file
from npu_lint.core.records import record

_TORCH_MODULE = "torch.nn.Module"
_QUOTED_CUDA = re.compile(rb"""['"]cuda""")  # a device string compared with a base class's attribute


@record(frozen=True)
class ImportedClass:
    name: str
    plain: bool  # no base but `object`: no torch value
    torch_module: bool  # based on torch's Module
    cuda_adds_work: bool  # its own cuda() does more than the base's npu() would
    methods: frozenset
    text_attributes: frozenset = frozenset()  # `self.<name>` stored only from its own strings


@record(frozen=True)
class _ModuleClasses:
    classes: dict  # name -> ImportedClass
    reexports: dict  # name -> (level, module, imported name)
    star_imports: tuple  # (level, module) of each `from ... import *`
    builders: frozenset  # its top-level classes and functions whose bodies compile CUDA code


def class_of_receiver(expr: nodes.NodeNG) -> Optional[ImportedClass]:
    """The project class, defined in another module, whose instance `expr` is: `Trial(...)`, a
    local name given one once (`trial = Trial(...)`), or an attribute of `self` that the class
    stores only such instances in, or None where a flag leaves it out (trankit 1.1.2's Trainer:
    `self.model = None if args['dict_only'] else Seq2SeqModel(...)`, then `self.model.cuda()`)."""
    if isinstance(expr, nodes.Attribute):
        stored = values_stored_in_self(expr)
        found = [_class_called(value) for value in _left_by_none(stored or [])]
        names = {klass.name for klass in found if klass is not None}
        return found[0] if found and len(names) == 1 and all(found) else None
    call = expr if isinstance(expr, nodes.Call) else single_value(expr) if isinstance(expr, nodes.Name) else None
    return _class_called(call)


def _class_called(call: nodes.NodeNG | None) -> Optional[ImportedClass]:
    if not isinstance(call, nodes.Call) or not isinstance(call.func, nodes.Name):
        return None
    return class_named(call.func)


def _left_by_none(values: list[nodes.NodeNG]) -> list[nodes.NodeNG]:
    """The stored values, each choice `None if flag else X(...)` taken as its other side; a bare
    None (`self.model = None`) as nothing, since `.cuda()` on it never runs."""
    kept = []
    for value in values:
        if isinstance(value, nodes.IfExp):
            sides = [side for side in (value.body, value.orelse)
                     if not (isinstance(side, nodes.Const) and side.value is None)]
            kept.extend(sides)
        elif not (isinstance(value, nodes.Const) and value.value is None):
            kept.append(value)
    return kept


def class_named(name: nodes.Name) -> Optional[ImportedClass]:
    """The project class, defined in another module, that `name` is bound to by the module's one
    `from ... import` of it (a callee, or a base in a class statement)."""
    imports = [binding for binding in bindings(name) if isinstance(binding, nodes.ImportFrom)]
    if len(imports) != 1 or not imports[0].modname and not imports[0].level:
        return None
    statement = imports[0]
    imported = next((alias_of for alias_of, alias in statement.names if (alias or alias_of) == name.name), None)
    path = getattr(statement.root(), "file", None)
    if imported is None or imported == "*" or not path or not os.path.isfile(path):
        return None
    return _find(path, statement.level or 0, statement.modname or "", imported)


def imported_cuda_builder(callee: nodes.NodeNG) -> Optional[str]:
    """The name `callee` is imported by, from another module of the project whose top-level class
    or function of that name compiles CUDA code in its body (`from parlai.ops.ngram_repeat_block
    import NGramRepeatBlock`, whose `__init__` runs `load(..., sources=[..., "..._kernel.cu"])`),
    else None. Only a `Name` that one `from ... import` binds."""
    if not isinstance(callee, nodes.Name):
        return None
    imports = [binding for binding in bindings(callee) if isinstance(binding, nodes.ImportFrom)]
    if len(imports) != 1 or not imports[0].modname and not imports[0].level:
        return None
    statement = imports[0]
    imported = next((name for name, alias in statement.names if (alias or name) == callee.name), None)
    return imported if imported is not None and imported_builder_of(statement, imported) else None


def imported_builder_of(statement: nodes.ImportFrom, imported: str) -> bool:
    """Does `statement` import `imported` from a project module where it is a class or function
    that compiles CUDA code when made or called?"""
    path = getattr(statement.root(), "file", None)
    if imported == "*" or not path or not os.path.isfile(path):
        return False
    files = _files_on_the_way(path, statement.level or 0, statement.modname or "", imported)
    facts = _FACTS.get(files[-1]) if files else None
    return facts is not None and imported in facts.builders


def modules_read(path: str, source: bytes) -> list[str]:
    """The project modules `class_of_receiver` and `imported_cuda_builder` may read for `source`
    (any text that says cuda: a `.cuda(` move, a CUDA test, a quoted "cuda" compared with a base's
    attribute): a result kept for the file is stale once one of them changes (the result cache
    records them)."""
    if b"cuda" not in source:
        return []
    importer = os.path.abspath(path)
    found = set()
    for level, module, names in imports_in_text(source):
        for name in names:
            found.update(_files_on_the_way(importer, level, module, name))
    for path_read in list(found):  # a class's module reads its bases' names from its star imports
        facts = _FACTS.get(path_read)
        for level, module in facts.star_imports if facts is not None else ():
            further = project_files_of(path_read, level, module, ())
            if further:
                found.add(further[-1])
    return sorted(found)


def _find(importer: str, level: int, module: str, name: str) -> Optional[ImportedClass]:
    files = _files_on_the_way(importer, level, module, name)
    if not files:
        return None
    facts = _FACTS.get(files[-1])
    return facts.classes.get(name) if facts is not None else None


def _files_on_the_way(importer: str, level: int, module: str, name: str) -> list[str]:
    """The module `from <module> import <name>` reads `name` from, and the one it re-exports the
    class from, if it does (one step: `from .trial import Trial` or `from .trial import *`)."""
    files = project_files_of(importer, level, module, ())
    if not files:
        return []
    facts = _FACTS.get(files[-1])
    if facts is None or name in facts.classes or name in facts.builders:
        return files[-1:]
    if name in facts.reexports:
        sources = [facts.reexports[name]] if facts.reexports[name][2] == name else []
    else:
        sources = [(star_level, star_module, name) for star_level, star_module in facts.star_imports]
    for source_level, source_module, _name in sources:
        further = project_files_of(files[-1], source_level, source_module, ())
        deeper = _FACTS.get(further[-1]) if further else None
        if deeper is not None and (name in deeper.classes or name in deeper.builders):
            return [files[-1], further[-1]]
    return files[-1:]


def _read(path: str) -> _ModuleClasses:
    tree = parse_file(path)
    classes, reexports, stars, builders = {}, {}, [], set()
    imported = _imported_names(tree) if tree is not None else {}
    if tree is not None:
        imported = {**_star_imported_names(path, tree), **imported}
    for statement in tree.body if tree is not None else ():
        if isinstance(statement, ast.ClassDef):
            classes[statement.name] = _class_facts(statement, imported)
        if isinstance(statement, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) \
                and ast_builds_cuda(statement, imported):
            builders.add(statement.name)
        elif isinstance(statement, ast.ImportFrom):
            for alias in statement.names:
                if alias.name == "*":
                    stars.append((statement.level or 0, statement.module or ""))
                else:
                    reexports[alias.asname or alias.name] = (statement.level or 0, statement.module or "", alias.name)
    return _ModuleClasses(classes, reexports, tuple(stars), frozenset(builders))


_FACTS: FileFacts[_ModuleClasses] = FileFacts(_read, 1024)


def _imported_names(tree: ast.Module) -> dict[str, str]:
    """What each name the module's top-level imports bind stands for: `nn` -> "torch.nn"."""
    names = {}
    for statement in tree.body:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                top = alias.name.split(".")[0]  # `import torch.nn` binds `torch`
                names[alias.asname or top] = alias.name if alias.asname else top
        elif isinstance(statement, ast.ImportFrom) and not statement.level and statement.module:
            for alias in statement.names:
                names[alias.asname or alias.name] = f"{statement.module}.{alias.name}"
    return names


def _star_imported_names(path: str, tree: ast.Module) -> dict[str, str]:
    """The imported names that the module's star imports of its own project's modules bring, one
    step (trankit 1.1.2's layers/seq2seq.py gets `nn` from `from
    trankit.utils.mwt_lemma_utils.seq2seq_utils import *`, whose `import torch.nn as nn` it is);
    a module's `__all__` limits them, and `_names` stay behind as Python leaves them."""
    names = {}
    for statement in tree.body:
        if not (isinstance(statement, ast.ImportFrom) and any(alias.name == "*" for alias in statement.names)):
            continue
        files = project_files_of(path, statement.level or 0, statement.module or "", ())
        source = parse_file(files[-1]) if files and files[-1] != path else None
        if source is None:
            continue
        exported = _all_of(source)
        names.update((name, target) for name, target in _imported_names(source).items()
                     if (name in exported if exported is not None else not name.startswith("_")))
    return names


def _all_of(tree: ast.Module) -> frozenset | None:
    """The names of the module's literal `__all__`, or None where it has none."""
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__"
                                                     for t in statement.targets) \
                and isinstance(statement.value, (ast.List, ast.Tuple)):
            return frozenset(e.value for e in statement.value.elts if isinstance(e, ast.Constant))
    return None


def _qualified(base: ast.expr, imported: dict[str, str]) -> str:
    parts = dotted_parts(base) or ["?"]
    return ".".join([imported.get(parts[0], parts[0]), *parts[1:]])


def _class_facts(cls: ast.ClassDef, imported: dict[str, str]) -> ImportedClass:
    bases = [_qualified(base, imported) for base in cls.bases]
    methods = frozenset(stmt.name for stmt in cls.body if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)))
    torch_module = _TORCH_MODULE in bases
    cuda = next((stmt for stmt in cls.body if isinstance(stmt, ast.FunctionDef) and stmt.name == "cuda"), None)
    return ImportedClass(
        name=cls.name,
        plain=all(base == "object" for base in bases) and not cls.keywords,
        torch_module=torch_module,
        cuda_adds_work=cuda is not None and not _adds_nothing(cuda, torch_module),
        methods=methods,
        text_attributes=_text_attributes(cls),
    )


def _text_attributes(cls: ast.ClassDef) -> frozenset:
    """The attributes every `self.<name> = ...` of the class's methods stores a string literal or
    a parameter of that method whose default is one in (nlpaug 0.0.15's Augmenter: `def
    __init__(self, ..., device='cpu', ...)`, `self.device = device`): the program's own strings,
    which its subclasses in other modules compare (`if self.device == 'cuda':`)."""
    text, other = set(), set()
    for method in cls.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        defaults = _string_defaults(method.args)
        for node in ast.walk(method):
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            for target in targets:
                for stored in ast.walk(target):
                    if not (isinstance(stored, ast.Attribute) and _is_self(stored.value)):
                        continue
                    value = node.value if isinstance(node, ast.Assign) and target is stored else None
                    own = isinstance(value, ast.Constant) and isinstance(value.value, str) \
                        or isinstance(value, ast.Name) and value.id in defaults
                    (text if own else other).add(stored.attr)
    return frozenset(text - other)


def _string_defaults(arguments: ast.arguments) -> frozenset:
    """The parameters whose default is a string literal."""
    positional = [*arguments.posonlyargs, *arguments.args]
    pairs = [*zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults),
             *zip(arguments.kwonlyargs, arguments.kw_defaults)]
    return frozenset(parameter.arg for parameter, default in pairs
                     if isinstance(default, ast.Constant) and isinstance(default.value, str))


def _adds_nothing(function: ast.FunctionDef, torch_module: bool) -> bool:
    """cuda_overrides.adds_nothing on Python's ast: only `super().cuda(...)`, `return self`, an
    abstract body, and in a Module moving its own `self.<submodule>`, which the base's npu()
    moves as well."""
    for stmt in function.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # a docstring, or `...`
        if isinstance(stmt, ast.Pass) or isinstance(stmt, ast.Raise):
            continue
        if isinstance(stmt, ast.Return) and (_is_self(stmt.value) or _super_cuda(stmt.value)):
            continue
        if isinstance(stmt, ast.Expr) and (_super_cuda(stmt.value)
                                           or torch_module and _moves_own_attribute(stmt.value)):
            continue
        return False
    return True


def _is_self(value) -> bool:
    return isinstance(value, ast.Name) and value.id == "self"


def _cuda_receiver(value):
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "cuda":
        return value.func.value
    return None


def _super_cuda(value) -> bool:
    receiver = _cuda_receiver(value)
    return isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super"


def _moves_own_attribute(value) -> bool:
    receiver = _cuda_receiver(value)
    return isinstance(receiver, ast.Attribute) and _is_self(receiver.value)
