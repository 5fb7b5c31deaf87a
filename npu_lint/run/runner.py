"""Lint one file from disk: read, decode, check. Shared by the CLI, fix and the editor."""
from __future__ import annotations

import os

from npu_lint.core.findings import Finding
from npu_lint.core.source import DecodedSource, SourceError, decode_source
from npu_lint.engine.engine import CheckResult, Engine, Problem
from npu_lint.core.records import record

MAX_FILE_BYTES = 50 * 1024 * 1024


@record
class FileResult:
    path: str
    findings: list[Finding]
    problems: list[Problem]
    source: DecodedSource | None = None


def lint_text(engine: Engine, text: str, path: str) -> tuple[list[Finding], list[Problem]]:
    """Findings and problems of one text (the engine has applied `# noqa` and `# pylint: disable`)."""
    result: CheckResult = engine.check_text(text, path)
    return result.findings, result.problems


def lint_bytes(engine: Engine, data: bytes, path: str) -> FileResult:
    try:
        source = decode_source(data)
    except SourceError as exc:
        return FileResult(path, [], [Problem("unreadable", str(exc))])
    findings, problems = lint_text(engine, source.text, path)
    return FileResult(path, findings, problems, source)


def read_path(path: str) -> bytes | FileResult:
    """The file's bytes, or the result saying why it cannot be read."""
    try:
        size = os.path.getsize(path)
        if size > MAX_FILE_BYTES:
            return FileResult(path, [], [Problem("unreadable", f"file is larger than {MAX_FILE_BYTES // 2**20} MB; skipped")])
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        return FileResult(path, [], [Problem("unreadable", f"cannot read: {exc.strerror or exc}")])


def lint_path(engine: Engine, path: str) -> FileResult:
    data = read_path(path)
    if isinstance(data, FileResult):
        return data
    return lint_bytes(engine, data, path)
