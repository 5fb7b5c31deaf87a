"""Where `import torch_npu` goes: right after `import torch` (Ascend's manual step), and never after
a statement that reaches `torch.npu` while the module is imported.

`torch.npu` exists only once torch_npu has registered it. On targets whose torch does not load
torch_npu by itself (before 2.5), `from torch.npu.amp import autocast` above `import torch_npu`
stops the program with ModuleNotFoundError. So the import goes after the first `import torch` (or,
in a module that only does `from torch import ...`, its first torch import), unless a statement
before that point reaches CUDA or the NPU: then it goes right before that statement. The fixes
turn `torch.cuda` into `torch.npu`, so a CUDA name counts as reaching the NPU.

Where torch itself is optional (`try: import torch` / `except ImportError:`), the import goes
inside that guard, so the module still loads without torch_npu; it never goes into a guard that
covers something else, where a missing torch_npu would silently take the fallback.
"""
from __future__ import annotations

import re

from astroid import nodes

from npu_lint.analysis.module_facts import facts_of
from npu_lint.analysis.star_imports import star_binding
from npu_lint.core.findings import Edit, Position
from npu_lint.core.records import record

TORCH_NPU = "torch_npu"
_DEVICE_WORDS = frozenset({"cuda", "npu"})
_DEVICE_MODULES = ("torch.cuda", "torch.npu", "torch_npu")
_DEVICE_STRING = re.compile(r"^(cuda|npu|nccl|hccl)(:\d+)?$")


def _names(stmt: nodes.NodeNG) -> list[str]:
    if isinstance(stmt, nodes.Import):
        return [name for name, _ in stmt.names]
    if isinstance(stmt, nodes.ImportFrom) and not stmt.level:
        return [stmt.modname]
    return []


def _is_package(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def imports_torch_npu(module: nodes.Module) -> bool:
    """Whether any import of the module, at any depth, names torch_npu (absolutely)."""
    return any(_is_package(name, TORCH_NPU) for name in facts_of(module).imported)


def _imports_torch(stmt: nodes.NodeNG) -> bool:
    return any(_is_package(name, "torch") for name in _names(stmt))


def _carriers(module: nodes.Module) -> list[nodes.NodeNG]:
    """The torch imports `import torch_npu` may follow at module level, all in one block.

    The module's unguarded top-level torch imports when it has any. Else torch itself is optional
    (deepspeed's `try: import torch.cuda` / `except ImportError: pass`): the `import torch...`
    statements of the first top-level `try:` that has one, so the guard covers torch_npu too. A
    `try: from torch._dynamo import allow_in_graph` guards one feature, not torch: a missing
    torch_npu there would silently take the feature's fallback, so it does not count. Nor do
    `if TYPE_CHECKING:` blocks and functions (`local_torch_import` serves those)."""
    unguarded = [stmt for stmt in module.body if _is_import(stmt) and _imports_torch(stmt)]
    if unguarded:
        return unguarded
    for stmt in module.body:
        if isinstance(stmt, nodes.Try):
            guarded = [inner for inner in stmt.body if _imports_torch_itself(inner)
                       and inner.lineno != stmt.lineno]  # not `try: import torch` on one line
            if guarded:
                return guarded
    return []


def _is_import(stmt: nodes.NodeNG) -> bool:
    return isinstance(stmt, (nodes.Import, nodes.ImportFrom))


def _imports_torch_itself(stmt: nodes.NodeNG) -> bool:
    """`import torch` or `import torch.cuda`: fails only without torch, unlike `from torch.x import y`."""
    return isinstance(stmt, nodes.Import) and _imports_torch(stmt)


def _preferred(imports: list[nodes.NodeNG]) -> nodes.NodeNG:
    plain = [stmt for stmt in imports if isinstance(stmt, nodes.Import) and "torch" in _names(stmt)]
    return (plain or imports)[0]


def first_torch_import(module: nodes.Module) -> nodes.NodeNG | None:
    """The module's `import torch` that `import torch_npu` follows, else its first torch import
    of any form (see `_carriers`)."""
    imports = _carriers(module)
    return _preferred(imports) if imports else None


@record(frozen=True)
class Placement:
    stmt: nodes.NodeNG  # the statement the import goes next to
    before: bool  # True: on the line above stmt; False: on the line below it


def torch_npu_placement(module: nodes.Module) -> Placement | None:
    """Where the import goes, or None for a module without torch imports at its top.

    In a guarded block the import stays inside it: only what the block runs before its torch
    import can move it up, and never above the guard."""
    imports = _carriers(module) or _star_carrier(module)
    if not imports:
        return None
    block = imports[0].parent.body
    reach = _first_device_statement(block)
    reach_line = _first_device_line(reach) if reach is not None else None
    for anchor in (_preferred(imports), imports[0]):
        if reach_line is None or (anchor.end_lineno or anchor.lineno) < reach_line:
            return Placement(anchor, before=False)
    return Placement(reach, before=True)


def _star_carrier(module: nodes.Module) -> list[nodes.NodeNG]:
    """The top-level `from .x import *` that brings the module its `torch` (fastai's
    `from .torch_imports import *`): `import torch_npu` follows it."""
    stars = facts_of(module).star_imports
    if not stars or star_binding(module, "torch", stars) != "torch":
        return []
    found = [stmt for stmt in module.body if isinstance(stmt, nodes.ImportFrom)
             and any(name == "*" for name, _alias in stmt.names)
             and star_binding(module, "torch", tuple(s for s in stars if s.line == stmt.lineno)) == "torch"]
    return found[-1:]


def _first_device_statement(block: list[nodes.NodeNG]) -> nodes.NodeNG | None:
    for stmt in block:
        if _first_device_line(stmt) is not None:
            return stmt
    return None


def _first_device_line(stmt: nodes.NodeNG) -> int | None:
    """The first line of stmt that touches CUDA or the NPU while the module is imported."""
    lines = [node.lineno for node in _import_time_nodes(stmt) if _touches_device(node)]
    return min(lines) if lines else None


def _import_time_nodes(stmt: nodes.NodeNG):
    """stmt and what it runs at import: function and lambda bodies do not (their decorators and
    defaults do); class bodies do."""
    stack = [stmt]
    while stack:
        node = stack.pop()
        yield node
        for child in node.get_children():
            if isinstance(node, nodes.FunctionDef) and any(child is inner for inner in node.body):
                continue
            if isinstance(node, nodes.Lambda) and child is node.body:
                continue
            stack.append(child)


def _touches_device(node: nodes.NodeNG) -> bool:
    if isinstance(node, nodes.Attribute):
        return node.attrname in _DEVICE_WORDS
    if isinstance(node, nodes.Name):
        return node.name in _DEVICE_WORDS
    if isinstance(node, nodes.Const):
        return isinstance(node.value, str) and bool(_DEVICE_STRING.match(node.value))
    if isinstance(node, nodes.Import):
        return any(_is_package(name, module) for name, _ in node.names for module in _DEVICE_MODULES)
    if isinstance(node, nodes.ImportFrom) and not node.level:
        if any(_is_package(node.modname, module) for module in _DEVICE_MODULES):
            return True
        return node.modname == "torch" and any(name in _DEVICE_WORDS for name, _ in node.names)
    return False


def imports_torch_npu_in(scope: nodes.NodeNG) -> bool:
    """Whether the scope itself (not a nested function) imports torch_npu."""
    return any(_is_package(name, TORCH_NPU) for stmt in _statements_of(scope) for name in _names(stmt))


def local_torch_import(node: nodes.NodeNG) -> nodes.NodeNG | None:
    """The torch import that serves `node` in a module without one at its top: in the innermost
    enclosing function (or the module's `if`/`try` blocks) that imports torch before `node`, its
    first `import torch...`, else its first `from torch... import`. diffusers imports torch under
    `if is_torch_available():` and guards `from torch._dynamo import ...` with a fallback: the
    import belongs with the first, not in the feature's guard."""
    scope = node.scope()
    while scope is not None:
        found = [stmt for stmt in _statements_of(scope) if _imports_torch(stmt) and stmt.lineno <= node.lineno]
        if found:
            return min(found, key=lambda stmt: (not _imports_torch_itself(stmt), stmt.lineno))
        scope = scope.parent.scope() if scope.parent is not None else None
    return None


def _statements_of(scope: nodes.NodeNG):
    """Import statements of a scope, in nested blocks too, but not in nested functions or classes."""
    stack = list(scope.get_children())
    while stack:
        node = stack.pop()
        if isinstance(node, (nodes.Import, nodes.ImportFrom)):
            yield node
        elif not isinstance(node, (nodes.FunctionDef, nodes.ClassDef, nodes.Lambda)):
            stack.extend(node.get_children())


def _after_docstring_and_future(module: nodes.Module) -> tuple[int, list[nodes.NodeNG]]:
    """The first line after the docstring and `from __future__` imports, and the statements after."""
    line, rest = 1, list(module.body)
    if module.doc_node is not None:
        line = (module.doc_node.end_lineno or module.doc_node.lineno) + 1
        if rest and isinstance(rest[0], nodes.Expr) and rest[0].value is module.doc_node:
            rest.pop(0)
    while rest and isinstance(rest[0], nodes.ImportFrom) and rest[0].modname == "__future__":
        line = (rest[0].end_lineno or rest[0].lineno) + 1
        rest.pop(0)
    return line, rest


def leading_imports_end(module: nodes.Module) -> nodes.NodeNG | None:
    """The last statement of the import block that opens the module (after its docstring and
    `from __future__` imports), where a new import joins the others; None without one."""
    last = None
    for stmt in _after_docstring_and_future(module)[1]:
        if not _is_import(stmt):
            break
        last = stmt
    return last


def module_top_line(module: nodes.Module, line_text) -> int:
    """The line a new top-level import goes on in a module that opens with no imports: after the
    docstring and `from __future__` imports, else after the comment block the file opens with
    (shebang, encoding cookie, license: deepspeed's files start with an SPDX header). Comments
    written right above the first statement stay with it."""
    line, rest = _after_docstring_and_future(module)
    if line > 1 or not rest:
        return line
    code = first_line(rest[0])
    blank = [number for number in range(1, code) if not line_text(number).strip()]
    return blank[-1] + 1 if blank else code


def first_line(stmt: nodes.NodeNG) -> int:
    """Where a statement starts, decorators included."""
    decorators = getattr(stmt, "decorators", None)
    return min(stmt.lineno, decorators.lineno) if decorators is not None else stmt.lineno


def indentation(line_text: str) -> str:
    return line_text[:len(line_text) - len(line_text.lstrip(" \t"))]


def insertion_edit(stmt: nodes.NodeNG, line_text: str, newline: str = "\n",
                   statement: str = f"import {TORCH_NPU}", indent: str | None = None) -> Edit:
    """Insert an import statement on its own line after stmt (whose last line is `line_text`),
    indented like it: `indent` is the text before stmt on its first line (tabs stay tabs)."""
    end_line = stmt.end_lineno or stmt.lineno
    if indent is None:
        indent = " " * stmt.col_offset if stmt.col_offset else ""
    if line_text.endswith(("\n", "\r")):
        return Edit(Position(end_line + 1, 0), Position(end_line + 1, 0), f"{indent}{statement}{newline}")
    end = Position(end_line, len(line_text))  # the import is the file's last line
    return Edit(end, end, f"{newline}{indent}{statement}")


def insertion_before_edit(line: int, line_text: str, newline: str = "\n",
                          statement: str = f"import {TORCH_NPU}") -> Edit:
    """Insert an import statement on its own line above `line`, indented like it."""
    return Edit(Position(line, 0), Position(line, 0), f"{indentation(line_text)}{statement}{newline}")
