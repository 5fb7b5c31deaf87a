"""`npu-lint fix`: apply fixes in place, print a diff, or filter stdin to stdout."""
from __future__ import annotations

import difflib
import sys

from npu_lint.core.source import SourceError, decode_source
from npu_lint.frontends.reports.concise import format_concise as format_text
from npu_lint.frontends.reports.summary import notebooks_not_checked
from npu_lint.run.discovery import python_files
from npu_lint.run.file_writer import WriteRefused, encode_like, write_atomically
from npu_lint.run.fixer import Fixer, FixOutcome
from npu_lint.run.parallel import default_jobs, fix_texts
from npu_lint.run.runner import FileResult

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _diff(path: str, before: str, after: str) -> str:
    return "".join(difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True),
        fromfile=path, tofile=path,
    ))


def _fix_stdin(fixer: Fixer, args) -> int:
    data = sys.stdin.buffer.read()
    try:
        source = decode_source(data)
    except SourceError as exc:
        sys.stdout.buffer.write(data)  # never lose the input
        print(f"-: unreadable: {exc}", file=sys.stderr)
        return EXIT_FINDINGS
    outcome = fixer.fix_text(source.text, "-")
    if args.diff:
        sys.stdout.write(_diff("-", source.text, outcome.text))
    else:
        sys.stdout.buffer.write(encode_like(outcome.text, source))
    sys.stderr.write(format_text([FileResult("-", outcome.remaining, outcome.problems)]))
    return _status(args, [outcome], changed=outcome.text != source.text)


def _status(args, outcomes: list[FixOutcome], changed: bool, refused: bool = False) -> int:
    if any(p.kind == "internal-error" for o in outcomes for p in o.problems):
        return EXIT_ERROR
    if args.diff:
        return EXIT_FINDINGS if changed else EXIT_CLEAN
    if args.exit_zero:
        return EXIT_CLEAN
    return EXIT_FINDINGS if refused or any(o.remaining or o.problems for o in outcomes) else EXIT_CLEAN


def run_fix(args, settings) -> int:
    if args.paths == ["-"]:
        return _fix_stdin(Fixer(settings, unsafe=settings.unsafe_fixes), args)
    outcomes, results, refused, changed, fixed_count = [], [], False, False, 0
    files = []  # (path, bytes, source) or (path, None, the error)
    notebooks: list[str] = []
    for path in python_files(args.paths, settings, notebooks):
        try:
            with open(path, "rb") as handle:
                original = handle.read()
            files.append((path, original, decode_source(original)))
        except (OSError, SourceError) as exc:
            files.append((path, None, exc))
    fixed_texts = iter(fix_texts([(path, source.text) for path, original, source in files if original is not None],
                                 settings, settings.unsafe_fixes, jobs=getattr(args, "jobs", None) or default_jobs()))
    for path, original, source in files:
        if original is None:
            exc = source
            print(f"{path}:1:1: unreadable: {getattr(exc, 'strerror', None) or exc}")
            refused = True
            continue
        outcome = next(fixed_texts)
        outcomes.append(outcome)
        results.append(FileResult(path, outcome.remaining, outcome.problems))
        if outcome.text == source.text:
            continue
        changed = True
        if args.diff:
            sys.stdout.write(_diff(path, source.text, outcome.text))
            continue
        try:
            write_atomically(path, encode_like(outcome.text, source), original)
            fixed_count += len(outcome.fixed)
        except WriteRefused as exc:
            print(f"{path}: not written: {exc}")
            refused = True
    if not args.diff:
        sys.stdout.write(format_text(results))
        remaining = sum(len(r.findings) for r in results)
        print(f"Fixed {fixed_count} finding(s); {remaining} remaining.", file=sys.stderr)
    if notebooks:
        sys.stderr.write(notebooks_not_checked(notebooks))  # never rewritten as if they were Python
    return _status(args, outcomes, changed, refused)
