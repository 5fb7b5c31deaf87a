"""Names a module gets from `from x import *` of a module of its own project.

fastai's modules get `torch`, `nn` and `F` only through `from .torch_imports import *` (or
`from ..basics import *`, several star imports deep): without following them, every
`torch.cuda.*` there is invisible, while rules that match words alone still fire nearby.

A star-imported module is found next to the file (relative imports, and absolute ones from the
file's folder or its package root, as Python finds them when the project runs) and read with
Python's own `ast`, top-level statements only. The engine does not ask astroid for it: building
another project module costs 16 times its parse, and astroid's cache would carry it into every
file linted afterwards. Library modules (`from torch import *`) are not followed: their `__all__`
names functions, not the modules `torch.cuda` chains start at.

Only import bindings are answered: `torch` -> "torch", `nn` -> "torch.nn". A name the module
binds otherwise (an assignment, a def) answers None, like a module's own name in `names.py`; the
None an `except ImportError:` binds when the import fails (`maybe_torch = None`) does not count
there either: where the name is used as a module, it is the import.
"""
from __future__ import annotations

import ast
import os
from typing import Optional

from astroid import nodes

from npu_lint.core.file_facts import FileFacts
from npu_lint.core.records import record
from npu_lint.core.python_ast import parse_file

MAX_DEPTH = 6  # distributed -> basics -> data.all -> torch_basics -> torch_imports is fastai's 4
MAX_CACHED = 2048
_UNKNOWN = object()  # bound, but not by one import: stop looking, answer None


@record(frozen=True)
class StarImport:
    level: int
    module: str  # "" for `from . import *`
    line: int


@record(frozen=True)
class _Summary:
    """The top-level bindings of one module file."""

    bindings: dict  # name -> qualified name of its one import, or _UNKNOWN
    stars: tuple[StarImport, ...]  # in source order
    exports: Optional[frozenset]  # a literal `__all__`; None: the public names
    all_unreadable: bool  # `__all__` is computed: what it exports is unknown


_ATTRIBUTE = "_npu_star_bindings"


def star_binding(module: nodes.Module, name: str, stars: tuple[StarImport, ...]) -> Optional[str]:
    """What the star imports `stars` of `module` bind `name` to, when an import binds it there."""
    cache = getattr(module, _ATTRIBUTE, None)
    if cache is None:
        cache = {}
        setattr(module, _ATTRIBUTE, cache)
    key = (name, stars)
    if key not in cache:
        folder = os.path.dirname(module.file) if module.file and os.path.isfile(module.file) else None
        found = _through(folder, stars, name, 0, set()) if folder else None
        cache[key] = found if isinstance(found, str) else None
    return cache[key]


def _through(folder: str, stars, name: str, depth: int, seen: set) -> object:
    """The binding of `name` by the last of `stars` that provides it; None if none does."""
    if depth > MAX_DEPTH:
        return None
    for star in reversed(stars):  # the last star import that binds the name wins
        path = project_module_file(folder, star)
        if path is None or path in seen:
            continue
        found = _provided(path, name, depth, seen | {path})
        if found is not None:
            return found
    return None


def _provided(path: str, name: str, depth: int, seen: set) -> object:
    summary = module_summary(path)
    if summary is None:
        return None
    if summary.all_unreadable:
        exported = name in summary.bindings or _through(os.path.dirname(path), summary.stars, name, depth + 1, seen)
        return _UNKNOWN if exported else None
    if summary.exports is not None and name not in summary.exports:
        return None
    if summary.exports is None and name.startswith("_"):
        return None
    if name in summary.bindings:
        return summary.bindings[name]
    return _through(os.path.dirname(path), summary.stars, name, depth + 1, seen)


def project_module_file(folder: str, star: StarImport) -> Optional[str]:
    """The project file a star import reads, else None (a library, or nothing found)."""
    parts = star.module.split(".") if star.module else []
    if star.level:
        base = folder
        for _ in range(star.level - 1):
            base = os.path.dirname(base)
        roots = [base]
    else:
        roots = [folder, _package_root(folder)]
    for root in roots:
        candidate = os.path.join(root, *parts)
        for path in (candidate + ".py", os.path.join(candidate, "__init__.py")):
            if parts or path.endswith("__init__.py"):
                if os.path.isfile(path):
                    return os.path.normpath(path)
    return None


def _package_root(folder: str) -> str:
    """The folder that holds the top package `folder` belongs to (`folder` when it is none)."""
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return folder


def _read_summary(path: str) -> Optional[_Summary]:
    tree = parse_file(path)
    if tree is None:
        return None
    return _summarize(tree)


_SUMMARIES: FileFacts[Optional[_Summary]] = FileFacts(_read_summary, MAX_CACHED)


def module_summary(path: str) -> Optional[_Summary]:
    """The top-level import bindings and star imports of a project file (kept while it is unchanged)."""
    return _SUMMARIES.get(path)


def _summarize(tree: ast.Module) -> _Summary:
    bindings: dict[str, object] = {}
    stars: list[StarImport] = []
    exports: Optional[frozenset] = None
    all_unreadable = False

    def bind(local: str, qname: object) -> None:
        if bindings.get(local, qname) != qname:
            qname = _UNKNOWN  # bound twice, differently
        bindings[local] = qname

    # `except ImportError: torch = None`: used as a module, the name is the import
    fallbacks = {id(stmt) for handler in ast.walk(tree) if isinstance(handler, ast.ExceptHandler)
                 for stmt in handler.body if isinstance(stmt, ast.Assign)
                 and isinstance(stmt.value, ast.Constant) and stmt.value.value is None}
    for stmt in _top_level(tree.body):
        if id(stmt) in fallbacks:
            continue
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    bind(alias.asname, alias.name)
                else:
                    root = alias.name.split(".", 1)[0]
                    bind(root, root)  # `import torch.nn` binds `torch`
        elif isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                if alias.name == "*":
                    stars.append(StarImport(stmt.level, stmt.module or "", stmt.lineno))
                elif stmt.level:
                    bind(alias.asname or alias.name, _UNKNOWN)  # the project's own module
                else:
                    bind(alias.asname or alias.name, f"{stmt.module}.{alias.name}")
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bind(stmt.name, _UNKNOWN)
        elif isinstance(stmt, ast.ExceptHandler):
            if stmt.name:
                bind(stmt.name, _UNKNOWN)
        else:
            for target in _targets(stmt):
                for node in ast.walk(target):
                    if isinstance(node, ast.Name):
                        if node.id == "__all__":
                            exports, all_unreadable = _literal_names(stmt, exports)
                        else:
                            bind(node.id, _UNKNOWN)
    return _Summary(bindings, tuple(stars), exports, all_unreadable)


def _top_level(body: list):
    """The module's statements, also inside `if`, `try`, `with` and loops (not defs), and the
    `except` clauses that may bind a name."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            yield from _top_level(getattr(stmt, field, None) or [])


def _targets(stmt: ast.stmt) -> list[ast.AST]:
    if isinstance(stmt, ast.Assign):
        return stmt.targets
    if isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        return [stmt.target]
    if isinstance(stmt, (ast.For, ast.AsyncFor)):
        return [stmt.target]
    if isinstance(stmt, (ast.With, ast.AsyncWith)):
        return [item.optional_vars for item in stmt.items if item.optional_vars is not None]
    return []


def _literal_names(stmt: ast.stmt, before: Optional[frozenset]) -> tuple[Optional[frozenset], bool]:
    """`__all__ = [...]` (or `+= [...]` on a literal one): its names, else unreadable."""
    value = getattr(stmt, "value", None)
    if isinstance(value, (ast.List, ast.Tuple)) and all(
            isinstance(item, ast.Constant) and isinstance(item.value, str) for item in value.elts):
        names = frozenset(item.value for item in value.elts)
        if isinstance(stmt, ast.AugAssign):
            return (before | names, False) if before is not None else (None, True)
        return names, False
    return None, True


def star_dependencies(path: str) -> list[str]:
    """Every project file whose top-level imports can bind names in `path` through star imports,
    transitively (the files a result for `path` depends on besides its own text), sorted."""
    found: set[str] = set()
    pending = [os.path.normpath(path)]
    while pending and len(found) < MAX_CACHED:
        current = pending.pop()
        summary = module_summary(current)
        if summary is None:
            continue
        for star in summary.stars:
            target = project_module_file(os.path.dirname(current), star)
            if target is not None and target not in found and target != os.path.normpath(path):
                found.add(target)
                pending.append(target)
    return sorted(found)
