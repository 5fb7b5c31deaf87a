"""change_list.csv rows: one per edit a fix made, described in one line.

A fix is a set of edits (the rename, and often the shared `import torch_npu`
line). Printing the span of all of them made a one-word rename show as a
block of 45 lines; each edit gets its own row instead, with Ascend's operation
types (INSERT, MODIFY, DELETE) and the lines of the ORIGINAL file.
"""
from __future__ import annotations


from npu_lint.core.findings import Edit, Finding
from npu_lint.run.fixer import Change
from npu_lint.core.records import record

MAX_SNIPPET = 80


@record(frozen=True)
class ChangeRow:
    start: int  # lines of the original file
    end: int
    operation: str  # INSERT, MODIFY or DELETE (msFmkTransplt's OperatorType names)
    message: str
    finding: Finding
    edit_key: tuple  # identifies the edit, so that an edit shared by several fixes is listed once


def snippet(text: str) -> str:
    """One line of code at most, shortened when long."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    first = lines[0] if lines else ""
    if len(lines) > 1:
        first += " …"
    return first if len(first) <= MAX_SNIPPET else first[:MAX_SNIPPET - 1] + "…"


def original_line(change: Change, line: int) -> int:
    """The original line of a line of the text the fix was applied to (an added line: the one before it)."""
    origin = change.origin
    for candidate in range(min(line, len(origin)), 0, -1):
        if origin[candidate - 1]:
            return origin[candidate - 1]
    return 1


def _segment(lines: list[str], start, end) -> str:
    if start.line == end.line:
        return lines[start.line - 1][start.column:end.column] if 0 < start.line <= len(lines) else ""
    if not 0 < start.line <= len(lines):
        return ""
    return "\n".join([lines[start.line - 1][start.column:], *lines[start.line:end.line - 1],
                      lines[end.line - 1][:end.column] if end.line <= len(lines) else ""])


def _within(edit: Edit, finding: Finding) -> bool:
    return (finding.start.line == finding.end.line == edit.start.line == edit.end.line
            and finding.start <= edit.start and edit.end <= finding.end)


def change_rows(change: Change) -> list[ChangeRow]:
    finding = change.finding
    lines = change.text.splitlines()
    label = f"({finding.code} {finding.name})"
    rows: list[ChangeRow] = []
    edits = list(finding.fix.edits) if finding.fix else []
    inside = sorted((e for e in edits if _within(e, finding)), key=lambda e: e.start, reverse=True)
    if inside:
        before = _segment(lines, finding.start, finding.end)
        after = before
        for edit in inside:  # last first, so earlier columns stay valid
            a, b = edit.start.column - finding.start.column, edit.end.column - finding.start.column
            after = after[:a] + edit.content + after[b:]
        whole = lines[finding.start.line - 1] if 0 < finding.start.line <= len(lines) else ""
        if len(whole.strip()) <= MAX_SNIPPET:  # the whole line reads better than a word
            a, b = finding.start.column, finding.end.column
            before, after = whole, whole[:a] + after + whole[b:]
        line = original_line(change, finding.start.line)
        rows.append(ChangeRow(line, line, "MODIFY", f'change "{snippet(before)}" to "{snippet(after)}" {label}',
                              finding, ("span", finding.start, finding.end, after)))
    for edit in edits:
        if edit in inside:
            continue
        start = original_line(change, edit.start.line)
        end = max(original_line(change, edit.end.line), start)
        old = _segment(lines, edit.start, edit.end)
        if edit.start == edit.end and "\n" in edit.content:
            # An inserted line goes before the original line it precedes. (Text inserted inside a
            # line, such as a `"npu", ` argument, is a change of that line, below.)
            at = original_line(change, edit.start.line) if edit.start.column else start
            rows.append(ChangeRow(at, at, "INSERT", f'insert "{snippet(edit.content)}" {label}', finding,
                                  ("insert", at, edit.content.strip())))
        elif not edit.content:
            rows.append(ChangeRow(start, end, "DELETE", f'delete "{snippet(old)}" {label}', finding,
                                  ("delete", start, end, old)))
        elif edit.start.line == edit.end.line and "\n" not in edit.content and 0 < edit.start.line <= len(lines):
            # A word changed in a line: show the line, before and after, as a reader sees it.
            line = lines[edit.start.line - 1]
            after = line[:edit.start.column] + edit.content + line[edit.end.column:]
            rows.append(ChangeRow(start, end, "MODIFY", f'change "{snippet(line)}" to "{snippet(after)}" {label}',
                                  finding, ("modify", start, end, old, edit.content)))
        else:
            rows.append(ChangeRow(start, end, "MODIFY", f'change "{snippet(old)}" to "{snippet(edit.content)}" {label}',
                                  finding, ("modify", start, end, old, edit.content)))
    return rows


def file_change_rows(changes: list[Change]) -> list[ChangeRow]:
    """Every change of one file; an edit several fixes share (the `import torch_npu` line) once,
    preferring the row of the rule that is about that edit."""
    rows: dict[tuple, ChangeRow] = {}
    for change in changes:
        for row in change_rows(change):
            kept = rows.get(row.edit_key)
            if kept is None or (row.operation == "INSERT" and row.finding.code in ("NPU120", "NPU190")):
                rows[row.edit_key] = row
    return sorted(rows.values(), key=lambda r: (r.start, r.end, r.operation, r.message))
