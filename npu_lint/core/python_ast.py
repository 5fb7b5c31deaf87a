"""Readers of Python's own `ast` shared by the layers that parse with it (the engine's
prefilter, the library reader, migrate's reports, the generators)."""
from __future__ import annotations

import ast
from typing import Optional


def parse_file(path: str) -> Optional[ast.Module]:
    """Python's ast of the file at `path`, or None when it cannot be read or parsed (another
    module of the user's project, read for a fact about it: its problems are its own check's)."""
    try:
        with open(path, "rb") as file:
            return ast.parse(file.read())
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def dotted_parts(node: ast.AST) -> Optional[list[str]]:
    """["a", "b", "c"] for the attribute chain `a.b.c` on a name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    parts.reverse()
    return parts


def dotted_name(node: ast.AST) -> Optional[str]:
    """`a.b.c` for a chain of attribute accesses on a name, else None."""
    parts = dotted_parts(node)
    return ".".join(parts) if parts is not None else None
