"""`# noqa`, `# noqa: NPU101`, `# pylint: disable=<rule-name>` and a file's `# flake8: noqa`,
applied by the engine.

flake8 and pylint apply their own comments as well; applying them in the engine
makes every path (CLI, fix, migrate's reports, the editor) honour the same ones.
"""
from __future__ import annotations

import io
import re
import tokenize

from npu_lint.core.findings import Finding
from npu_lint.core.suppression_comments import PYLINT_DISABLE, noqa_codes


_MARKER = re.compile(r"noqa|pylint:", re.IGNORECASE)
# flake8's own pattern (flake8/defaults.py NOQA_FILE, matched at the start of a raw line): a file
# holding `# flake8: noqa` is one flake8 skips whole; Ruff reads it so too.
_NOQA_FILE = re.compile(r"\s*# flake8[:=]\s*noqa", re.IGNORECASE)


class Suppressions:
    @staticmethod
    def may_suppress(text: str, findings: list[Finding] | None = None) -> bool:
        """Cheap: tokenizing for comments is only worth it when one could be on the line of a
        finding (`# noqa`, `# pylint: disable`) or the line before it (`disable-next`)."""
        lines, line, searched = set(), 1, 0
        for match in _MARKER.finditer(text):
            line += text.count("\n", searched, match.start())
            searched = match.start()
            lines.update((line, line + 1))
        if findings is None:
            return bool(lines)
        return any(finding.start.line in lines for finding in findings) or _skipped_whole(text)

    def __init__(self, text: str):
        self.whole_file = _skipped_whole(text)
        self.noqa: dict[int, frozenset[str] | None] = {}  # None: every code
        self.disabled: dict[int, frozenset[str]] = {}
        for line, comment in _comments(text):
            codes = noqa_codes(comment)
            if codes is not False:
                self.noqa[line] = codes
            for match in PYLINT_DISABLE.finditer(comment):
                target = line + 1 if match.group("next") else line
                names = frozenset(n.strip() for n in match.group("names").split(",") if n.strip())
                self.disabled[target] = self.disabled.get(target, frozenset()) | names

    def suppresses(self, finding: Finding) -> bool:
        if self.whole_file:
            return True
        line = finding.start.line
        if line in self.noqa:
            codes = self.noqa[line]
            if codes is None or any(finding.code.startswith(c) for c in codes):
                return True
        names = self.disabled.get(line, frozenset())
        return finding.name in names or finding.code in names or "all" in names

    def filter(self, findings: list[Finding]) -> list[Finding]:
        return [f for f in findings if not self.suppresses(f)]


def _skipped_whole(text: str) -> bool:
    """Does a line start with `# flake8: noqa` (flake8 skips such a file, codes or not)?"""
    return "flake8" in text.lower() and any(_NOQA_FILE.match(line) for line in text.splitlines())


def _comments(text: str):
    """(line, comment text) for each real comment: never inside a string."""
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                yield token.start[0], token.string
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return
