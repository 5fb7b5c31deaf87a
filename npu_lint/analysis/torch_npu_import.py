"""Where `import torch_npu` goes: after the module's last top-level torch import."""
from __future__ import annotations

from astroid import nodes

from npu_lint.core.findings import Edit, Position

TORCH_NPU = "torch_npu"


def _names(stmt: nodes.NodeNG) -> list[str]:
    if isinstance(stmt, nodes.Import):
        return [name for name, _ in stmt.names]
    if isinstance(stmt, nodes.ImportFrom) and not stmt.level:
        return [stmt.modname]
    return []


def _is_package(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def imports_torch_npu(module: nodes.Module) -> bool:
    return any(
        _is_package(name, TORCH_NPU)
        for stmt in module.nodes_of_class((nodes.Import, nodes.ImportFrom))
        for name in _names(stmt)
    )


def last_torch_import(module: nodes.Module) -> nodes.NodeNG | None:
    """The last top-level `import torch...` / `from torch... import` statement."""
    found = None
    for stmt in module.body:
        if any(_is_package(name, "torch") for name in _names(stmt)):
            found = stmt
    return found


def insertion_edit(stmt: nodes.NodeNG, line_text: str, newline: str = "\n",
                   statement: str = f"import {TORCH_NPU}") -> Edit:
    """Insert an import statement on its own line after stmt."""
    end_line = stmt.end_lineno or stmt.lineno
    if line_text.endswith(("\n", "\r")):
        return Edit(Position(end_line + 1, 0), Position(end_line + 1, 0), f"{statement}{newline}")
    end = Position(end_line, len(line_text))  # the import is the file's last line
    return Edit(end, end, f"{newline}{statement}")
