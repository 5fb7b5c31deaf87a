"""--format json: a list in the shape of Ruff's JSON output, so tools that read Ruff's can read ours."""
from __future__ import annotations

import json
from typing import Iterable

from npu_lint.core.findings import Finding, Position
from npu_lint.knowledge.loader import rule_by_code
from npu_lint.run.runner import FileResult


def _location(position: Position) -> dict:
    return {"row": position.line, "column": position.column + 1}


def finding_json(path: str, finding: Finding) -> dict:
    """One finding in the shape of Ruff's JSON output (1-based rows and columns)."""
    fix = None
    if finding.fix is not None:
        fix = {
            "applicability": finding.fix.applicability.value,
            "message": finding.fix.message,
            "edits": [
                {"content": e.content, "location": _location(e.start), "end_location": _location(e.end)}
                for e in finding.fix.edits
            ],
        }
    rule = rule_by_code(finding.code)
    return {
        "filename": path,
        "code": finding.code,
        "name": finding.name,
        "message": finding.message,
        "severity": finding.severity.value,
        "confidence": finding.confidence.value,
        "location": _location(finding.start),
        "end_location": _location(finding.end),
        "fix": fix,
        "url": rule.doc_path,
        "noqa_row": finding.start.line,
        "strategies": list(rule.strategies),
        "related": [
            {"filename": r.path or path, "message": r.message,
             "location": _location(r.start), "end_location": _location(r.end)}
            for r in finding.related
        ],
    }


def format_json(results: Iterable[FileResult]) -> str:
    items = [finding_json(r.path, f) for r in results for f in r.findings]
    return json.dumps(items, indent=2, ensure_ascii=False) + "\n"
