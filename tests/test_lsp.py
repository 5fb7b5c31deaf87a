"""`npu-lint server`, driven as an editor drives it: a subprocess speaking JSON-RPC on stdio.

pytest-lsp starts `python -m npu_lint server` and plays the client, with the
capabilities that real VS Code, Neovim and Emacs versions announce.
"""
from __future__ import annotations

import asyncio
import io
import subprocess
import sys
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("pytest_lsp")

import pytest_lsp  # noqa: E402
from conftest import REPO, run_tool  # noqa: E402
from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402

pytestmark = pytest.mark.filterwarnings("error::pytest_lsp.LspSpecificationWarning")

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "npu_lint", "server", "--stdio"])
GPU = 'import torch\nimport torch_npu\ntorch.cuda.synchronize()\nx = torch.ones(2, device="cuda")\n'
TIMEOUT = 60
URI = (REPO / "tests" / "lsp_example.py").as_uri()  # never written: the editor holds the text


async def _initialize(client: LanguageClient, editor: str) -> None:
    result = await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities(editor), root_uri=REPO.as_uri(),
    ))
    client.position_encoding = result.capabilities.position_encoding


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    await _initialize(lsp_client, "visual-studio-code")
    yield
    await lsp_client.shutdown_session()


ENCODINGS = {"visual-studio-code": "utf-16", "neovim@v0.11.0": "utf-8", "emacs": "utf-32"}


@pytest_lsp.fixture(config=SERVER, params=sorted(ENCODINGS))
async def any_client(lsp_client: LanguageClient, request):
    await _initialize(lsp_client, request.param)
    lsp_client.editor = request.param
    yield
    await lsp_client.shutdown_session()


# ------------------------------------------------------------ an editor's side

def _lines(text: str) -> list[str]:
    return io.StringIO(text, newline="").readlines()


def _offset(text: str, position: types.Position, encoding: str) -> int:
    """LSP position (0-based line, code units of `encoding`) -> index into text."""
    lines = _lines(text)
    if position.line >= len(lines):
        return len(text)
    start = sum(len(line) for line in lines[:position.line])
    units = 0
    for index, char in enumerate(lines[position.line]):
        if units >= position.character or char in "\r\n":
            return start + index
        units += {"utf-8": len(char.encode("utf-8")), "utf-16": 2 if ord(char) > 0xFFFF else 1, "utf-32": 1}[encoding]
    return start + len(lines[position.line])


def apply_workspace_edit(text: str, edit: types.WorkspaceEdit, uri: str, encoding: str = "utf-16") -> str:
    assert edit.document_changes is None and set(edit.changes) == {uri}
    spans = sorted(
        ((_offset(text, e.range.start, encoding), _offset(text, e.range.end, encoding), e.new_text) for e in edit.changes[uri]),
        reverse=True,
    )
    for begin, end, new in spans:
        text = text[:begin] + new + text[end:]
    return text


class Editor:
    """One open document: what an editor keeps and sends."""

    def __init__(self, client: LanguageClient, text: str, uri: str = URI):
        self.client, self.text, self.uri, self.version = client, text, uri, 1

    async def open(self) -> list[types.Diagnostic]:
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=self.uri, language_id="python", version=self.version, text=self.text),
        ))
        return await self.diagnostics()

    async def change(self, text: str) -> list[types.Diagnostic]:
        self.text, self.version = text, self.version + 1
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=self.uri, version=self.version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        ))
        return await self.diagnostics()

    async def diagnostics(self) -> list[types.Diagnostic]:
        params = await asyncio.wait_for(self.client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS), TIMEOUT)
        assert params.uri == self.uri
        assert params.version == self.version or (params.version is None and not params.diagnostics)  # None: closed
        return list(params.diagnostics)

    async def actions(self, range_: types.Range, diagnostics=(), only=None) -> list[types.CodeAction]:
        result = await asyncio.wait_for(self.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=self.uri), range=range_,
            context=types.CodeActionContext(diagnostics=list(diagnostics), only=only),
        )), TIMEOUT)
        assert all(isinstance(a, types.CodeAction) for a in result or [])
        return list(result or [])

    def apply(self, action: types.CodeAction, encoding: str = "utf-16") -> str:
        return apply_workspace_edit(self.text, action.edit, self.uri, encoding)


def _summary(diagnostics) -> list[tuple]:
    return [
        (d.code, d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character, d.severity)
        for d in diagnostics
    ]


def _one(actions, title_part: str) -> types.CodeAction:
    [action] = [a for a in actions if title_part in a.title]
    return action


# ------------------------------------------------------------ tests

@pytest.mark.asyncio
async def test_diagnostics_on_open(client: LanguageClient):
    diagnostics = await Editor(client, GPU).open()
    W = types.DiagnosticSeverity.Warning
    assert _summary(diagnostics) == [("NPU101", 2, 0, 2, 22, W), ("NPU110", 3, 25, 3, 31, W)]
    first = diagnostics[0]
    assert first.source == "npu-lint"
    assert first.message.startswith("`torch.cuda.synchronize` is a CUDA API")
    # The rule's page, as a file: URL into this checkout (relative `docs/rules/...` when not on disk).
    href = first.code_description.href
    assert href == (REPO / "docs" / "rules" / "NPU101.md").as_uri()
    page = Path(urllib.request.url2pathname(urllib.parse.urlparse(href).path))
    assert page.is_file() and "NPU101" in page.read_text(encoding="utf-8")


@pytest.mark.asyncio
async def test_severities_are_mapped(client: LanguageClient):
    text = ("import torch\nimport torch_npu\nimport torch.nn as nn\n\ntorch.backends.cudnn.benchmark = True\n"
            "model = nn.DataParallel(nn.Linear(2, 2))\ntorch.cuda.synchronize()\n")
    diagnostics = await Editor(client, text).open()
    by_code = {d.code: d.severity for d in diagnostics}
    assert by_code["NPU130"] == types.DiagnosticSeverity.Information  # info
    assert by_code["NPU140"] == types.DiagnosticSeverity.Error  # error
    assert by_code["NPU101"] == types.DiagnosticSeverity.Warning  # warning


@pytest.mark.asyncio
async def test_quick_fix_then_change_drops_the_finding(client: LanguageClient):
    editor = Editor(client, GPU)
    diagnostics = await editor.open()
    target = next(d for d in diagnostics if d.code == "NPU101")
    actions = await editor.actions(target.range, [target])
    fix = _one(actions, "Use `torch.npu.synchronize` (NPU101)")
    assert fix.kind == types.CodeActionKind.QuickFix and fix.is_preferred
    assert [d.code for d in fix.diagnostics] == ["NPU101"]
    text = editor.apply(fix)
    assert text == GPU.replace("torch.cuda.synchronize", "torch.npu.synchronize")
    after = await editor.change(text)
    assert [(d.code, d.range.start.line) for d in after] == [("NPU110", 3)]


@pytest.mark.asyncio
async def test_noqa_action_silences_the_line(client: LanguageClient):
    text = GPU + "torch.cuda.synchronize()  # noqa: NPU2\n"
    editor = Editor(client, text)
    diagnostics = await editor.open()
    assert [(d.code, d.range.start.line) for d in diagnostics] == [("NPU101", 2), ("NPU110", 3), ("NPU101", 4)]

    device = diagnostics[1]
    text = editor.apply(_one(await editor.actions(device.range, [device]), "Disable NPU110 for this line"))
    assert text.splitlines()[3] == 'x = torch.ones(2, device="cuda")  # noqa: NPU110'
    diagnostics = await editor.change(text)
    assert [(d.code, d.range.start.line) for d in diagnostics] == [("NPU101", 2), ("NPU101", 4)]

    # An existing `# noqa:` comment gets the code added, as flake8 reads it.
    last = diagnostics[1]
    text = editor.apply(_one(await editor.actions(last.range, [last]), "Disable NPU101 for this line"))
    assert text.splitlines()[4] == "torch.cuda.synchronize()  # noqa: NPU2, NPU101"
    diagnostics = await editor.change(text)
    assert [(d.code, d.range.start.line) for d in diagnostics] == [("NPU101", 2)]
    # flake8's own reading of the comment agrees.
    proc = run_tool("flake8", "--select", "NPU", "-", input=text)
    assert [line.split(":")[1:3] for line in proc.stdout.splitlines()] == [["3", "1"]], proc.stdout + proc.stderr


@pytest.mark.asyncio
async def test_noqa_before_crlf_and_not_after_a_backslash(client: LanguageClient):
    text = "import torch\r\nimport torch_npu\r\ntorch.cuda.synchronize()\r\ny = torch.cuda.synchronize() + \\\r\n    1\r\n"
    editor = Editor(client, text)
    diagnostics = await editor.open()
    assert [(d.code, d.range.start.line) for d in diagnostics] == [("NPU101", 2), ("NPU101", 3)]
    first, continued = diagnostics
    text = editor.apply(_one(await editor.actions(first.range, [first]), "Disable NPU101"))
    assert text.split("\r\n")[2] == "torch.cuda.synchronize()  # noqa: NPU101"
    # A comment after `\` would break the file: no such action there.
    assert not [a for a in await editor.actions(continued.range, [continued]) if "Disable" in a.title]


@pytest.mark.asyncio
async def test_fix_all_matches_npu_lint_fix(client: LanguageClient):
    text = 'import torch\n\ndev = "cuda"\ntorch.cuda.synchronize()\ny = torch.zeros(2).cuda()\n'
    editor = Editor(client, text)
    diagnostics = await editor.open()
    # A library module (no __main__ guard): no NPU120, but the fixes bring `import torch_npu` along.
    assert {d.code for d in diagnostics} == {"NPU101", "NPU103", "NPU111"}
    # What an editor asks for on save with "source.fixAll" in codeActionsOnSave.
    start = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))
    [action] = await editor.actions(start, only=[types.CodeActionKind.SourceFixAll])
    assert action.kind == "source.fixAll.npu-lint"
    [edit] = action.edit.changes[URI]
    assert (edit.range.start.line, edit.range.start.character, edit.range.end.line, edit.range.end.character) == (0, 0, 5, 0)
    fixed = editor.apply(action)
    cli = run_tool("npu_lint", "fix", "-", input=text)
    assert fixed == cli.stdout
    after = await editor.change(fixed)
    assert [d.code for d in after] == ["NPU111"]  # the unsafe fix is left for the user
    # Quick fixes are not offered where only fixAll was asked for, and vice versa.
    everywhere = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=9, character=0))
    assert {a.kind for a in await editor.actions(everywhere, only=[types.CodeActionKind.QuickFix])} == {"quickfix"}
    unsafe = _one(await editor.actions(everywhere, after), "(NPU111)")
    assert "unsafe" in unsafe.title and not unsafe.is_preferred


@pytest.mark.asyncio
async def test_display_only_fix_is_shown_disabled(client: LanguageClient):
    text = "import torch\nimport torch_npu\nimport torch.nn as nn\nmodel = nn.DataParallel(nn.Linear(2, 2))\n"
    editor = Editor(client, text)
    [diagnostic] = await editor.open()
    assert diagnostic.code == "NPU140"
    actions = await editor.actions(diagnostic.range, [diagnostic])
    shown = _one(actions, "DistributedDataParallel")
    assert shown.edit is None and shown.disabled is not None
    assert {a.title for a in actions} == {shown.title, "Disable NPU140 for this line"}


@pytest.mark.asyncio
async def test_syntax_error_does_not_kill_the_server(client: LanguageClient):
    editor = Editor(client, GPU)
    await editor.open()
    broken = await editor.change("import torch\nimport torch_npu\ntorch.cuda.synchronize(\n")
    [only] = broken
    assert only.code == "syntax-error" and only.severity == types.DiagnosticSeverity.Information
    assert only.range.start.line == 2
    # Half-typed code everywhere: code actions answer and offer nothing.
    assert await editor.actions(only.range, [only]) == []
    again = await editor.change(GPU + "torch.cuda.empty_cache()\n")
    assert [(d.code, d.range.start.line) for d in again] == [("NPU101", 2), ("NPU110", 3), ("NPU101", 4)]


@pytest.mark.asyncio
async def test_save_and_close(client: LanguageClient):
    editor = Editor(client, GPU)
    assert len(await editor.open()) == 2
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=URI)))
    assert len(await editor.diagnostics()) == 2
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=URI)))
    assert await editor.diagnostics() == []


@pytest.mark.asyncio
async def test_reads_the_projects_configuration(client: LanguageClient, tmp_path):
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.npu-lint]\nignore = ["NPU110"]\n', encoding="utf-8")
    uri = (tmp_path / "pkg" / "train.py").as_uri()  # unsaved: only the folder exists
    (tmp_path / "pkg").mkdir()
    editor = Editor(client, GPU, uri)
    assert [d.code for d in await editor.open()] == ["NPU101"]
    # Edited configuration counts from the next change or save, without a restart.
    config.write_text('[tool.npu-lint]\nselect = ["NPU11"]\n', encoding="utf-8")
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    assert [d.code for d in await editor.diagnostics()] == ["NPU110"]
    config.write_text('[tool.npu-lint]\nselect = "NPU1"\nbogus = 1\n', encoding="utf-8")
    [problem] = await editor.change(GPU + "\n")
    assert problem.code == "config-error" and "bogus" in problem.message
    assert problem.severity == types.DiagnosticSeverity.Warning


# Code points before `torch`: 10; UTF-16 units: 11 (the emoji is a surrogate pair);
# UTF-8 bytes: 15 (中 takes 3, the emoji 4).
WIDE = 'import torch\nimport torch_npu\ns = "中🔥"; torch.cuda.synchronize()\n'
EXPECTED_START = {"utf-32": 10, "utf-16": 11, "utf-8": 15}


@pytest.mark.asyncio
async def test_non_ascii_columns_in_the_negotiated_encoding(any_client: LanguageClient):
    client = any_client
    editor = Editor(client, WIDE)
    [diagnostic] = await editor.open()
    negotiated = client.position_encoding
    assert negotiated in EXPECTED_START
    start = EXPECTED_START[negotiated]
    assert (diagnostic.range.start.line, diagnostic.range.start.character) == (2, start)
    assert (diagnostic.range.end.line, diagnostic.range.end.character) == (2, start + 22)
    actions = await editor.actions(diagnostic.range, [diagnostic])
    fixed = editor.apply(_one(actions, "(NPU101)"), negotiated)
    assert fixed == WIDE.replace("cuda", "npu")
    noqa = editor.apply(_one(actions, "Disable NPU101"), negotiated)
    assert noqa.splitlines()[2] == 's = "中🔥"; torch.cuda.synchronize()  # noqa: NPU101'


@pytest.mark.asyncio
async def test_only_real_line_breaks_count(client: LanguageClient):
    # U+2028 and form feed split lines for str.splitlines, but not for Python or LSP.
    text = 'import torch\nimport torch_npu\ns = "\u2028\x0c"\rtorch.cuda.synchronize()\r\n'
    [diagnostic] = await Editor(client, text).open()
    assert (diagnostic.range.start.line, diagnostic.range.start.character) == (3, 0)


def test_position_map_edges():
    from npu_lint.core.findings import Position
    from npu_lint.frontends.lsp_server import PositionMap

    def pos(p):
        return (p.line, p.character)

    assert pos(PositionMap("").end()) == (0, 0)
    assert pos(PositionMap("x = 1\n").end()) == (1, 0)
    assert pos(PositionMap("x = '🔥'").end()) == (0, 8)
    assert pos(PositionMap("x = '🔥'", "utf-8").end()) == (0, 10)
    crlf = PositionMap("ab\r\ncd")
    assert pos(crlf.to_lsp(Position(1, 99))) == (0, 2), "never inside the line break"
    assert pos(crlf.to_lsp(Position(3, 0))) == (1, 2), "past the end: the end"


@pytest.mark.asyncio
async def test_each_editor_gets_the_encoding_it_prefers(any_client: LanguageClient):
    assert any_client.position_encoding == ENCODINGS[any_client.editor]


def test_server_without_pygls_exits_2():
    code = "import sys; sys.modules['pygls'] = None; from npu_lint.frontends.cli import main; sys.exit(main(['server']))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert "pip install 'npu-lint[lsp]'" in proc.stderr
    assert proc.stdout == ""
