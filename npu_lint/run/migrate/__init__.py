"""`npu-lint migrate SRC -o OUT`: a migrated copy of a project plus the seven reports
Ascend's msFmkTransplt writes (same names, columns and CSV dialect), a launcher for
N cards, an HTML report a person reads first and analysis.json with everything.

Layout of OUT:
    OUT/<name of SRC>/             the copy, fixes applied (SRC is never written)
    OUT/<name>/run_distributed_npu.sh   when a script calls init_process_group
    OUT/change_list.csv, unsupported_api.csv, unknown_api.csv, api_precision_advice.csv,
        api_performance_advice.csv, affinity_api_call.csv, cuda_op_list.csv (see reports.py)
    OUT/report.html, OUT/analysis.json

Besides the rules selected, migrate turns on the advice families that are off by default
in `check`: NPU5xx (fused operators), NPU6xx (performance, dynamic shapes), NPU7xx
(precision) and NPU930/NPU931 (APIs not verified / that may fall back), as msFmkTransplt
reports those too.
"""
from __future__ import annotations

import dataclasses
import os

from npu_lint.config.settings import Settings
from npu_lint.core.findings import Finding
from npu_lint.core.source import SourceError, decode_source
from npu_lint.engine.engine import engine_for
from npu_lint.engine.suppression import Suppressions
from npu_lint.run.file_writer import encode_like
from npu_lint.run.fixer import Change, Fixer
from npu_lint.run.migrate.copy_tree import MigrationRefused, plan_copy, write_new_file
from npu_lint.run.migrate.cuda_op_calls import CudaOpCall, find_calls, project_modules
from npu_lint.run.migrate.cuda_ops import CudaOp, is_cpp_source, scan_bytes, unique_ops
from npu_lint.run.migrate.html_report import write_html_report
from npu_lint.run.migrate.launcher import distributed_entry_points, write_launcher
from npu_lint.run.migrate.reports import MIGRATE_SELECT, write_reports
from npu_lint.run.runner import lint_text
from npu_lint.core.records import record


@record
class MigratedFile:
    relative: str  # path inside the project, with "/"
    original: list[Finding]  # every finding before the fixes (after `# noqa`)
    changes: list[Change]
    remaining: list[Finding]  # after the fixes, of the rules selected (advice not included)
    source_lines: list[str]  # the original text: `original` points into it
    problems: list[str]


@record
class Migration:
    source: str
    output: str
    project: str  # OUT/<name>
    files: list[MigratedFile]
    skipped: list[str]  # what was not copied, and why
    plan: object = None  # the CopyPlan every output file is written through
    launcher: str | None = None
    settings: Settings | None = None
    all_cuda_ops: list[CudaOp] = dataclasses.field(default_factory=list)  # every registration
    cuda_ops: list[CudaOp] = dataclasses.field(default_factory=list)  # one per operator and file
    cuda_op_calls: list[CudaOpCall] = dataclasses.field(default_factory=list)  # Python calls of those
    report_rows: dict[str, int] = dataclasses.field(default_factory=dict)  # rows per report written


def migrate_settings(settings: Settings) -> Settings:
    """The user's selection, plus the advice families msFmkTransplt reports too."""
    select = settings.select or ("NPU",)  # "NPU": the default set, as an empty selection means
    extra = tuple(code for code in MIGRATE_SELECT if code not in select)
    return dataclasses.replace(settings, select=select + extra)


def migrate(source: str, output: str, settings: Settings = Settings(), unsafe: bool = False) -> Migration:
    plan = plan_copy(source, output)
    # The fix passes need only the rules that can fix something: the advice rules run once,
    # in the analysis of the original files.
    fixer = Fixer(settings, unsafe=unsafe)
    settings = migrate_settings(settings)
    check_engine = engine_for(settings)
    files: list[MigratedFile] = []
    cuda_ops: list[CudaOp] = []
    entry_points = []
    for item in plan.items:
        data = item.read()
        if not item.relative.endswith((".py", ".pyi")):
            if is_cpp_source(item.relative):
                cuda_ops.extend(scan_bytes(data, item.relative))
            write_new_file(plan, item.relative, data, item.mode)
            continue
        try:
            decoded = decode_source(data)
        except SourceError as exc:
            write_new_file(plan, item.relative, data, item.mode)
            files.append(MigratedFile(item.relative, [], [], [], [], [f"copied unchanged: {exc}"]))
            continue
        original, _problems = lint_text(check_engine, decoded.text, item.relative)  # `# noqa` honoured
        outcome = fixer.fix_text(decoded.text, item.relative)
        write_new_file(plan, item.relative, encode_like(outcome.text, decoded), item.mode)
        files.append(MigratedFile(
            item.relative, original, outcome.changes, outcome.remaining,
            decoded.text.splitlines(), [f"{p.kind}: {p.message}" for p in outcome.problems],
        ))
        if distributed_entry_points(decoded.text):
            entry_points.append(item.relative)
    migration = Migration(os.path.abspath(source), os.path.abspath(output), plan.project, files, plan.skipped, plan,
                          settings=settings, all_cuda_ops=cuda_ops, cuda_ops=unique_ops(cuda_ops))
    migration.cuda_op_calls = _cuda_op_calls(migration, [item.relative for item in plan.items])
    if entry_points:
        migration.launcher = write_launcher(plan, entry_points)
    write_reports(migration)
    write_html_report(migration)
    return migration


def _cuda_op_calls(migration: Migration, relatives: list[str]) -> list[CudaOpCall]:
    """Calls of the project's own operators, except on lines a bare `# noqa` silences."""
    if not migration.cuda_ops:
        return []
    own = project_modules(relatives)
    calls = []
    for item in migration.files:
        text = "\n".join(item.source_lines)
        silenced = Suppressions(text).noqa if Suppressions.may_suppress(text) else {}
        calls.extend(call for call in find_calls(text, item.relative, migration.cuda_ops, own)
                     if not (call.start in silenced and silenced[call.start] is None))
    return calls


__all__ = ["Migration", "MigrationRefused", "migrate"]
