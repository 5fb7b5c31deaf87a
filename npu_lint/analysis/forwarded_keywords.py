"""The project's own callee that only hands a keyword on to a library's call.

pytorch-metric-learning 2.9's AccuracyCalculator builds `FaissKMeans(niter=20, gpu=self.device.type
== "cuda")`, a class of its own (utils/inference.py) whose `__init__(self, **kwargs)` keeps
`self.kwargs = kwargs` and whose `__call__` runs `faiss.Kmeans(d, k, **self.kwargs)`: the `gpu`
switch is faiss's, not code of the project that is ported with it. Also a parameter of that name
that the callee passes on as the same library call's keyword (`def kmeans(x, k, gpu): return
faiss.Kmeans(..., gpu=gpu)`), filled by keyword or by position (mmcls 0.x's vis_cam.py:
`init_cam(method, model, layers, use_cuda, ...)`), also where the callee is a library's class the
function picks from a table of the module's that holds only such classes (`cam_class =
METHOD_MAP[method]`, `METHOD_MAP = {'gradcam': GradCAM, ...}` of pytorch-grad-cam's imports).

The callee is a class or function of the linted module, or one that a relative import (or an
import of the project's own package) names, read with Python's own `ast` like a star-imported
module (star_imports.py). Any other use of the parameter, the `**kwargs` or the attribute that
keeps them (`kwargs.pop("gpu")`, `self.gpu = gpu`, a call of the project's own) makes the switch
the project's again.

The same reading tells a string that only names a key: torch-fidelity 0.4's `cuda =
get_kwarg("cuda", kwargs)` calls its own `def get_kwarg(name, kwargs): return kwargs.get(name,
DEFAULTS[name])`, so "cuda" is the name of a keyword argument, not a device. A parameter used
anywhere else (as a value, or as a key of the environment) keeps the string a value.
"""
from __future__ import annotations

import ast
import os
import re
import textwrap
from typing import Callable, Optional

from astroid import nodes

from npu_lint.analysis.names import bindings, imported_name
from npu_lint.analysis.star_imports import StarImport, module_summary, project_module_file
from npu_lint.config.project_scripts import own_packages
from npu_lint.core.file_facts import FileFacts

_TORCH = frozenset({"torch", "torch_npu"})
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_LOOKUPS = frozenset({"get", "pop"})  # read a key; a store (`m[p] = v`, setdefault) registers one
_ENVIRONMENT = re.compile(r"(^|[._])(env|envs|environ|environment)([._]|$)", re.IGNORECASE)

Resolver = Callable[[str], Optional[str]]


def hands_keyword_to_library(call: nodes.Call, keyword: str) -> bool:
    """Does the project's own callee of `call` use its `keyword` only as a library call's keyword?"""
    if not isinstance(call.func, nodes.Name):
        return False
    found = _definition(call.func)
    if found is None:
        return False
    definition, resolve = found
    own = own_packages(call.root().file or "") | _TORCH

    def library_name(local: str) -> bool:
        qname = resolve(local)
        return qname is not None and qname.split(".", 1)[0] not in own

    def library_call(node: ast.AST) -> bool:
        if not isinstance(node, ast.Call):
            return False
        root = node.func
        while isinstance(root, ast.Attribute):
            root = root.value
        if not isinstance(root, ast.Name):
            return False
        if library_name(root.id):
            return True
        picked = _table_picked_from(definition, root.id) if root is node.func else None
        values = _table_values(call.root(), picked) if picked and _defined_here(call) else None
        return bool(values) and all(library_name(value) for value in values)

    return _only_handed_on(definition, keyword, library_call)


def parameter_filled_by_position(call: nodes.Call, argument: nodes.NodeNG) -> Optional[str]:
    """The parameter of the project's own function called by `call` that the positional
    `argument` fills, or None (a class, a starred argument before it, a callee not told)."""
    if not isinstance(call.func, nodes.Name) or argument not in call.args:
        return None
    found = _definition(call.func)
    if found is None or not isinstance(found[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    return _parameter_filled(found[0].args, call, argument)


def _defined_here(call: nodes.Call) -> bool:
    """Does the linted module itself define the callee (so that a table it reads is this module's)?"""
    found = bindings(call.func) if isinstance(call.func, nodes.Name) else []
    return len(found) == 1 and isinstance(found[0], (nodes.ClassDef, nodes.FunctionDef)) \
        and found[0].parent is call.root()


def _table_picked_from(definition: ast.AST, local: str) -> Optional[str]:
    """`cam_class = METHOD_MAP[method.lower()]`, the function's only binding of `local`: the table's name."""
    stores = [node for node in ast.walk(definition) if isinstance(node, ast.Name) and node.id == local
              and isinstance(node.ctx, (ast.Store, ast.Del))]
    if len(stores) != 1:
        return None
    assignments = [node for node in ast.walk(definition) if isinstance(node, ast.Assign)
                   and len(node.targets) == 1 and node.targets[0] is stores[0]]
    value = assignments[0].value if assignments else None
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
        return value.value.id
    return None


def _table_values(module: nodes.Module, name: str) -> Optional[list[str]]:
    """The names a module-level dict `name = {key: Name, ...}`, bound once, holds as its values."""
    found = module.locals.get(name, ())
    if len(found) != 1 or not isinstance(found[0], nodes.AssignName) or not isinstance(found[0].parent, nodes.Assign):
        return None
    table = found[0].parent.value
    if not isinstance(table, nodes.Dict) or not table.items:
        return None
    values = [value for _key, value in table.items]
    return [value.name for value in values] if all(isinstance(value, nodes.Name) for value in values) else None


def used_only_as_key(call: nodes.Call, argument: nodes.NodeNG) -> bool:
    """Does the project's own function called by `call` use the parameter that `argument` fills
    only to look up a key of mappings other than the environment (`m[p]`, `m.get(p)`, `p in m`)?
    A store (`registry[p] = cls`) registers the name, which stays what it names."""
    if not isinstance(call.func, nodes.Name):
        return False
    found = _definition(call.func)
    if found is None or not isinstance(found[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    function = found[0]
    parameter = _parameter_filled(function.args, call, argument)
    if parameter is None:
        return False
    parents = _parents(function)
    uses = _name_uses(function, parameter)
    return bool(uses) and all(_key_of_plain_mapping(use, parents) for use in uses)


def _parameter_filled(arguments: ast.arguments, call: nodes.Call, argument: nodes.NodeNG) -> Optional[str]:
    positional = [*arguments.posonlyargs, *arguments.args]
    if argument in call.args:
        index = call.args.index(argument)
        starred = any(isinstance(earlier, nodes.Starred) for earlier in call.args[:index + 1])
        return positional[index].arg if index < len(positional) and not starred else None
    named = {parameter.arg for parameter in (*arguments.args, *arguments.kwonlyargs)}
    holder = argument.parent
    if isinstance(holder, nodes.Keyword) and holder.value is argument and holder.arg in named:
        return holder.arg
    return None


def _key_of_plain_mapping(use: ast.Name, parents: dict[int, ast.AST]) -> bool:
    holder = parents.get(id(use))
    if isinstance(holder, ast.Subscript) and holder.slice is use and isinstance(holder.ctx, ast.Load):
        mapping = holder.value
    elif isinstance(holder, ast.Call) and holder.args and holder.args[0] is use \
            and isinstance(holder.func, ast.Attribute) and holder.func.attr in _LOOKUPS:
        mapping = holder.func.value
    elif isinstance(holder, ast.Compare) and holder.left is use and len(holder.ops) == 1 \
            and isinstance(holder.ops[0], (ast.In, ast.NotIn)):
        mapping = holder.comparators[0]
    else:
        return False
    return not _ENVIRONMENT.search(ast.unparse(mapping))


def _definition(name: nodes.Name) -> Optional[tuple[ast.AST, Resolver]]:
    """The callee's definition as Python's ast, and what its module's imports bind a name to."""
    found = bindings(name)
    if len(found) != 1:
        return None
    binding = found[0]
    module = name.root()
    if isinstance(binding, (nodes.ClassDef, nodes.FunctionDef)) and binding.parent is module:
        try:
            tree = ast.parse(textwrap.dedent(binding.as_string()))
        except (SyntaxError, ValueError, RecursionError):
            return None
        return (tree.body[0], lambda local: _astroid_import(module, local)) if tree.body else None
    if not isinstance(binding, nodes.ImportFrom) or not module.file:
        return None
    if not binding.level and binding.modname.split(".", 1)[0] not in own_packages(module.file):
        return None
    original = next((imported for imported, alias in binding.names if (alias or imported) == name.name), None)
    path = project_module_file(os.path.dirname(os.path.abspath(module.file)),
                               StarImport(binding.level or 0, binding.modname or "", 0))
    if original is None or path is None:
        return None
    tree = _TREES.get(path)
    summary = module_summary(path)
    definition = next((statement for statement in (tree.body if tree else ())
                       if isinstance(statement, _DEFINITIONS) and statement.name == original), None)
    if definition is None or summary is None:
        return None
    return definition, lambda local: _bound(summary.bindings.get(local))


def _astroid_import(module: nodes.Module, local: str) -> Optional[str]:
    """What the module's top-level imports (absolute ones) bind `local` to, when they agree."""
    names = {imported_name(statement, local) for statement in module.locals.get(local, ())
             if isinstance(statement, (nodes.Import, nodes.ImportFrom))}
    if len(names) == 1 and len(module.locals.get(local, ())) == 1:
        return names.pop()
    return None


def _bound(value: object) -> Optional[str]:
    return value if isinstance(value, str) else None


def _read_tree(path: str) -> Optional[ast.Module]:
    try:
        with open(path, "rb") as file:
            return ast.parse(file.read())
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


_TREES: FileFacts[Optional[ast.Module]] = FileFacts(_read_tree, 256)


def _only_handed_on(definition: ast.AST, keyword: str, library_call: Callable[[ast.AST], bool]) -> bool:
    cls = definition if isinstance(definition, ast.ClassDef) else None
    function = definition if cls is None else next(
        (statement for statement in cls.body
         if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and statement.name == "__init__"), None)
    if function is None:
        return False
    arguments = function.args
    named = {argument.arg for argument in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    parents = _parents(function)
    if keyword in named:
        uses = _name_uses(function, keyword)
        return bool(uses) and all(_passed_as(use, parents, keyword, library_call) for use in uses)
    if arguments.kwarg is None:
        return False
    uses = _name_uses(function, arguments.kwarg.arg)
    if not uses:
        return False
    kept = []
    for use in uses:
        if _passed_as(use, parents, None, library_call):
            continue
        attribute = _kept_in_self(use, parents, function)
        if attribute is None or cls is None:
            return False
        kept.append(attribute)
    for attribute in kept:
        class_parents = _parents(cls)
        reads = [node for node in ast.walk(cls) if isinstance(node, ast.Attribute) and node.attr == attribute
                 and isinstance(node.value, ast.Name) and node.value.id == "self" and isinstance(node.ctx, ast.Load)]
        if not reads or not all(_passed_as(read, class_parents, None, library_call) for read in reads):
            return False
    return True


def _parents(tree: ast.AST) -> dict[int, ast.AST]:
    return {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _name_uses(function: ast.AST, name: str) -> list[ast.Name]:
    return [node for statement in function.body for node in ast.walk(statement)
            if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)]


def _passed_as(value: ast.AST, parents: dict[int, ast.AST], keyword: Optional[str],
               library_call: Callable[[ast.AST], bool]) -> bool:
    """Is `value` the value of keyword `keyword` (None: `**value`) in a library's call?"""
    holder = parents.get(id(value))
    return isinstance(holder, ast.keyword) and holder.arg == keyword and holder.value is value \
        and library_call(parents.get(id(holder)))


def _kept_in_self(value: ast.AST, parents: dict[int, ast.AST], function: ast.AST) -> Optional[str]:
    """`self.kwargs = kwargs` in `__init__`: the attribute's name."""
    statement = parents.get(id(value))
    if isinstance(statement, ast.Assign) and statement.value is value and len(statement.targets) == 1:
        target = statement.targets[0]
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self" \
                and statement in function.body:
            return target.attr
    return None
