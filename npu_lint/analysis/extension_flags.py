"""Flags that say whether a CUDA extension of the project's own has loaded.

    try:                                                      torchani 2.9's csrc/__init__.py,
        torch.ops.load_library(path / f"cuaev{suffix}")       whose setup.py builds
        CUAEV_IS_INSTALLED = True                             `torchani.cuaev` from `aev.cu`
    except Exception:
        CUAEV_IS_INSTALLED = False

Beside a device test (`device.type == "cuda" and CUAEV_IS_INSTALLED`) such a flag keeps the
extension's CUDA kernels off other devices, as a flag set where a CUDA-only library imports does.
Which extensions are CUDA's is what setup.py says (config/cuda_extensions.py): the library loaded
must be named for one of them. The flag is found in the module that reads it or in the project
module it imports it from (`from torchani.csrc import CUAEV_IS_INSTALLED`), read with Python's own
`ast`, as star_imports.py reads a project module.
"""
from __future__ import annotations

import ast
import os
import re
from typing import Iterator

from astroid import nodes

from npu_lint.analysis.names import bindings
from npu_lint.analysis.project_torch_npu import imports_in_text, project_files_of
from npu_lint.config.cuda_extensions import cuda_extensions
from npu_lint.config.project_scripts import project_root
from npu_lint.core.file_facts import FileFacts
from npu_lint.core.python_ast import parse_file

MAX_CACHED = 2048
_LOADERS = frozenset({"load_library"})  # torch.ops.load_library: a prebuilt extension's .so


def extension_of_flag(name: nodes.Name) -> str | None:
    """The project's CUDA extension whose loading `name` (a flag) says succeeded, or None."""
    for binding in bindings(name):
        if isinstance(binding, nodes.AssignName):
            path = getattr(binding.root(), "file", None)
            found = _flags(path).get(name.name) if path else None
        elif isinstance(binding, nodes.ImportFrom) and binding.modname:
            found = _imported_flag(binding, name.name)
        else:
            found = None
        if found:
            return found
    return None


def _imported_flag(statement: nodes.ImportFrom, bound: str) -> str | None:
    imported = next((name for name, alias in statement.names if (alias or name) == bound), None)
    path = getattr(statement.root(), "file", None)
    if imported is None or not path or not os.path.isfile(path):
        return None
    files = project_files_of(path, statement.level or 0, statement.modname, ())
    return _flags(files[-1]).get(imported) if files else None


def flag_modules_read(path: str, source: bytes) -> list[str]:
    """The project modules `extension_of_flag` may read a flag from for `source` (those its
    `from ... import` statements name), in a project whose setup.py builds a CUDA extension: a
    result kept for the file is stale once one of them changes (the result cache records them)."""
    if b"from" not in source or b"cuda" not in source.lower():
        return []
    root = project_root(os.path.dirname(os.path.abspath(path)))
    if root is None or not cuda_extensions(root):
        return []
    importer = os.path.abspath(path)
    found = set()
    for level, module, names in imports_in_text(source):
        files = project_files_of(importer, level, module, ()) if names else []  # `from ... import` only
        if files:
            found.add(files[-1])
    return sorted(found)


def _flags(path: str) -> dict[str, str]:
    return _FACTS.get(path) or {}


def _read(path: str) -> dict[str, str]:
    root = project_root(os.path.dirname(os.path.abspath(path)))
    tails = {extension.rsplit(".", 1)[-1] for extension in cuda_extensions(root)} if root else set()
    if not tails:
        return {}
    tree = parse_file(path)
    if tree is None:
        return {}
    found = {}
    for block in ast.walk(tree):
        if not isinstance(block, ast.Try):
            continue
        loaded = None
        for statement in block.body:
            loaded = loaded or _loaded_extension(statement, tails)
            if loaded and _sets_true(statement):
                found.update((target.id, loaded) for target in statement.targets if isinstance(target, ast.Name))
    return found


_FACTS: FileFacts[dict[str, str]] = FileFacts(_read, MAX_CACHED)


def _loaded_extension(statement: ast.stmt, tails: set[str]) -> str | None:
    """The extension a `torch.ops.load_library(...)` statement loads, when its path names one."""
    call = statement.value if isinstance(statement, ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr in _LOADERS):
        return None
    words = {word for text in _texts(call) for word in re.split(r"[^A-Za-z0-9_]+", text)}
    return next((tail for tail in sorted(tails) if tail in words), None)


def _texts(call: ast.Call) -> Iterator[str]:
    for node in ast.walk(call):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.value


def _sets_true(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Constant) \
        and statement.value.value is True
