"""`# noqa`, `# noqa: NPU101`, `# pylint: disable=<rule-name>` and a file's `# flake8: noqa`,
applied by the engine.

flake8 and pylint apply their own comments as well; applying them in the engine
makes every path (CLI, fix, migrate's reports, the editor) honour the same ones, with pylint's
scopes: a `# pylint: disable=...` after code on a line holds for that line, one on a line of its
own for the rest of the block it stands in (the rest of the module at the top level), up to a
`# pylint: enable=...` of the same name; `# pylint: skip-file` (and `disable=all`) for the file.
"""
from __future__ import annotations

import io
import re
import tokenize

from npu_lint.core.findings import Finding
from npu_lint.core.suppression_comments import PYLINT_DISABLE, noqa_codes


_MARKER = re.compile(r"noqa|pylint:", re.IGNORECASE)
# A `# pylint: disable` on a line of its own: it may hide findings many lines below it.
_BLOCK_DISABLE = re.compile(r"^[ \t]*#\s*pylint:\s*disable\s*=", re.MULTILINE)
# pylint ignores a whole file for a `# pylint: skip-file` comment, and for the deprecated
# `disable-all` and `disable=all` anywhere in it (message "file-ignored").
_PYLINT_SKIP_FILE = re.compile(r"#.*?\bpylint:\s*(?:skip-file|disable-all)\b")
_MAY_SKIP_FILE = re.compile(r"\bpylint:\s*(?:skip-file|disable-all|disable\s*=.*\ball\b)")
_PYLINT_ENABLE = re.compile(r"#\s*pylint:\s*enable\s*=\s*(?P<names>[\w\-, ]+)")
# flake8's own pattern (flake8/defaults.py NOQA_FILE, matched at the start of each raw line): a file
# holding `# flake8: noqa` is one flake8 skips whole; Ruff reads it so too.
_NOQA_FILE = re.compile(r"^\s*# flake8[:=]\s*noqa", re.IGNORECASE | re.MULTILINE)


class Suppressions:
    @staticmethod
    def may_suppress(text: str, findings: list[Finding] | None = None) -> bool:
        """Cheap: tokenizing for comments is only worth it when one could be on the line of a
        finding (`# noqa`, `# pylint: disable`) or the line before it (`disable-next`)."""
        lowered = text.lower()  # every comment read below says one of these two words
        if "noqa" not in lowered and "pylint" not in lowered:
            return False  # most files: two substring searches, not three regexes over the text
        lines, line, searched = set(), 1, 0
        for match in _MARKER.finditer(text):
            line += text.count("\n", searched, match.start())
            searched = match.start()
            lines.update((line, line + 1))
        if findings is None:
            return bool(lines)
        return any(finding.start.line in lines for finding in findings) or _skipped_whole(text) \
            or bool(_BLOCK_DISABLE.search(text) or _MAY_SKIP_FILE.search(text))

    def __init__(self, text: str):
        self.whole_file = _skipped_whole(text)
        self.noqa: dict[int, frozenset[str] | None] = {}  # None: every code
        self.disabled: dict[int, frozenset[str]] = {}
        # (first line, last line, names) of each `# pylint: disable` on a line of its own
        self.blocks: list[tuple[int, float, frozenset[str]]] = []
        comments, statements = _comments_and_statements(text)
        enabled = []
        for line, own_line, comment in comments:
            if _PYLINT_SKIP_FILE.search(comment):
                self.whole_file = True
            codes = noqa_codes(comment)
            if codes is not False:
                self.noqa[line] = codes
            for match in PYLINT_DISABLE.finditer(comment):
                names = _names(match)
                if "all" in names and not match.group("next"):
                    self.whole_file = True
                if own_line and not match.group("next"):
                    self.blocks.append((line, _block_end(line, statements), names))
                    continue
                target = line + 1 if match.group("next") else line
                self.disabled[target] = self.disabled.get(target, frozenset()) | names
            if own_line:
                enabled += [(line, _names(match)) for match in _PYLINT_ENABLE.finditer(comment)]
        for line, names in enabled:  # `# pylint: enable=...` ends a block's disable of those names
            blocks = []
            for first, last, disabled in self.blocks:
                if first < line <= last and disabled & names:
                    blocks += [(first, line - 1, disabled & names), (first, last, disabled - names)]
                else:
                    blocks.append((first, last, disabled))
            self.blocks = blocks

    def suppresses(self, finding: Finding) -> bool:
        if self.whole_file:
            return True
        line = finding.start.line
        if line in self.noqa:
            codes = self.noqa[line]
            if codes is None or any(finding.code.startswith(c) for c in codes):
                return True
        names = self.disabled.get(line, frozenset()).union(
            *(disabled for first, last, disabled in self.blocks if first <= line <= last))
        return finding.name in names or finding.code in names or "all" in names

    def filter(self, findings: list[Finding]) -> list[Finding]:
        return [f for f in findings if not self.suppresses(f)]


def _skipped_whole(text: str) -> bool:
    """Does a line start with `# flake8: noqa` (flake8 skips such a file, codes or not)?"""
    return _NOQA_FILE.search(text) is not None


def _names(match: re.Match) -> frozenset[str]:
    return frozenset(name.strip() for name in match.group("names").split(",") if name.strip())


def _comments_and_statements(text: str) -> tuple[list[tuple[int, bool, str]], list[tuple[int, int]]]:
    """(line, alone on its line, text) of each real comment, never one inside a string, and
    (line, column) where each logical line of code starts."""
    comments, statements = [], []
    line_has_code, at_start = set(), True
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                comments.append((token.start[0], token.start[0] not in line_has_code, token.string))
            elif token.type in (tokenize.NEWLINE, tokenize.NL):
                at_start = at_start or token.type == tokenize.NEWLINE
            elif token.type not in (tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER):
                line_has_code.update(range(token.start[0], token.end[0] + 1))
                if at_start:
                    statements.append(token.start)
                    at_start = False
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass
    return comments, statements


def _block_end(line: int, statements: list[tuple[int, int]]) -> float:
    """The last line of the block a comment on `line` stands in: the block of the next
    statement, which ends before the first later statement indented less (pylint's scope of a
    `# pylint: disable` on a line of its own; at the top level, the rest of the module)."""
    following = [start for start in statements if start[0] > line]
    if not following:
        return line
    indent = following[0][1]
    return next((start[0] - 1 for start in following if start[1] < indent), float("inf"))
