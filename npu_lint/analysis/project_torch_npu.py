"""Programs that get torch_npu through a package of their own project.

ColossalAI's test programs start with `from colossalai.initialize import launch`: importing any
module of the `colossalai` package runs colossalai/__init__.py, which imports
colossalai.accelerator, whose npu_accelerator.py runs `import torch_npu`. Such a program has
torch_npu loaded before it touches a device.

The project's modules are found as Python finds them when the program runs from the project's
folder: a relative import from the importing file's package, an absolute one from the nearest
folder, the importing file's own or a parent, that holds the top package (`colossalai/__init__.py`)
or module. They are read with Python's own `ast`, and only their module-level imports are
followed (not those inside functions or classes, which run later or never), through at most
MAX_MODULES modules per program.
"""
from __future__ import annotations

import ast
import os
import re
from typing import Iterable, Optional

from astroid import nodes

from npu_lint.core.file_facts import FileFacts
from npu_lint.core.python_ast import parse_file

TORCH_NPU = "torch_npu"
MAX_MODULES = 1000
MAX_CACHED = 4096
_ROOTS: dict[tuple[str, str], Optional[str]] = {}


class _Facts:
    """What running one module file imports: torch_npu itself, and which project modules."""

    def __init__(self, loads_torch_npu: bool, imports: tuple[tuple[int, str, tuple[str, ...]], ...]):
        self.loads_torch_npu = loads_torch_npu
        self.imports = imports  # (level, module, imported names)
        self.children: list[str] | None = None  # the project files those imports run, once resolved


def loads_torch_npu_through_project(module: nodes.Module) -> bool:
    """Does importing the project modules that `module` imports at its top run `import torch_npu`?"""
    path = getattr(module, "file", None)
    if not path or not os.path.isfile(path):
        return False
    imports = tuple(_astroid_imports(module))
    return _walk(path, imports, stop_at_torch_npu=True)[0]


def project_modules_reached(path: str) -> list[str]:
    """The project modules whose module-level imports decide the answer above for the file at
    `path`: a result that depends on them (NPU120) is stale once one of them changes."""
    facts = _FACTS.get(path)
    if facts is None:
        return []
    return sorted(_walk(path, facts.imports, stop_at_torch_npu=False)[1])


def _walk(path: str, imports, stop_at_torch_npu: bool) -> tuple[bool, set[str]]:
    """(whether a reached module imports torch_npu, the modules reached)."""
    pending = [file for level, name, names in imports for file in project_files_of(path, level, name, names)]
    seen: set[str] = set()
    found = False
    while pending and len(seen) < MAX_MODULES:
        file = pending.pop()
        if file in seen:
            continue
        seen.add(file)
        facts = _FACTS.get(file)
        if facts is None:
            continue
        if facts.loads_torch_npu:
            found = True
            if stop_at_torch_npu:
                break
        if facts.children is None:  # every program of a project walks the same modules
            facts.children = [child for level, name, names in facts.imports for child in project_files_of(file, level, name, names)]
        pending.extend(facts.children)
    return found, seen


def _names_torch_npu(level: int, name: str, names: tuple[str, ...]) -> bool:
    if level:
        return False
    return name.split(".", 1)[0] == TORCH_NPU


def _astroid_imports(module: nodes.Module) -> Iterable[tuple[int, str, tuple[str, ...]]]:
    stack = list(module.body)
    while stack:
        node = stack.pop()
        if isinstance(node, nodes.Import):
            for name, _alias in node.names:
                yield 0, name, ()
        elif isinstance(node, nodes.ImportFrom):
            yield node.level or 0, node.modname or "", tuple(name for name, _alias in node.names)
        elif not isinstance(node, (nodes.FunctionDef, nodes.ClassDef, nodes.Lambda)):
            stack.extend(child for child in node.get_children() if child.is_statement or _holds_statements(child))


def _holds_statements(node: nodes.NodeNG) -> bool:
    return isinstance(node, nodes.ExceptHandler)


def _read(path: str) -> Optional[_Facts]:
    tree = parse_file(path)
    if tree is None:
        return None
    imports = tuple(_ast_imports(tree.body))
    return _Facts(any(_names_torch_npu(*found) for found in imports), imports)


_FACTS: FileFacts[Optional[_Facts]] = FileFacts(_read, MAX_CACHED)


def _ast_imports(body: list) -> Iterable[tuple[int, str, tuple[str, ...]]]:
    for stmt in body:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                yield 0, alias.name, ()
        elif isinstance(stmt, ast.ImportFrom):
            yield stmt.level or 0, stmt.module or "", tuple(alias.name for alias in stmt.names)
        elif not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for field in ("body", "orelse", "finalbody", "handlers"):
                yield from _ast_imports(getattr(stmt, field, None) or [])


# An import statement found in the bytes, for result-cache dependencies (no parse): `from .ops
# import (a,\n b)` with its parentheses. Group 1 is its indentation (a block may guard it).
_IMPORT_LINE = re.compile(rb"^([ \t]*)(?:from[ \t]+(\.*)[ \t]*([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]+)"
                          rb"|import[ \t]+([^\n#;]+))", re.MULTILINE)


def imports_in_text(source: bytes, in_blocks_only: bool = False) -> Iterable[tuple[int, str, tuple[str, ...]]]:
    """(level, module, imported names) of each import statement of `source`, read off its lines
    (`import a.b` gives (0, "a.b", ())); with `in_blocks_only`, only the indented ones."""
    for match in _IMPORT_LINE.finditer(source):
        if in_blocks_only and not match.group(1):
            continue
        if match.group(5) is not None:
            yield from ((0, name, ()) for name in _imported_words(match.group(5)))
        elif match.group(2) or match.group(3):
            yield len(match.group(2)), match.group(3).decode("ascii", "replace"), tuple(_imported_words(match.group(4)))


def _imported_words(text: bytes) -> list[str]:
    """`(a as b, c)` -> ["a", "c"]: the imported names, without their `as` names."""
    words = text.decode("ascii", "replace").strip("() \t\\").replace("\\\n", " ").split(",")
    return [word.split()[0] for word in words if word.split() and word.split()[0] != "*"]


def project_files_of(importer: str, level: int, name: str, names: tuple[str, ...]) -> list[str]:
    """The project files that `from <level dots><name> import <names>` (or `import <name>`) in
    `importer` runs: each package's `__init__.py` on the way, the module, and the names that are
    submodules. Empty for a library."""
    parts = name.split(".") if name else []
    if level:
        base = os.path.dirname(importer)
        for _ in range(level - 1):
            base = os.path.dirname(base)
    else:
        if not parts:
            return []
        base = _root_of(os.path.dirname(importer), parts[0])
        if base is None:
            return []
    files = []
    folder = base
    for index, part in enumerate(parts):
        package = os.path.join(folder, part, "__init__.py")
        if os.path.isfile(package):
            files.append(package)
            folder = os.path.join(folder, part)
            continue
        module = os.path.join(folder, part + ".py")
        if index == len(parts) - 1 and os.path.isfile(module):
            files.append(module)
        return files  # a module is a leaf; names imported from it are its attributes
    for imported in names:
        for candidate in (os.path.join(folder, imported + ".py"), os.path.join(folder, imported, "__init__.py")):
            if os.path.isfile(candidate):
                files.append(candidate)
                break
    return files


def _root_of(folder: str, top: str) -> Optional[str]:
    """The nearest of `folder` and its parents that holds the package or module `top`."""
    key = (folder, top)
    if key not in _ROOTS:
        if len(_ROOTS) >= MAX_CACHED:
            _ROOTS.clear()
        _ROOTS[key] = _find_root(folder, top)
    return _ROOTS[key]


def _find_root(folder: str, top: str) -> Optional[str]:
    while True:
        if os.path.isfile(os.path.join(folder, top, "__init__.py")) or os.path.isfile(os.path.join(folder, top + ".py")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent
