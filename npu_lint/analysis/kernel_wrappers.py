"""Decorators of the project's own that apply a library's decorator to the function they decorate.

    def _jit(fn):                                     trl's kernels/chunked_logprob.py: Triton is
        return triton.jit(fn) if HAS_TRITON else fn   optional, so its kernels are compiled only
                                                      where it is installed
    @_jit
    def _forward_kernel(x_ptr, ...): ...              a Triton kernel, as under `@triton.jit`

`@_jit` answers "triton.jit". The wrapper is found in the module itself, or through an import of
a module of the project (`from .chunked_logprob import _jit`, in chunked_divergence.py), which is
read with Python's `ast` and never imported. `_jit` reports where it calls `triton.jit` (NPU402);
the kernels it compiles are that one finding, as a kernel under `@triton.jit` is.
"""
from __future__ import annotations

import ast
import os
import re
from typing import Iterator, Optional

from astroid import nodes

from npu_lint.analysis.names import bindings, qualified_name
from npu_lint.analysis.star_imports import StarImport, module_summary, project_module_file
from npu_lint.core.file_facts import FileFacts
from npu_lint.core.python_ast import parse_file


def applied_decorator(decorator: nodes.NodeNG) -> Optional[str]:
    """The qualified name of the decorator that the project's function named by `decorator`
    applies to the function it decorates (`triton.jit` for trl's `@_jit`), or None."""
    if not isinstance(decorator, nodes.Name):
        return None
    bound = bindings(decorator)
    if len(bound) != 1:
        return None
    binding = bound[0]
    if isinstance(binding, nodes.FunctionDef):
        return _applied_here(binding)
    if isinstance(binding, nodes.ImportFrom) and decorator.root().file:
        for name, alias in binding.names:
            if (alias or name) == decorator.name:
                return _applied_in_module(decorator.root().file, binding.level or 0, binding.modname, name)
    return None


def _applied_here(function: nodes.FunctionDef) -> Optional[str]:
    parameters = function.args.args or []
    if not parameters:
        return None
    for value in _returned(function.body, (nodes.Return,), (nodes.FunctionDef, nodes.ClassDef, nodes.Lambda)):
        if isinstance(value, nodes.Call) and len(value.args) == 1 and not value.keywords \
                and isinstance(value.args[0], nodes.Name) and value.args[0].name == parameters[0].name:
            qname = qualified_name(value.func)
            if qname:
                return qname
    return None


def _returned(body, returns: tuple, nested: tuple) -> Iterator:
    """The values the statements `body` return (each branch of `a if test else b`), not those of
    nested functions and classes. Works on astroid's nodes and on ast's."""
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, nested):
            continue
        if isinstance(node, returns):
            value = node.value
            while type(value).__name__ == "IfExp":  # the same name in astroid and ast
                yield value.body
                value = value.orelse
            if value is not None:
                yield value
            continue
        for field in ("body", "orelse", "handlers", "finalbody"):
            children = getattr(node, field, None)
            if isinstance(children, list):  # statements; an expression's `body` is no list
                stack.extend(children)


def _applied_in_module(importer: str, level: int, module: str, name: str) -> Optional[str]:
    path = project_module_file(os.path.dirname(importer), StarImport(level, module, 0))
    if path is None:
        return None
    function = _FUNCTIONS.get(path)
    summary = module_summary(path)
    if not function or summary is None or name not in function:
        return None
    root, _, rest = function[name].partition(".")
    binding = summary.bindings.get(root)  # `triton` -> "triton", `tl` -> "triton.language"
    if not isinstance(binding, str):
        return None
    return f"{binding}.{rest}" if rest else binding


def _read_functions(path: str) -> dict:
    """The module's top-level functions that return a call of a dotted name on their first
    parameter: function name -> that dotted name (`"_jit": "triton.jit"`)."""
    tree = parse_file(path)
    if tree is None:
        return {}
    found = {}
    for stmt in tree.body:
        if not isinstance(stmt, ast.FunctionDef) or not stmt.args.args:
            continue
        parameter = stmt.args.args[0].arg
        for value in _returned(stmt.body, (ast.Return,), (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                                          ast.Lambda)):
            if isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords \
                    and isinstance(value.args[0], ast.Name) and value.args[0].id == parameter:
                dotted = _dotted(value.func)
                if dotted:
                    found[stmt.name] = dotted
                    break
    return found


def _dotted(node: ast.expr) -> Optional[str]:
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return node.id if isinstance(node, ast.Name) else None


_FUNCTIONS: FileFacts[dict] = FileFacts(_read_functions, 2048)

# `@name` on a line of its own, and the modules a relative import reads: what a cached result
# depends on besides the file's own text (run/result_cache.py).
_BARE_DECORATOR = re.compile(rb"^[ \t]*@[A-Za-z_]\w*[ \t]*(?:#[^\n]*)?$", re.MULTILINE)
_RELATIVE_IMPORT = re.compile(rb"^[ \t]*from[ \t]+(\.+)([\w.]*)[ \t]+import\b", re.MULTILINE)


def wrapper_modules_read(path: str, source: bytes) -> list[str]:
    """The project modules that checking `source` may read for a decorator of theirs: those its
    relative imports name, when it has a decorator that is a bare name."""
    if b"@" not in source or not _BARE_DECORATOR.search(source):
        return []
    folder = os.path.dirname(os.path.abspath(path))
    found = set()
    for match in _RELATIVE_IMPORT.finditer(source):
        module = match.group(2).decode("ascii", "replace")
        target = project_module_file(folder, StarImport(len(match.group(1)), module, 0))
        if target is not None:
            found.add(target)
    return sorted(found)
