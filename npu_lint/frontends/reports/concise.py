"""--format concise: one line per finding, `path:line:col: CODE message`."""
from __future__ import annotations

from typing import Iterable

from npu_lint.run.runner import FileResult


def problem_lines(result: FileResult) -> list[str]:
    return [f"{result.path}:{p.line}:{p.column + 1}: {p.kind}: {p.message}" for p in result.problems]


def format_concise(results: Iterable[FileResult]) -> str:
    lines = []
    for result in results:
        lines.extend(problem_lines(result))
        lines.extend(f"{result.path}:{f.start.line}:{f.start.column + 1}: {f.code} {f.message_with_folded}" for f in result.findings)
    return "\n".join(lines) + ("\n" if lines else "")
