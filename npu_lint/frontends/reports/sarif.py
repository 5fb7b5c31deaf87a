"""--format sarif: SARIF 2.1.0, with rule metadata and fixes, as GitHub code scanning reads it."""
from __future__ import annotations

import json
import os
import pathlib
from typing import Iterable

from npu_lint import __version__
from npu_lint.core.findings import Finding, Severity
from npu_lint.knowledge.loader import rule_by_code, shipped_rules
from npu_lint.run.runner import FileResult

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _uri(path: str) -> str:
    if os.path.isabs(path):
        return pathlib.Path(path).as_uri()
    return pathlib.PurePath(path).as_posix()  # relative to the run's folder (%SRCROOT%)


def _region(start, end) -> dict:
    return {"startLine": start.line, "startColumn": start.column + 1, "endLine": end.line, "endColumn": end.column + 1}


def _rule_descriptor(rule) -> dict:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": " ".join(rule.doc.what.split())},
        "fullDescription": {"text": " ".join(rule.doc.why.split())},
        "help": {"text": " ".join(rule.doc.fix_safety.split())},
        "helpUri": rule.doc_path,
        "defaultConfiguration": {"level": _LEVEL[rule.severity]},
        "properties": {"strategies": list(rule.strategies), "tags": [rule.family]},
    }


def _fix(path: str, finding: Finding) -> list[dict]:
    if finding.fix is None or not finding.fix.edits:
        return []
    replacements = [{"deletedRegion": _region(e.start, e.end), "insertedContent": {"text": e.content}}
                    for e in finding.fix.edits]
    return [{
        "description": {"text": f"{finding.fix.message} ({finding.fix.applicability.value})"},
        "artifactChanges": [{"artifactLocation": {"uri": _uri(path)}, "replacements": replacements}],
    }]


def format_sarif(results: Iterable[FileResult]) -> str:
    results = list(results)
    rules = list(shipped_rules())
    shipped = {rule.code for rule in rules}
    # Rules from `extend-rules` files are described too, so every result has its rule.
    extra = sorted({f.code for r in results for f in r.findings} - shipped)
    rules += [rule_by_code(code) for code in extra]
    index = {rule.code: i for i, rule in enumerate(rules)}
    sarif_results = []
    notifications = []
    for result in results:
        for finding in result.findings:
            sarif_results.append({
                "ruleId": finding.code,
                "ruleIndex": index[finding.code],
                "level": _LEVEL[finding.severity],
                "message": {"text": finding.message},
                "locations": [{"physicalLocation": {
                    "artifactLocation": {"uri": _uri(result.path)},
                    "region": _region(finding.start, finding.end),
                }}],
                "relatedLocations": [{
                    "id": number,
                    "physicalLocation": {"artifactLocation": {"uri": _uri(related.path or result.path)},
                                         "region": _region(related.start, related.end)},
                    "message": {"text": related.message},
                } for number, related in enumerate(finding.related, 1)],
                "fixes": _fix(result.path, finding),
                "properties": {"confidence": finding.confidence.value},
            })
        for problem in result.problems:
            notifications.append({
                "level": "error",
                "message": {"text": f"{problem.kind}: {problem.message}"},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(result.path)},
                                                    "region": {"startLine": problem.line}}}],
            })
    run = {
        "tool": {"driver": {
            "name": "npu-lint",
            "version": __version__,
            "informationUri": "https://pypi.org/project/npu-lint/",
            "rules": [_rule_descriptor(rule) for rule in rules],
        }},
        "results": sarif_results,
        "invocations": [{
            "executionSuccessful": not any(p.kind == "internal-error" for r in results for p in r.problems),
            "toolExecutionNotifications": notifications,
        }],
    }
    return json.dumps({"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2, ensure_ascii=False) + "\n"
