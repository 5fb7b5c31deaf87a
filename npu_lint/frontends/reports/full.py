"""--format text (the default): each finding with its source line and a caret
under the range, like Ruff's full output. `[*]` marks a safe fix."""
from __future__ import annotations

from typing import Iterable

from npu_lint.core.findings import Applicability, Finding
from npu_lint.core.source import LineIndex
from npu_lint.frontends.reports.concise import problem_lines
from npu_lint.run.runner import FileResult


def _snippet(index: LineIndex, finding: Finding) -> list[str]:
    line_no = finding.start.line
    text = index.line(line_no).rstrip("\r\n")
    start = min(finding.start.column, len(text))
    end = finding.end.column if finding.end.line == line_no else len(text)
    end = max(min(end, len(text)), start + 1)
    gutter = " " * len(str(line_no))
    lines = [f"{gutter} |"]
    if line_no > 1:
        lines.append(f"{line_no - 1:>{len(gutter)}} | {index.line(line_no - 1).rstrip()}")
    lines.append(f"{line_no} | {text}")
    lines.append(f"{gutter} | {' ' * start}{'^' * (end - start)} {finding.code}")
    lines.append(f"{gutter} |")
    # The findings folded into this one: their places are not under the caret.
    lines.extend(f"{gutter} = note: also at {r.start.line}:{r.start.column + 1}, {r.message}"
                 for r in finding.related if r.folded)
    if finding.fix is not None:
        lines.append(f"{gutter} = help: {finding.fix.message}")
    return lines


def format_full(results: Iterable[FileResult]) -> str:
    out: list[str] = []
    for result in results:
        out.extend(problem_lines(result))
        index = LineIndex(result.source.text) if result.source is not None else None
        for finding in result.findings:
            marker = " [*]" if finding.fix and finding.fix.applicability is Applicability.SAFE and finding.fix.edits else ""
            out.append(f"{result.path}:{finding.start.line}:{finding.start.column + 1}: {finding.code}{marker} {finding.message}")
            if index is not None:
                out.extend(_snippet(index, finding))
            out.append("")
    return "\n".join(out) + ("\n" if out and out[-1] != "" else "")
