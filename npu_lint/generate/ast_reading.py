"""Small readers of Python source parsed with `ast`: literal lists, dotted names, public names.

Nothing here imports or executes the code it reads.
"""
from __future__ import annotations

import ast
from typing import Iterable, List, Optional, Set

from npu_lint.core.python_ast import dotted_name

__all__ = ["dotted_name"]  # re-exported: the generators read names through this module


def string_list(node: ast.AST) -> Optional[List[str]]:
    """The elements of a list/tuple literal made only of string constants, else None."""
    if not isinstance(node, (ast.List, ast.Tuple)):
        return None
    values = []
    for element in node.elts:
        if not (isinstance(element, ast.Constant) and isinstance(element.value, str)):
            return None
        values.append(element.value)
    return values


def assigned_names(statement: ast.stmt) -> List[str]:
    """Plain names bound by an assignment statement (`x = ...`, `x: T = ...`)."""
    if isinstance(statement, ast.Assign):
        targets: Iterable[ast.AST] = statement.targets
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        targets = [statement.target]
    else:
        return []
    names = []
    for target in targets:
        if isinstance(target, ast.Name):
            names.append(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            names.extend(e.id for e in target.elts if isinstance(e, ast.Name))
    return names


def module_all(tree: ast.Module) -> Optional[List[str]]:
    """`__all__` of a module when every statement that builds it is a string literal, else None.

    Follows `__all__ = [...]`, `__all__ += [...]`, `__all__.extend([...])` and `__all__.append("x")`
    at module level, because torch_npu grows some lists that way.
    """
    names: Optional[List[str]] = None
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and "__all__" in assigned_names(statement):
            names = string_list(statement.value)
            if names is None:
                return None
        elif (isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name)
              and statement.target.id == "__all__"):
            extra = string_list(statement.value)
            if names is None or extra is None:
                return None
            names += extra
        elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            call = statement.value
            if dotted_name(call.func) == "__all__.extend" and len(call.args) == 1:
                extra = string_list(call.args[0])
            elif dotted_name(call.func) == "__all__.append" and len(call.args) == 1:
                extra = string_list(ast.List(elts=call.args))
            else:
                continue
            if names is None or extra is None:
                return None
            names += extra
    return names


def top_level_public_names(tree: ast.Module) -> Set[str]:
    """Names a module defines or imports by name at top level, without a leading underscore.

    Plain `import x` is left out: it binds a module, not an API of this one.
    """
    names: Set[str] = set()
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
        elif isinstance(statement, ast.ImportFrom):
            names.update(alias.asname or alias.name for alias in statement.names if alias.name != "*")
        else:
            names.update(assigned_names(statement))
    return {name for name in names if not name.startswith("_")}


def module_level_names(tree: ast.Module, package: str) -> Set[str]:
    """Names a module binds at top level and keeps: functions, classes, assignments, and names
    imported from `package` (its own API, not `os` or `typing`), minus those `del` removes.

    Private names count: `torch.npu._lazy_call` exists whether or not `__all__` lists it.
    """
    names: Set[str] = set()
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
        elif isinstance(statement, ast.ImportFrom):
            own = statement.level > 0 or (statement.module or "").split(".")[0] == package
            if own:
                names.update(alias.asname or alias.name for alias in statement.names if alias.name != "*")
        elif isinstance(statement, ast.Delete):
            names.difference_update(t.id for t in statement.targets if isinstance(t, ast.Name))
        else:
            names.update(assigned_names(statement))
    return {name for name in names if not (name.startswith("__") and name.endswith("__"))}


def public_names(tree: ast.Module) -> Set[str]:
    """`__all__` when it is a literal, otherwise the top-level public names."""
    names = module_all(tree)
    return set(names) if names is not None else top_level_public_names(tree)
