"""Return-kind classification for the generator: "T" (a Tensor), "S" (self), "O" (other).

Used only by ``generate.py``. torch's factories are C builtins without runtime annotations,
so their return types come from the ``.pyi`` files shipped inside the torch wheel; Python
functions are classified from their ``__annotations__``.
"""

from __future__ import annotations

import ast
import os
import typing

TENSOR, SELF, OTHER = "T", "S", "O"

_TENSOR_NAMES = frozenset({"Tensor", "torch.Tensor", "_Tensor", "torch._tensor.Tensor"})
# Methods annotated with a TypeVar (``T``, bound to the class) or ``Self`` return self.
_SELF_NAMES = frozenset({"Self", "typing.Self", "typing_extensions.Self", "T", "_T"})


def _from_string(text: str) -> str:
    text = text.strip().strip("'\"")
    if text in _TENSOR_NAMES:
        return TENSOR
    if text in _SELF_NAMES:
        return SELF
    return OTHER


def from_annotation(ann: object) -> str:
    """Classify a runtime return annotation (a class, a TypeVar, typing.Self or a string)."""
    if ann is None:
        return OTHER
    if isinstance(ann, str):
        return _from_string(ann)
    if isinstance(ann, typing.TypeVar) or ann is getattr(typing, "Self", object()):
        return SELF
    if isinstance(ann, type):
        return TENSOR if ann.__module__.startswith("torch") and ann.__name__ == "Tensor" else OTHER
    return OTHER


def _from_node(node: ast.expr | None) -> str:
    if node is None:
        return OTHER
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return _from_string(node.value)
    if isinstance(node, (ast.Name, ast.Attribute)):
        return _from_string(ast.unparse(node))
    return OTHER


def _merge(table: dict[str, str], name: str, kind: str) -> None:
    # Overloads that disagree (e.g. torch.max: Tensor or a named tuple) count as "other".
    old = table.get(name)
    table[name] = kind if old in (None, kind) else OTHER


def _scan_body(body: list[ast.stmt]) -> dict[str, str]:
    table: dict[str, str] = {}
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            _merge(table, stmt.name, _from_node(stmt.returns))
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            # Attributes declared in a class body (``data: Tensor``) are properties.
            _merge(table, stmt.target.id, _from_node(stmt.annotation))
    return table


class PyiTables:
    """Return kinds read from the ``.pyi`` files of one torch installation."""

    def __init__(self, torch_dir: str) -> None:
        def parse(rel: str) -> ast.Module:
            path = os.path.join(torch_dir, *rel.split("/"))
            if not os.path.exists(path):
                return ast.Module(body=[], type_ignores=[])
            with open(path, encoding="utf-8") as handle:
                return ast.parse(handle.read())

        c_init = parse("_C/__init__.pyi")
        self.functions: dict[str, dict[str, str]] = {
            "torch": {**_scan_body(c_init.body), **_scan_body(parse("_C/_VariableFunctions.pyi").body)},
            "torch.nn.functional": {
                **_scan_body(parse("_C/_nn.pyi").body),
                **_scan_body(parse("nn/functional.pyi").body),
            },
        }
        self.classes: dict[str, dict[str, str]] = {
            stmt.name: _scan_body(stmt.body) for stmt in c_init.body if isinstance(stmt, ast.ClassDef)
        }

    def function(self, name: str, modules: tuple[str, ...]) -> str | None:
        """Return kind of builtin ``name`` declared in the stubs of any of ``modules``."""
        for module in modules:
            kind = self.functions.get(module, {}).get(name)
            if kind is not None:
                return kind
        return None

    def member(self, class_name: str, name: str) -> str | None:
        return self.classes.get(class_name, {}).get(name)
