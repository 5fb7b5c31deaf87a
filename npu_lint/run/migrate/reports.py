"""msFmkTransplt's seven reports, with its file names and columns, and analysis.json.

Which report a finding goes to:
- a finding a fix changed: change_list.csv, one row per edit (change_rows.py);
- NPU5xx (fused-operator / affinity advice): affinity_api_call.csv;
- NPU6xx (performance advice, dynamic shapes) and NPU931 (may fall back to the CPU):
  api_performance_advice.csv;
- NPU7xx (precision advice): api_precision_advice.csv;
- NPU930 (not verified on the NPU): unknown_api.csv;
- everything else left for a person (CUDA-only APIs, operators without an NPU kernel or
  falling back, unsupported dtypes, CUDA-only libraries, ...): unsupported_api.csv;
- custom operators registered in C++/CUDA sources: cuda_op_list.csv, and each Python call of
  one: unsupported_api.csv (Tips "User-defined CUDA Operator.", as msFmkTransplt writes).
"""
from __future__ import annotations

import dataclasses
import json
import re

from npu_lint import __version__
from npu_lint.core.findings import Finding
from npu_lint.run.migrate.ascend_csv import MISSING, csv_bytes
from npu_lint.run.migrate.change_rows import ChangeRow, file_change_rows, original_line, snippet
from npu_lint.run.migrate.copy_tree import write_new_file
from npu_lint.run.migrate.cuda_op_calls import TIPS as CUSTOM_OP_TIPS
from npu_lint.core.records import record

CHANGE_LIST = "change_list.csv"
UNSUPPORTED = "unsupported_api.csv"
UNKNOWN = "unknown_api.csv"
PRECISION = "api_precision_advice.csv"
PERFORMANCE = "api_performance_advice.csv"
AFFINITY = "affinity_api_call.csv"
CUDA_OPS = "cuda_op_list.csv"
ANALYSIS = "analysis.json"

API_COLUMNS = ("File", "Start Line", "End Line", "OP", "Tips")
HEADERS = {
    CHANGE_LIST: ("File", "Start Line", "End Line", "Operation Type", "Message"),
    UNSUPPORTED: API_COLUMNS,
    UNKNOWN: API_COLUMNS,
    PRECISION: API_COLUMNS,
    PERFORMANCE: API_COLUMNS,
    AFFINITY: ("File", "Start Line", "End Line", "Api Type", "Api Call Name", "Affinity Api Name"),
    CUDA_OPS: ("File", "Api"),
}
# The rule families and codes migrate turns on besides the default set.
MIGRATE_SELECT = ("NPU5", "NPU6", "NPU7", "NPU930", "NPU931")

_BACKTICKED = re.compile(r"`([^`]+)`")
_IDENTIFIER = re.compile(r"^[A-Za-z_][\w.]*$")
_NPU_API = re.compile(r"`?((?:torch_npu|torch\.npu|apex)\.[\w.]+)")


def report_for(code: str) -> str:
    if code.startswith("NPU5"):
        return AFFINITY
    if code.startswith("NPU6") or code == "NPU931":
        return PERFORMANCE
    if code.startswith("NPU7"):
        return PRECISION
    if code == "NPU930":
        return UNKNOWN
    return UNSUPPORTED


def _code_at(lines: list[str], finding: Finding) -> str:
    """The code a finding points at, one line at most."""
    if not 0 < finding.start.line <= len(lines):
        return ""
    line = lines[finding.start.line - 1]
    end = finding.end.column if finding.end.line == finding.start.line else len(line)
    return snippet(line[finding.start.column:end] or line)


def api_name(finding: Finding, lines: list[str]) -> str:
    """What msFmkTransplt's OP column holds: the API the message names first (`torch.nonzero`,
    `.to()` as `to`), else the code at the finding."""
    match = _BACKTICKED.search(finding.message)
    if match:
        name = match.group(1).rpartition("=")[2].strip().removesuffix("()").lstrip(".")
        if _IDENTIFIER.match(name):
            return name
    return _code_at(lines, finding) or finding.name


def _tips(finding: Finding) -> str:
    """The message, and what to do when the fix message says more than "use X"."""
    fix = finding.fix.message if finding.fix else ""
    said = fix.lower().removeprefix("use ").strip()
    if not fix or said in finding.message.lower():
        return finding.message
    return f"{finding.message.rstrip('.')}. {fix}"


def _affinity_type(code: str) -> str:
    """msFmkTransplt's Api Type: torch (a torch call), class, function, or special (a code pattern)."""
    if code.startswith(("torch.", "nn.", "F.")):
        return "torch"
    if code.startswith("class "):
        return "class"
    if code.startswith(("def ", "async def ")):
        return "function"
    return "special"


def _affinity_target(finding: Finding) -> str:
    for text in (finding.fix.message if finding.fix else "", finding.message):
        match = _NPU_API.search(text)
        if match:
            return match.group(1).rstrip(".")
    return MISSING


@record
class Entry:
    """One finding of the original project and where it was reported."""

    file: str
    finding: Finding
    report: str
    fixed: bool
    row: tuple = ()


def fixed_keys(item) -> set[tuple]:
    """(code, original line) of the findings of a file that a fix changed."""
    return {(change.finding.code, original_line(change, change.finding.start.line)) for change in item.changes}


def build(migration) -> tuple[dict[str, list[tuple]], list[Entry], dict[str, list[ChangeRow]]]:
    """Rows per report, every finding with its report, and the change rows per file."""
    rows: dict[str, list[tuple]] = {name: [] for name in HEADERS}
    entries: list[Entry] = []
    change_rows: dict[str, list[ChangeRow]] = {}
    for item in migration.files:
        file_rows = file_change_rows(item.changes)
        change_rows[item.relative] = file_rows
        rows[CHANGE_LIST].extend((item.relative, r.start, r.end, r.operation, r.message) for r in file_rows)
        fixed = fixed_keys(item)
        for finding in item.original:
            if (finding.code, finding.start.line) in fixed:
                entries.append(Entry(item.relative, finding, CHANGE_LIST, True))
                continue
            report = report_for(finding.code)
            place = (item.relative, finding.start.line, finding.end.line)
            if report == AFFINITY:
                code = _code_at(item.source_lines, finding)
                row = (*place, _affinity_type(code), code, _affinity_target(finding))
            else:
                row = (*place, api_name(finding, item.source_lines), _tips(finding))
            rows[report].append(row)
            entries.append(Entry(item.relative, finding, report, False, row))
    rows[UNSUPPORTED].extend(
        (call.file, call.start, call.end, call.op.api, f"{CUSTOM_OP_TIPS} Registered in {call.op.file}: it needs an NPU kernel.")
        for call in migration.cuda_op_calls)
    rows[CUDA_OPS] = [(op.file, op.api) for op in migration.cuda_ops]
    return rows, entries, change_rows


def _finding_json(entry: Entry) -> dict:
    f = entry.finding
    return {
        "file": entry.file,
        "code": f.code,
        "name": f.name,
        "message": f.message,
        "severity": f.severity.value,
        "start": {"line": f.start.line, "column": f.start.column + 1},
        "end": {"line": f.end.line, "column": f.end.column + 1},
        "report": entry.report,
        "fixed": entry.fixed,
        "fix": None if f.fix is None else {"applicability": f.fix.applicability.value, "message": f.fix.message},
    }


def analysis(migration, rows: dict[str, list[tuple]], entries: list[Entry],
             change_rows: dict[str, list[ChangeRow]]) -> dict:
    settings = migration.settings
    return {
        "tool": "npu-lint",
        "version": __version__,
        "source": migration.source,
        "project": migration.project,
        "target_torch_npu": settings.target_torch_npu if settings else None,
        "npu_chip": settings.npu_chip if settings else None,
        "reports": {name: len(rows[name]) for name in HEADERS},
        "summary": {
            "python_files": len(migration.files),
            "findings": len(entries),
            "fixed": sum(entry.fixed for entry in entries),
            "left": sum(not entry.fixed for entry in entries),
            "custom_cuda_operators": len(migration.cuda_ops),
        },
        "findings": [_finding_json(entry) for entry in entries],
        "changes": [
            {"file": file, "start_line": r.start, "end_line": r.end, "operation": r.operation,
             "message": r.message, "code": r.finding.code}
            for file, file_rows in change_rows.items() for r in file_rows
        ],
        "cuda_operators": [dataclasses.asdict(op) for op in migration.all_cuda_ops],
        "cuda_operator_calls": [
            {"file": call.file, "start_line": call.start, "end_line": call.end, "api": call.op.api,
             "registered_in": call.op.file, "report": UNSUPPORTED}
            for call in migration.cuda_op_calls
        ],
        "problems": [{"file": item.relative, "problem": problem} for item in migration.files for problem in item.problems],
        "not_copied": list(migration.skipped),
        "launcher": "run_distributed_npu.sh" if migration.launcher else None,
    }


def write_reports(migration) -> dict[str, list[tuple]]:
    rows, entries, change_rows = build(migration)
    for name, header in HEADERS.items():
        write_new_file(migration.plan, name, csv_bytes(header, rows[name]), base=migration.output)
    document = analysis(migration, rows, entries, change_rows)
    write_new_file(migration.plan, ANALYSIS, (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8"),
                   base=migration.output)
    migration.report_rows = {name: len(rows[name]) for name in HEADERS}
    return rows
