"""Which files can reach astroid at all: two cheap stages before the expensive one.

1. A substring scan of the text for the trigger words of the enabled rules.
2. A walk of Python's own `ast` tree: the words must appear as an identifier
   (a name, an attribute, a keyword argument, an imported module) or inside a
   string that is not a docstring. `use_cuda = False` or a comment that says
   "cuda" no longer costs an astroid build, which is 16 times the parse.
"""
from __future__ import annotations

import ast

_DOC_PARENTS = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, _DOC_PARENTS) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def words_in_tree(tree: ast.AST) -> tuple[set[str], str]:
    """(identifiers, all non-docstring string constants joined) of a module."""
    identifiers: set[str] = set()
    strings: list[str] = []
    docstrings = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            identifiers.add(node.id)
        elif isinstance(node, ast.Attribute):
            identifiers.add(node.attr)
        elif isinstance(node, ast.keyword):
            if node.arg:
                identifiers.add(node.arg)
        elif isinstance(node, ast.alias):
            identifiers.update(node.name.split("."))
            if node.asname:
                identifiers.add(node.asname)
        elif isinstance(node, ast.ImportFrom):
            if node.module:
                identifiers.update(node.module.split("."))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            strings.append(node.value)
    return identifiers, "\x00".join(strings)


def tree_could_fire(tree: ast.AST, triggers: frozenset[str]) -> bool:
    identifiers, strings = words_in_tree(tree)
    if not identifiers.isdisjoint(triggers):
        return True
    return any(word in strings for word in triggers)
