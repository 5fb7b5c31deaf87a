"""The closing lines of `npu-lint check` in the text and concise formats, in Ruff's manner:
how many findings, how many `npu-lint fix` would fix, and how many more `--unsafe-fixes` would."""
from __future__ import annotations

from typing import Iterable

from npu_lint.run.fixer import fixable
from npu_lint.run.runner import FileResult


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def summary(results: Iterable[FileResult], unsafe_fixes: bool, fix_command: str = "npu-lint fix") -> str:
    """`unsafe_fixes`: whether `fix_command` applies unsafe fixes (configuration or flag)."""
    findings = [f for r in results for f in r.findings]
    unreadable = sum(1 for r in results if r.problems)
    if not findings and not unreadable:
        return "All checks passed!\n"
    found = f"Found {_plural(len(findings), 'finding')}"
    if unreadable:
        found += f" and {_plural(unreadable, 'file')} that could not be checked"
    safe = sum(1 for f in findings if fixable(f, unsafe=False))
    with_unsafe = sum(1 for f in findings if fixable(f, unsafe=True))
    now, hidden = (with_unsafe, 0) if unsafe_fixes else (safe, with_unsafe - safe)
    more = f"{hidden} more with `npu-lint fix --unsafe-fixes`"
    if now:
        fixes = f"[*] {now} fixable with `{fix_command}`" + (f" ({more})" if hidden else "") + "."
    elif hidden:
        fixes = f"No safe fixes ({more})."
    else:
        fixes = ""
    return f"{found}.\n" + (f"{fixes}\n" if fixes else "")
