"""`npu-lint`: check, rules, explain. A thin front end over the engine."""
from __future__ import annotations

import argparse
import gc
import os
import sys

from npu_lint.frontends import lean_start  # noqa: F401  (first: defers what astroid imports and npu-lint never uses)
from npu_lint import __version__
from npu_lint.config.files import load_settings
from npu_lint.config import options
from npu_lint.config.settings import Settings, not_rule_codes, split_codes
from npu_lint.frontends.reports import FORMATS
from npu_lint.frontends.reports.summary import notebooks_not_checked, summary
from npu_lint.knowledge.loader import RuleDataError, shipped_rules
from npu_lint.run.discovery import python_files
from npu_lint.run.parallel import GC_THRESHOLDS, check_files, default_jobs
from npu_lint.run.progress import ProgressBar
from npu_lint.run.result_cache import DEFAULT_DIR as DEFAULT_CACHE_DIR

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
HUMAN_FORMATS = ("text", "concise")  # the formats that end with a summary (never the machine-read ones)


def _settings(args: argparse.Namespace) -> Settings:
    """The configuration file's settings, overridden by the flags given."""
    for flag in ("select", "ignore"):
        bad = not_rule_codes(split_codes(getattr(args, flag)))
        if bad:  # silently matching nothing would end in "All checks passed!"
            raise ValueError(f"--{flag}: not npu-lint rule codes: {', '.join(bad)} "
                             "(codes start with NPU, as `npu-lint rules` lists them; ALL selects every rule)")
    overrides = {
        "select": split_codes(args.select) or None,
        "ignore": split_codes(args.ignore) or None,
        "extend_rules": tuple(os.path.abspath(p) for p in args.extend_rules) or None,
        "unsafe_fixes": getattr(args, "unsafe_fixes", None),
        **options.overrides(vars(args), "command line"),
    }
    paths = [p for p in args.paths if p != "-"]
    return load_settings(paths[0] if paths else os.getcwd(), overrides)


def _add_selection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--select", help="comma-separated rule codes or prefixes to enable (e.g. NPU1,NPU201; ALL: every rule)")
    parser.add_argument("--ignore", help="comma-separated rule codes or prefixes to disable")
    parser.add_argument("--extend-rules", action="append", default=[], metavar="FILE",
                        help="an extra rule file in the format of rules/*.yaml (may be repeated)")
    for option in options.FRONT_END_OPTIONS:
        parser.add_argument(f"--{option.key}", metavar=option.metavar, choices=option.choices, help=option.help)


def _add_unsafe_fixes(parser: argparse.ArgumentParser, help_text: str) -> None:
    """`--unsafe-fixes` and `--no-unsafe-fixes`; either overrides `unsafe-fixes` in the configuration."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--unsafe-fixes", dest="unsafe_fixes", action="store_true", default=None, help=help_text)
    group.add_argument("--no-unsafe-fixes", dest="unsafe_fixes", action="store_false",
                       help="only safe fixes, whatever the configuration says (`unsafe-fixes = true`)")


def _jobs_count(value: str) -> int:
    try:
        jobs = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of processes, got {value!r}") from None
    if jobs < 0:
        raise argparse.ArgumentTypeError("expected 0 (one per CPU) or more")
    return jobs or default_jobs()


def _add_jobs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--jobs", "-j", type=_jobs_count, default=None, metavar="N",
                        help="processes to check files in (default and 0: one per CPU; 1: this process only)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="npu-lint", description="Find CUDA-only PyTorch code and migrate it to Ascend NPUs.")
    parser.add_argument("--version", action="version", version=f"npu-lint {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    check = commands.add_parser("check", help="report findings")
    check.add_argument("paths", nargs="*", help="files or folders (none: nothing to check, exit 0)")
    check.add_argument("--format", choices=sorted(FORMATS), default="text",
                       help="text (with source lines), concise, json (Ruff's shape), sarif, github, junit")
    check.add_argument("--output-file", "-o", metavar="FILE", help="write the report to FILE instead of stdout")
    check.add_argument("--statistics", action="store_true", help="print the number of findings per rule (on stderr)")
    check.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings remain")
    _add_unsafe_fixes(check, "count the fixes marked unsafe as fixable in the summary")
    _add_jobs(check)
    check.add_argument("--no-cache", action="store_true",
                       help=f"check every file, ignoring and not writing the result cache ({DEFAULT_CACHE_DIR}/)")
    check.add_argument("--cache-dir", metavar="DIR",
                       help=f"folder of the result cache (default: {DEFAULT_CACHE_DIR} in the current directory)")
    _add_selection(check)

    fix = commands.add_parser("fix", help="apply fixes (safe ones unless --unsafe-fixes)")
    fix.add_argument("paths", nargs="*", help="files or folders; `-` reads stdin and writes stdout (none: nothing to fix)")
    _add_unsafe_fixes(fix, "also apply fixes marked unsafe")
    fix.add_argument("--diff", action="store_true", help="write nothing; print a unified diff (exit 1 if there is one)")
    fix.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings remain")
    _add_jobs(fix)
    # fix lints every file afresh and keeps no result cache; the options are accepted so that one
    # command line (a script, a pre-commit entry) serves check and fix alike
    fix.add_argument("--no-cache", action="store_true", help="accepted as check takes it (fix uses no result cache)")
    fix.add_argument("--cache-dir", metavar="DIR", help="accepted as check takes it (fix uses no result cache)")
    _add_selection(fix)

    migrate = commands.add_parser("migrate", help="copy a project to OUT with fixes applied, plus migration reports")
    migrate.add_argument("paths", nargs=1, metavar="SRC", help="the project folder (never written)")
    migrate.add_argument("-o", "--output", required=True, metavar="OUT", help="an empty or new folder outside SRC")
    _add_unsafe_fixes(migrate, "also apply fixes marked unsafe")
    _add_selection(migrate)

    server = commands.add_parser("server", help="run the Language Server Protocol server on stdio (needs npu-lint[lsp])")
    server.add_argument("--stdio", action="store_true", help="accepted for clients that pass it (stdio is the only transport)")
    daemon = commands.add_parser("daemon", help="start, stop or ask the warm process that runs npu-lint commands "
                                                "faster (each starts in milliseconds, not a second)")
    daemon.add_argument("action", choices=("start", "stop", "status"))
    daemon.add_argument("--idle-timeout", type=float, default=None, metavar="SECONDS",
                        help="start: end after this long without a command (default 1800; 0: never)")
    daemon.add_argument("--json", action="store_true", help="status: print the status as JSON")
    commands.add_parser("rules", help="list the rules")
    explain = commands.add_parser("explain", help="print the documentation of one rule")
    explain.add_argument("code", help="a rule code (NPU101) or name (torch-cuda-api)")
    return parser


def _nothing_given(args: argparse.Namespace) -> bool:
    """pre-commit (`always_run`) or a script may pass no paths: nothing to do, exit 0."""
    if args.paths:
        return False
    print(f"npu-lint {args.command}: no paths given; nothing to do", file=sys.stderr)
    return True


def run_check(args: argparse.Namespace) -> int:
    if _nothing_given(args):
        _write_report(FORMATS[args.format]([]), args.output_file)  # an empty report (`[]` for json)
        return EXIT_CLEAN
    settings = _settings(args)
    cache_folder = None if args.no_cache else (args.cache_dir or DEFAULT_CACHE_DIR)
    notebooks: list[str] = []
    paths = list(python_files(args.paths, settings, notebooks))
    bar = ProgressBar(len(paths))  # only on a terminal, only for long runs
    try:
        results = check_files(paths, settings, jobs=args.jobs or default_jobs(), cache_folder=cache_folder,
                              progress=bar.update)
    finally:
        bar.close()
    report = FORMATS[args.format](results)
    if args.format in HUMAN_FORMATS:
        # Name the flag given to check, so that the command shown does what the count says.
        fix_command = {True: "npu-lint fix --unsafe-fixes", False: "npu-lint fix --no-unsafe-fixes"}.get(
            args.unsafe_fixes, "npu-lint fix")
        report += ("\n" if report else "") + summary(results, settings.unsafe_fixes, fix_command, notebooks)
    elif notebooks:
        sys.stderr.write(notebooks_not_checked(notebooks))  # the report itself stays machine-readable
    _write_report(report, args.output_file)
    if args.statistics:
        sys.stderr.write(statistics(results))
    if args.format not in HUMAN_FORMATS:
        for result in results:
            for problem in result.problems:
                print(f"{result.path}:{problem.line}:{problem.column + 1}: {problem.kind}: {problem.message}", file=sys.stderr)
    if any(p.kind == "internal-error" for r in results for p in r.problems):
        return EXIT_ERROR
    if args.exit_zero:
        return EXIT_CLEAN
    return EXIT_FINDINGS if any(r.findings or r.problems for r in results) else EXIT_CLEAN


def _write_report(text: str, output_file: str | None) -> None:
    if output_file is None:
        sys.stdout.write(text)
        return
    try:
        with open(output_file, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise ValueError(f"cannot write --output-file {output_file}: {exc.strerror or exc}") from None


def statistics(results) -> str:
    """Counts per rule, most frequent first, `[*]` where a safe fix exists."""
    from collections import Counter

    counts = Counter(f.code for r in results for f in r.findings)
    fixable = {f.code for r in results for f in r.findings
               if f.fix and f.fix.edits and f.fix.applicability.value == "safe"}
    names = {f.code: f.name for r in results for f in r.findings}  # extend-rules too
    lines = [f"{count:>6}  {code}  {names[code]}{' [*]' if code in fixable else ''}"
             for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))]
    return "\n".join(lines) + ("\n" if lines else "")


def run_rules(_args: argparse.Namespace) -> int:
    from npu_lint.generate.rule_docs import release_window

    for rule in shipped_rules():
        default = "  (off by default)" if not rule.default_enabled else ""
        fix = rule.fix.applicability.value if rule.fix else "no fix"
        print(f"{rule.code}  {rule.name:<52} {rule.severity.value:<8} {fix:<13} torch_npu {release_window(rule)}{default}")
    return EXIT_CLEAN


def run_explain(args: argparse.Namespace) -> int:
    from npu_lint.generate.rule_docs import rule_page

    wanted = args.code.strip()
    for rule in shipped_rules():
        if wanted.upper() == rule.code or wanted == rule.name:
            sys.stdout.write(rule_page(rule))
            return EXIT_CLEAN
    print(f"npu-lint: no rule '{wanted}'; `npu-lint rules` lists them", file=sys.stderr)
    return EXIT_ERROR


def run_fix(args: argparse.Namespace) -> int:
    if _nothing_given(args):
        return EXIT_CLEAN
    from npu_lint.frontends.fix_command import run_fix as fix_paths

    return fix_paths(args, _settings(args))


def run_server(_args: argparse.Namespace) -> int:
    try:
        from npu_lint.frontends.lsp_server import serve
    except ImportError as exc:
        if (exc.name or "").split(".")[0] not in ("pygls", "lsprotocol", "cattrs"):
            raise
        print("npu-lint server needs pygls: pip install 'npu-lint[lsp]'", file=sys.stderr)
        return EXIT_ERROR
    return serve()


def run_daemon(args: argparse.Namespace) -> int:
    from npu_lint.frontends import warm_daemon

    if args.action == "start":
        idle = warm_daemon.DEFAULT_IDLE_SECONDS if args.idle_timeout is None else args.idle_timeout
        if idle < 0:
            raise ValueError("--idle-timeout: expected 0 (never) or more seconds")
        return warm_daemon.start(idle)
    if args.action == "stop":
        return warm_daemon.stop()
    return warm_daemon.status(args.json)


def run_migrate(args: argparse.Namespace) -> int:
    from npu_lint.run.migrate import MigrationRefused, migrate

    settings = _settings(args)
    try:
        migration = migrate(args.paths[0], args.output, settings, unsafe=settings.unsafe_fixes)
    except MigrationRefused as exc:
        print(f"npu-lint migrate: {exc}; nothing was written", file=sys.stderr)
        return EXIT_ERROR
    fixed = sum(len(item.changes) for item in migration.files)
    remaining = sum(len(item.remaining) for item in migration.files)
    print(f"Migrated {len(migration.files)} Python files to {migration.project}: {fixed} fixed, {remaining} left.")
    counts = ", ".join(f"{name} ({rows})" for name, rows in migration.report_rows.items())
    print(f"Reports in {args.output}: report.html, analysis.json, {counts}")
    return EXIT_FINDINGS if remaining else EXIT_CLEAN


COMMANDS = {"migrate": run_migrate, "check": run_check, "fix": run_fix, "rules": run_rules, "explain": run_explain, "server": run_server,
            "daemon": run_daemon}


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if argv is None and args.command not in ("server", "daemon"):
        # The process ends with this command: keep the checking's collector thresholds to the
        # end, as the `gc.freeze()` below keeps the last trees. Put back after the files, the
        # old thresholds start a collection over every live object at once (1.8% of `check`).
        gc.set_threshold(*GC_THRESHOLDS)
    try:
        return COMMANDS[args.command](args)
    except (RuleDataError, ValueError) as exc:
        print(f"npu-lint: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    finally:
        if argv is None and args.command not in ("server", "daemon"):
            # The process ends here: leave what is left of the last files' trees to the OS.
            # Interpreter shutdown would otherwise run one more full collection over them
            # (measured: 5% of `check` over the real-code set). Only the command-line run does
            # this; a caller passing argv (tests, scripts) keeps its collector as it was.
            gc.freeze()


if __name__ == "__main__":
    sys.exit(main())
