"""Apply the fixes of findings to source text, safely.

Edits are applied from the end of the text backwards; edits that overlap one
already chosen wait for the next pass, and passes repeat until nothing is
left to fix (bounded). A pass whose result does not parse is retried one
finding at a time, and a finding that breaks the file is left unfixed and
reported by rule.
"""
from __future__ import annotations

import ast
import dataclasses
import difflib
import io
import warnings

from npu_lint.config.settings import Settings
from npu_lint.core.findings import Applicability, Edit, Finding, Position
from npu_lint.engine.engine import Engine, Problem, engine_for
from npu_lint.run.runner import lint_text
from npu_lint.core.records import record

MAX_PASSES = 8


@record(frozen=True)
class Change:
    """One applied fix, as the migration report lists it."""

    finding: Finding
    text: str  # the text the fix was applied to (a later pass sees an already fixed text)
    origin: tuple[int, ...]  # for each line of `text`, its line in the original (0: a line a fix added)


@record
class FixOutcome:
    text: str
    fixed: list[Finding]
    remaining: list[Finding]
    problems: list[Problem]
    changes: list[Change] = dataclasses.field(default_factory=list)


def _line_starts(text: str) -> list[int]:
    starts, offset = [0], 0
    for line in io.StringIO(text, newline="").readlines():
        offset += len(line)
        starts.append(offset)
    return starts


def _offset(starts: list[int], position: Position) -> int:
    line = min(max(position.line, 1), len(starts))
    return starts[line - 1] + position.column


def apply_edits(text: str, edits: list[Edit]) -> str:
    """Apply non-overlapping edits (identical ones count once), last first."""
    starts = _line_starts(text)
    spans = sorted({(_offset(starts, e.start), _offset(starts, e.end), e.content) for e in edits}, reverse=True)
    for begin, end, content in spans:
        text = text[:begin] + content + text[end:]
    return text


def fixable(finding: Finding, unsafe: bool) -> bool:
    fix = finding.fix
    if fix is None or not fix.edits:
        return False
    return fix.applicability is Applicability.SAFE or (unsafe and fix.applicability is Applicability.UNSAFE)


def _parses(text: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
        return True
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False


def _choose(findings: list[Finding]) -> list[Finding]:
    """Findings whose edits overlap no edit of an earlier chosen finding."""
    chosen, taken = [], []
    for finding in findings:
        spans = [(e.start, e.end, e.content) for e in finding.fix.edits]
        clash = any(
            s < te and ts < e or (s == e == ts == te and c != tc)
            for s, e, c in spans for ts, te, tc in taken
            if (s, e, c) != (ts, te, tc)
        )
        if not clash:
            chosen.append(finding)
            taken.extend(spans)
    return chosen


def line_origin_after(origin: tuple[int, ...], before: str, after: str) -> tuple[int, ...]:
    """Where each line of `after` came from, given where each line of `before` came from
    (0: a line a fix added). A changed line keeps the origin of the line it replaced."""
    old, new = before.splitlines(), after.splitlines()
    result: list[int] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            result.extend(origin[i] if i < len(origin) else 0 for i in range(i1, i2))
        elif tag == "replace":
            result.extend(_pair_lines(old[i1:i2], new[j1:j2], origin[i1:i2]))
        elif tag == "insert":
            result.extend([0] * (j2 - j1))
    return tuple(result)


def _pair_lines(old: list[str], new: list[str], origin: tuple[int, ...]) -> list[int]:
    """Origins for a replaced block: each old line goes, in order, to the most similar new line."""
    result = [0] * len(new)
    start = 0
    for index, line in enumerate(old):
        if start >= len(new):
            break
        scores = [difflib.SequenceMatcher(None, line, candidate).ratio() for candidate in new[start:]]
        best = start + scores.index(max(scores))
        # Leave room for the old lines still to place.
        best = min(best, len(new) - (len(old) - index)) if len(new) >= len(old) else best
        best = max(best, start)
        result[best] = origin[index] if index < len(origin) else 0
        start = best + 1
    return result


class Fixer:
    def __init__(self, settings: Settings = Settings(), unsafe: bool = False, rules=None):
        # A fix that writes an NPU name carries the `import torch_npu` edit itself
        # (see ModuleContext.report), whether or not NPU120 is selected.
        self.engine = engine_for(settings) if rules is None else Engine(settings, rules)
        self.unsafe = unsafe

    def fix_text(self, text: str, path: str = "<string>") -> FixOutcome:
        fixed: list[Finding] = []
        changes: list[Change] = []
        broken: set[tuple] = set()
        skipped: list[Problem] = []
        origin = tuple(range(1, len(text.splitlines()) + 1))
        for _ in range(MAX_PASSES):
            findings, _problems = lint_text(self.engine, text, path)
            todo = [f for f in findings if fixable(f, self.unsafe) and (f.code, f.start) not in broken]
            if not todo:
                break
            new_text, applied, failed = self._apply_pass(text, _choose(todo))
            broken.update((f.code, f.start) for f in failed)
            for finding in failed:
                skipped.append(Problem("fix-skipped", f"the fix of {finding.code} ({finding.name}) would not parse; left unfixed",
                                       finding.start.line, finding.start.column, finding.code))
            if not applied:
                break
            changes.extend(Change(finding, text, origin) for finding in applied)
            origin = line_origin_after(origin, text, new_text)
            text = new_text
            fixed.extend(applied)
        remaining, problems = lint_text(self.engine, text, path)
        return FixOutcome(text, fixed, remaining, problems + skipped, changes)

    def _apply_pass(self, text: str, chosen: list[Finding]) -> tuple[str, list[Finding], list[Finding]]:
        candidate = apply_edits(text, [e for f in chosen for e in f.fix.edits])
        if _parses(candidate):
            return candidate, chosen, []
        # Find the culprits one by one; apply one good fix and let the next pass re-lint.
        failed = [f for f in chosen if not _parses(apply_edits(text, list(f.fix.edits)))]
        good = [f for f in chosen if f not in failed]
        if good:
            return apply_edits(text, list(good[0].fix.edits)), good[:1], failed
        return text, [], failed
