"""Is this module where a program starts? Findings said once per program go there.

An entry module has a top-level `if __name__ == "__main__":`, is a package's `__main__.py` (the
target of `python -m pkg` and `torchrun -m pkg`), or is the module a console script of its
project calls into (see config.project_scripts). Everything else is a library module.
"""
from __future__ import annotations

import os

from astroid import nodes

from npu_lint.analysis.names import compared_operands
from npu_lint.config.project_scripts import is_script_target


def is_main_guard(stmt: nodes.NodeNG) -> bool:
    """`if __name__ == "__main__":`, either way round."""
    if not isinstance(stmt, nodes.If) or not isinstance(stmt.test, nodes.Compare):
        return False
    test = stmt.test
    operands = compared_operands(test)
    return len(test.ops) == 1 and test.ops[0][0] == "==" and \
        any(isinstance(o, nodes.Name) and o.name == "__name__" for o in operands) and \
        any(isinstance(o, nodes.Const) and o.value == "__main__" for o in operands)


def entry_reason(module: nodes.Module) -> str | None:
    """Why the module starts a program ("main guard", "__main__.py", "console script"), or None."""
    if any(is_main_guard(stmt) for stmt in module.body):
        return "main guard"
    path = module.file or ""
    if os.path.basename(path) == "__main__.py":
        return "__main__.py"
    if path and is_script_target(path):
        return "console script"
    return None
