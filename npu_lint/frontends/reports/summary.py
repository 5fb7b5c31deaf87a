"""The closing lines of `npu-lint check` in the text and concise formats, in Ruff's manner:
how many findings, how many `npu-lint fix` would fix, and how many more `--unsafe-fixes` would."""
from __future__ import annotations

from typing import Iterable, Sequence

from npu_lint.run.fixer import fixable
from npu_lint.run.runner import FileResult


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def summary(results: Iterable[FileResult], unsafe_fixes: bool, fix_command: str = "npu-lint fix",
            notebooks: Sequence[str] = ()) -> str:
    """`unsafe_fixes`: whether `fix_command` applies unsafe fixes (configuration or flag);
    `notebooks`: the Jupyter notebooks found and not checked."""
    results = list(results)
    if notebooks and not results:
        return notebooks_not_checked(notebooks)
    return _counts(results, unsafe_fixes, fix_command) + (notebooks_not_checked(notebooks) if notebooks else "")


def notebooks_not_checked(notebooks: Sequence[str]) -> str:
    shown = ", ".join(notebooks[:MAX_NOTEBOOKS_NAMED]) + (", ..." if len(notebooks) > MAX_NOTEBOOKS_NAMED else "")
    return (f"{_plural(len(notebooks), 'Jupyter notebook')} not checked: npu-lint reads Python source; "
            f"`jupyter nbconvert --to script NAME.ipynb` writes a notebook's code as a script to check ({shown}).\n")


MAX_NOTEBOOKS_NAMED = 3


def _counts(results: list[FileResult], unsafe_fixes: bool, fix_command: str) -> str:
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
