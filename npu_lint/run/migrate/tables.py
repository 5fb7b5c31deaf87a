"""The CSV reports: change_list.csv, unsupported_api.csv, cuda_api_list.csv."""
from __future__ import annotations

import csv
import io

from npu_lint.core.findings import Finding
from npu_lint.knowledge.loader import rule_by_code
from npu_lint.run.migrate.copy_tree import write_new_file


def _text(lines: list[str], finding: Finding) -> str:
    """The source text the finding covers (first line of it)."""
    line = lines[finding.start.line - 1] if 0 < finding.start.line <= len(lines) else ""
    end = finding.end.column if finding.end.line == finding.start.line else len(line)
    return line[finding.start.column:end].strip() or line.strip()


def _csv(rows: list[list]) -> bytes:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)  # quotes commas, quotes and newlines in names and code
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")


def write_tables(migration) -> None:
    changes = [["file", "line", "rule", "before", "after"]]
    unsupported = [["file", "line", "api", "rule", "reason", "what to do"]]
    cuda = [["file", "line", "column", "rule", "api"]]
    for item in migration.files:
        for change in item.changes:
            changes.append([item.relative, change.finding.start.line, change.finding.code, change.before, change.after])
        for finding in item.remaining:
            rule = rule_by_code(finding.code)
            todo = finding.fix.message if finding.fix else " ".join(rule.doc.fix_safety.split())
            unsupported.append([item.relative, finding.start.line, _text(item.fixed_lines, finding), finding.code,
                                finding.message, todo])
        for finding in item.original:
            cuda.append([item.relative, finding.start.line, finding.start.column + 1, finding.code,
                         _text(item.source_lines, finding)])
    for name, rows in (("change_list.csv", changes), ("unsupported_api.csv", unsupported), ("cuda_api_list.csv", cuda)):
        write_new_file(migration.plan, name, _csv(rows), base=migration.output)
