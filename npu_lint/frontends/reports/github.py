"""--format github: GitHub Actions workflow commands, shown as annotations on the diff."""
from __future__ import annotations

from typing import Iterable

from npu_lint.core.findings import Severity
from npu_lint.run.runner import FileResult

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def format_github(results: Iterable[FileResult]) -> str:
    lines = []
    for result in results:
        path = _property(result.path)
        for p in result.problems:
            lines.append(f"::error file={path},line={p.line},col={p.column + 1},title=npu-lint {p.kind}::{_data(p.message)}")
        for f in result.findings:
            lines.append(
                f"::{_LEVEL[f.severity]} file={path},line={f.start.line},col={f.start.column + 1},"
                f"endLine={f.end.line},endColumn={f.end.column + 1},title={f.code} {_property(f.name)}"
                f"::{_data(f.code + ' ' + f.message_with_folded)}"
            )
    return "\n".join(lines) + ("\n" if lines else "")
