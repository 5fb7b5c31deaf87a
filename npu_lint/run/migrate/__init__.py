"""`npu-lint migrate SRC -o OUT`: a migrated copy of a project plus the reports
Ascend's msFmkTransplt gives (change list, unsupported APIs, CUDA API list,
a launcher for N cards), and an HTML report a person reads first.

Layout of OUT:
    OUT/<name of SRC>/             the copy, fixes applied (SRC is never written)
    OUT/<name>/run_distributed_npu.sh   when a script calls init_process_group
    OUT/change_list.csv, unsupported_api.csv, cuda_api_list.csv, report.html
"""
from __future__ import annotations

import dataclasses
import os

from npu_lint.config.settings import Settings
from npu_lint.core.findings import Finding
from npu_lint.core.source import SourceError, decode_source
from npu_lint.engine.engine import Engine
from npu_lint.run.file_writer import encode_like
from npu_lint.run.fixer import Change, Fixer
from npu_lint.run.migrate.copy_tree import MigrationRefused, plan_copy, write_new_file
from npu_lint.run.migrate.html_report import write_html_report
from npu_lint.run.migrate.launcher import distributed_entry_points, write_launcher
from npu_lint.run.migrate.tables import write_tables


@dataclasses.dataclass
class MigratedFile:
    relative: str  # path inside the project, with "/"
    original: list[Finding]  # every finding before the fixes
    changes: list[Change]
    remaining: list[Finding]
    source_lines: list[str]  # the original text: `original` points into it
    problems: list[str]
    fixed_lines: list[str] = dataclasses.field(default_factory=list)  # `remaining` points into these


@dataclasses.dataclass
class Migration:
    source: str
    output: str
    project: str  # OUT/<name>
    files: list[MigratedFile]
    skipped: list[str]  # what was not copied, and why
    plan: object = None  # the CopyPlan every output file is written through
    launcher: str | None = None


def migrate(source: str, output: str, settings: Settings = Settings(), unsafe: bool = False) -> Migration:
    plan = plan_copy(source, output)
    fixer = Fixer(settings, unsafe=unsafe)
    check_engine = Engine(settings)
    files: list[MigratedFile] = []
    entry_points = []
    for item in plan.items:
        data = item.read()
        if not item.relative.endswith((".py", ".pyi")):
            write_new_file(plan, item.relative, data, item.mode)
            continue
        try:
            decoded = decode_source(data)
        except SourceError as exc:
            write_new_file(plan, item.relative, data, item.mode)
            files.append(MigratedFile(item.relative, [], [], [], [], [f"copied unchanged: {exc}"]))
            continue
        original = check_engine.check_text(decoded.text, item.relative)
        outcome = fixer.fix_text(decoded.text, item.relative)
        write_new_file(plan, item.relative, encode_like(outcome.text, decoded), item.mode)
        files.append(MigratedFile(
            item.relative, original.findings, outcome.changes, outcome.remaining,
            decoded.text.splitlines(), [f"{p.kind}: {p.message}" for p in outcome.problems],
            outcome.text.splitlines(),
        ))
        if distributed_entry_points(decoded.text):
            entry_points.append(item.relative)
    migration = Migration(os.path.abspath(source), os.path.abspath(output), plan.project, files, plan.skipped, plan)
    if entry_points:
        migration.launcher = write_launcher(plan, entry_points)
    write_tables(migration)
    write_html_report(migration)
    return migration


__all__ = ["Migration", "MigrationRefused", "migrate"]
