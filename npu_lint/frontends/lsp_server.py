"""`npu-lint server`: a Language Server Protocol front end over stdio (needs pygls).

Like the other front ends it only translates: the engine (through
``runner.lint_text``, which applies ``# noqa``) finds, ``fixer.Fixer`` fixes,
and this module turns their values into LSP diagnostics, code actions and
text edits.

Positions: findings use 1-based lines and 0-based code-point columns; LSP uses
0-based lines and columns counted in the code units of the position encoding
agreed at ``initialize`` (UTF-16 unless the client offers UTF-8 or UTF-32
first).  ``PositionMap`` converts, splitting lines on ``\\n``, ``\\r\\n`` and
``\\r`` only, as both Python's tokenizer and the LSP specification do.

A file that does not parse gets one Information diagnostic (code
``syntax-error``) saying that npu-lint cannot check it until it parses; the
findings come back with the next change that parses.
"""
from __future__ import annotations

import asyncio
import io
import logging
import os
import tokenize
from pathlib import Path
from typing import Iterable, Sequence

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from npu_lint import __version__
from npu_lint.config.files import load_settings
from npu_lint.config.settings import Settings
from npu_lint.core.findings import Applicability, Edit, Finding, Position, Severity
from npu_lint.engine.engine import Problem, engine_for
from npu_lint.core.suppression_comments import NOQA
from npu_lint.knowledge.loader import rule_by_code
from npu_lint.run.fixer import Fixer, fixable
from npu_lint.run.runner import lint_text

SOURCE = "npu-lint"
FIX_ALL_KIND = f"{types.CodeActionKind.SourceFixAll.value}.{SOURCE}"  # "source.fixAll.npu-lint"
CHANGE_DELAY = 0.15  # seconds of quiet after a change before linting (typing fast lints once)
PYTHON_LANGUAGES = frozenset({"python", "pyi"})
CHECKOUT_ROOT = Path(__file__).resolve().parents[2]  # where docs/ is in a checkout or editable install

SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}

log = logging.getLogger(__name__)


# ---------------------------------------------------------------- settings

def settings_for(path: str | None) -> Settings:
    """The settings for one file, as `npu-lint check` would use them.

    The nearest pyproject.toml / setup.cfg above the file (the current folder
    for unsaved documents), read again on every lint so that editing the
    configuration takes effect on the next change, with no restart.  Raises
    ConfigError for a configuration the CLI would refuse.
    """
    start = os.path.dirname(os.path.abspath(path)) if path and os.path.isabs(path) else os.getcwd()
    return load_settings(start)


_FIXERS: dict[Settings, Fixer] = {}


def _cached(cache: dict, settings: Settings, make):
    """One fixer per distinct settings, at most 8 (a long-lived server sees settings change)."""
    if settings not in cache:
        if len(cache) >= 8:
            cache.clear()
        cache[settings] = make(settings)
    return cache[settings]


def _fixer(settings: Settings) -> Fixer:
    return _cached(_FIXERS, settings, Fixer)


# ---------------------------------------------------------------- positions

def split_lines(text: str) -> list[str]:
    """Lines with their terminators; only \\n, \\r\\n and \\r end a line."""
    return io.StringIO(text, newline="").readlines()


def _content(line: str) -> str:
    if line.endswith("\r\n"):
        return line[:-2]
    if line.endswith(("\n", "\r")):
        return line[:-1]
    return line


def _units(text: str, encoding: str) -> int:
    if encoding == types.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8", "surrogatepass"))
    if encoding == types.PositionEncodingKind.Utf32:
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


class PositionMap:
    """Finding positions (1-based line, code-point column) -> LSP positions."""

    def __init__(self, text: str, encoding: str = types.PositionEncodingKind.Utf16):
        self.lines = split_lines(text)
        self.encoding = encoding

    def end(self) -> types.Position:
        """The position just past the last character of the text."""
        if not self.lines:
            return types.Position(line=0, character=0)
        last = self.lines[-1]
        if _content(last) != last:  # the text ends with a line break
            return types.Position(line=len(self.lines), character=0)
        return types.Position(line=len(self.lines) - 1, character=_units(last, self.encoding))

    def to_lsp(self, position: Position) -> types.Position:
        index = position.line - 1
        if index < 0:
            return types.Position(line=0, character=0)
        if index >= len(self.lines):
            return self.end()
        content = _content(self.lines[index])
        column = min(max(position.column, 0), len(content))
        return types.Position(line=index, character=_units(content[:column], self.encoding))

    def range(self, start: Position, end: Position) -> types.Range:
        return types.Range(start=self.to_lsp(start), end=self.to_lsp(end))

    def line_end(self, line: int) -> Position:
        """The finding-style position at the end of a line's content."""
        return Position(line, len(_content(self.lines[line - 1]))) if 0 < line <= len(self.lines) else Position(line, 0)


# ---------------------------------------------------------------- translation

def doc_href(code: str) -> str:
    """A link to the rule's page: a ``file:`` URL where the page is on disk, else relative."""
    path = rule_by_code(code).doc_path
    page = CHECKOUT_ROOT / path
    return page.as_uri() if page.is_file() else path


def related_information(finding: Finding, positions: PositionMap, uri: str) -> list | None:
    """The finding's related places (later uses, library lines) as the editor's related information."""
    if not finding.related:
        return None
    return [types.DiagnosticRelatedInformation(
        location=types.Location(
            uri=Path(related.path).resolve().as_uri() if related.path else uri,
            # Another file's positions are not in this document's map; its lines and columns are
            # close enough for an editor link (UTF-16 only differs outside the BMP).
            range=(positions.range(related.start, related.end) if not related.path else types.Range(
                types.Position(related.start.line - 1, related.start.column),
                types.Position(related.end.line - 1, related.end.column)))),
        message=related.message) for related in finding.related]


def diagnostic(finding: Finding, positions: PositionMap, uri: str = "") -> types.Diagnostic:
    try:
        description = types.CodeDescription(href=doc_href(finding.code))
    except KeyError:  # a rule that is not shipped (tests, plugins): no page to link
        description = None
    return types.Diagnostic(
        range=positions.range(finding.start, finding.end),
        message=finding.message,
        severity=SEVERITY[finding.severity],
        code=finding.code,
        code_description=description,
        source=SOURCE,
        related_information=related_information(finding, positions, uri),
    )


def problem_diagnostic(problem: Problem, positions: PositionMap) -> types.Diagnostic:
    start = Position(problem.line, problem.column)
    end = positions.line_end(problem.line)
    if problem.kind == "syntax-error":
        message = f"npu-lint cannot check this file until it parses ({problem.message})"
        severity = types.DiagnosticSeverity.Information
    else:
        message = problem.message
        severity = types.DiagnosticSeverity.Warning
    return types.Diagnostic(
        range=positions.range(start, max(start, end)),
        message=message, severity=severity, code=problem.kind, source=SOURCE,
    )


def text_edits(edits: Iterable[Edit], positions: PositionMap) -> list[types.TextEdit]:
    return [types.TextEdit(range=positions.range(e.start, e.end), new_text=e.content) for e in sorted(set(edits))]


def line_tails(text: str) -> tuple[dict[int, tokenize.TokenInfo], set[int]] | None:
    """Per line: its comment token, and whether the line really ends there.

    A line ends where the tokenizer puts NEWLINE or NL; it does not after a
    backslash or inside a string, where no comment can go. None when the text
    cannot be tokenized.
    """
    comments: dict[int, tokenize.TokenInfo] = {}
    ends: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                comments[token.start[0]] = token
            elif token.type in (tokenize.NEWLINE, tokenize.NL):
                ends.add(token.start[0])
    except (tokenize.TokenError, SyntaxError):
        return None
    return comments, ends


def noqa_edit(tails, line: int, code: str, positions: PositionMap) -> types.TextEdit | None:
    """Add `code` to the `# noqa:` comment of a line, or append `  # noqa: CODE`.

    `tails` is what line_tails returned. None when the line cannot take a
    comment at its end, or when a bare `# noqa` already silences it.
    """
    if tails is None or line not in tails[1]:
        return None
    comment = tails[0].get(line)
    if comment is not None:
        match = NOQA.search(comment.string)
        if match and match.group("codes"):
            kept = match.group("codes").rstrip(", \t")
            at = Position(line, comment.start[1] + match.start("codes") + len(kept))
            return types.TextEdit(range=positions.range(at, at), new_text=f", {code}")
        if match:
            return None
    end = positions.line_end(line)
    return types.TextEdit(range=positions.range(end, end), new_text=f"  # noqa: {code}")


def _overlaps(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> tuple[int, int]:
        return (p.line, p.character)

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def _wanted(kind: str, only: Sequence[str] | None) -> bool:
    return not only or any(kind == k or kind.startswith(f"{k}.") for k in only)


# ---------------------------------------------------------------- the server

class Linted:
    """One lint of one document text, with what code actions need of it."""

    def __init__(self, text: str, path: str, encoding: str):
        self.text, self.path = text, path
        self.positions = PositionMap(text, encoding)
        self._fixed: str | None = None
        self._tails = None
        try:
            self.settings = settings_for(path)
        except ValueError as exc:  # ConfigError: `npu-lint check` refuses it too; say so on line 1
            self.settings, self.findings, self.problems = None, [], [Problem("config-error", str(exc))]
            return
        try:
            self.findings, self.problems = lint_text(engine_for(self.settings), text, path)
        except Exception as exc:  # never let one file take the editor's server down
            log.exception("npu-lint failed on %s", path)
            self.findings, self.problems = [], [Problem("internal-error", f"npu-lint failed: {type(exc).__name__}: {exc}")]

    def diagnostics(self) -> list[types.Diagnostic]:
        return [problem_diagnostic(p, self.positions) for p in self.problems] + [
            diagnostic(f, self.positions, self.uri) for f in self.findings
        ]

    @property
    def uri(self) -> str:
        return Path(self.path).resolve().as_uri()

    def tails(self):
        if self._tails is None:
            self._tails = (line_tails(self.text),)
        return self._tails[0]

    def fixed_text(self) -> str:
        """The text with every safe fix applied (computed once, on demand)."""
        if self._fixed is None:
            self._fixed = self.text
            if any(fixable(f, unsafe=False) for f in self.findings):
                try:
                    self._fixed = _fixer(self.settings).fix_text(self.text, self.path).text
                except Exception:
                    log.exception("npu-lint could not fix %s", self.path)
        return self._fixed


class NpuLintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(SOURCE, __version__, text_document_sync_kind=types.TextDocumentSyncKind.Full)
        self.linted: dict[str, Linted] = {}
        self.pending: dict[str, asyncio.TimerHandle] = {}

    def _encoding(self) -> str:
        return self.workspace.position_encoding or types.PositionEncodingKind.Utf16

    def lint(self, uri: str, fresh: bool = False) -> Linted | None:
        """The document's lint: new when asked (open, change, save), else the last one for this text."""
        document = self.workspace.get_text_document(uri)
        path = to_fs_path(uri) or uri
        if document.language_id and document.language_id not in PYTHON_LANGUAGES and not path.endswith((".py", ".pyi")):
            return None
        text = document.source
        cached = self.linted.get(uri)
        if fresh or cached is None or cached.text != text or cached.positions.encoding != self._encoding():
            cached = self.linted[uri] = Linted(text, path, self._encoding())
        return cached

    def publish(self, uri: str) -> None:
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        linted = self.lint(uri, fresh=True)
        if linted is None:
            return
        version = self.workspace.get_text_document(uri).version
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=linted.diagnostics())
        )

    def publish_later(self, uri: str) -> None:
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        self.pending[uri] = asyncio.get_running_loop().call_later(CHANGE_DELAY, self.publish_safely, uri)

    def publish_safely(self, uri: str) -> None:
        try:
            self.publish(uri)
        except Exception:
            log.exception("npu-lint could not publish diagnostics for %s", uri)

    def forget(self, uri: str) -> None:
        handle = self.pending.pop(uri, None)
        if handle is not None:
            handle.cancel()
        self.linted.pop(uri, None)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        linted = self.lint(uri)
        if linted is None:
            return []
        only = params.context.only
        wanted = [
            f for f in linted.findings
            if _overlaps(linted.positions.range(f.start, f.end), params.range)
        ]
        actions: list[types.CodeAction] = []
        if _wanted(types.CodeActionKind.QuickFix, only):
            actions.extend(self._fix_actions(uri, linted, wanted))
            actions.extend(self._noqa_actions(uri, linted, wanted))
        if _wanted(FIX_ALL_KIND, only) and linted.fixed_text() != linted.text:
            actions.append(types.CodeAction(
                title="npu-lint: fix all safe findings in this file",
                kind=FIX_ALL_KIND,
                edit=types.WorkspaceEdit(changes={uri: [types.TextEdit(
                    range=types.Range(start=types.Position(line=0, character=0), end=linted.positions.end()),
                    new_text=linted.fixed_text(),
                )]}),
            ))
        return actions

    def _disabled_support(self) -> bool:
        capability = self.client_capabilities.text_document
        code_action = capability.code_action if capability else None
        return bool(code_action and code_action.disabled_support)

    def _fix_actions(self, uri: str, linted: Linted, findings: list[Finding]) -> Iterable[types.CodeAction]:
        for finding in findings:
            fix = finding.fix
            if fix is None:
                continue
            diag = diagnostic(finding, linted.positions, uri)
            if fix.applicability is Applicability.DISPLAY_ONLY or not fix.edits:
                if self._disabled_support():
                    yield types.CodeAction(
                        title=f"{fix.message} ({finding.code})", kind=types.CodeActionKind.QuickFix, diagnostics=[diag],
                        disabled=types.CodeActionDisabled(reason="npu-lint shows this fix but cannot apply it; edit by hand"),
                    )
                continue
            unsafe = " (unsafe fix: check the result)" if fix.applicability is Applicability.UNSAFE else ""
            yield types.CodeAction(
                title=f"{fix.message} ({finding.code}){unsafe}",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diag],
                is_preferred=fix.applicability is Applicability.SAFE,
                edit=types.WorkspaceEdit(changes={uri: text_edits(fix.edits, linted.positions)}),
            )

    def _noqa_actions(self, uri: str, linted: Linted, findings: list[Finding]) -> Iterable[types.CodeAction]:
        seen = set()
        for finding in findings:
            key = (finding.start.line, finding.code)
            if key in seen:
                continue
            seen.add(key)
            edit = noqa_edit(linted.tails(), finding.start.line, finding.code, linted.positions)
            if edit is None:
                continue
            yield types.CodeAction(
                title=f"Disable {finding.code} for this line",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic(f, linted.positions, uri) for f in findings if (f.start.line, f.code) == key],
                edit=types.WorkspaceEdit(changes={uri: [edit]}),
            )


def make_server() -> NpuLintServer:
    server = NpuLintServer()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: NpuLintServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.publish_safely(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: NpuLintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.publish_later(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: NpuLintServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.publish_safely(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: NpuLintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND], resolve_provider=False),
    )
    def code_action(ls: NpuLintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        try:
            return ls.code_actions(params)
        except Exception:
            log.exception("npu-lint could not compute code actions")
            return []

    return server


def serve() -> int:
    """Serve one editor over stdin/stdout until it says exit (or closes stdin)."""
    import sys

    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print must not corrupt the JSON-RPC stream
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="npu-lint server: %(levelname)s: %(message)s")
    make_server().start_io(stdin, stdout)
    return 0
