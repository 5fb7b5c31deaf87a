"""Never a traceback: every front end on every kind of bad or odd input."""
from __future__ import annotations

import json
import sys

import pytest
from conftest import run_tool

from npu_lint.checks.torch_cuda_api import TorchCudaApi
from npu_lint.frontends import cli

GPU_LINE = "torch.cuda.synchronize()\n"
INPUTS = {
    "syntax_error.py": b"import torch\ntorch.cuda.synchronize(\n",
    "half_typed.py": b"import torch\nimport torch_npu\ndef f(x):\n    return x.cu",
    "latin1_cookie.py": "# -*- coding: latin-1 -*-\nimport torch\ns = 'caf\xe9'\ntorch.cuda.synchronize()\n".encode("latin-1"),
    "wrong_cookie.py": b"# -*- coding: no-such-codec -*-\nimport torch\n",
    "not_utf8.py": b"import torch\ns = '\xff\xfe'\ntorch.cuda.synchronize()\n",
    "bom.py": b"\xef\xbb\xbfimport torch\ntorch.cuda.synchronize()\n",
    "nul.py": b"import torch\x00\ntorch.cuda.synchronize()\n",
    "crlf.py": b"import torch\r\ntorch.cuda.synchronize()\r\n",
    "mixed_endings.py": b"import torch\r\nx = 1\ntorch.cuda.synchronize()\rprint(x)\n",
    "empty.py": b"",
    "only_comments.py": b"# cuda cuda cuda\n",
    "deep_parens.py": b"import torch\nx = " + b"(" * 300 + b"1" + b")" * 300 + b"\ntorch.cuda.synchronize()\n",
    "deep_calls.py": b"import torch\nx = " + b"f(" * 150 + b"torch.cuda.synchronize()" + b")" * 150 + b"\n",
    "long_chain.py": b"import torch\nx = torch" + b".cuda" * 3000 + b"\n",
    "type_params.py": b"import torch\ndef first[T](xs: list[T]) -> T:\n    return xs[0]\ntorch.cuda.synchronize()\n",
    "nested_fstring.py": b"import torch\nx = f\"{f'{torch.cuda.device_count()}'}\"\n",
    "binary.py": bytes(range(256)) * 4,
    # deepinv's lidc_idri.py: a `# type:` comment that is prose, alone after an `if` header, which
    # only a parse with type comments on rejects
    "prose_type_comment.py": b"import torch\nif True:\n    # type: numpy.ndarray\n    torch.cuda.synchronize()\n",
}


@pytest.fixture(scope="module")
def odd_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("odd")
    for name, data in INPUTS.items():
        (folder / name).write_bytes(data)
    return folder


def _no_traceback(proc):
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stdout[-3000:] + proc.stderr[-3000:]


def test_check_reports_findings_or_a_diagnostic_for_each(odd_files):
    proc = run_tool("npu_lint", "check", "--format", "concise", str(odd_files))
    _no_traceback(proc)
    assert proc.returncode == 1
    out = proc.stdout
    for name in ("syntax_error.py", "type_params.py" if sys.version_info < (3, 12) else "syntax_error.py"):
        assert f"{name}:" in out and "syntax-error" in out
    assert "nul.py:1:1: unreadable: file contains NUL bytes" in out
    assert "binary.py:1:1: unreadable" in out
    assert "wrong_cookie.py:1:1: unreadable: cannot determine the encoding" in out
    assert "not_utf8.py:1:1: unreadable: cannot decode as utf-8" in out
    for name in ("latin1_cookie.py", "bom.py", "crlf.py", "mixed_endings.py", "prose_type_comment.py"):
        assert any(f"{name}:" in line and "NPU101" in line for line in out.splitlines()), name
    assert "empty.py" not in out and "only_comments.py" not in out
    for name in ("deep_parens.py", "deep_calls.py", "long_chain.py", "nested_fstring.py"):
        assert f"{name}:" in out, f"{name}: neither a finding nor a diagnostic"


@pytest.mark.parametrize("args", [["--unsafe-fixes"], ["--diff"]])
def test_fix_never_crashes_and_only_writes_what_parses(odd_files, tmp_path, args):
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(odd_files, copy)
    proc = run_tool("npu_lint", "fix", *args, str(copy))
    _no_traceback(proc)
    for name, data in INPUTS.items():
        after = (copy / name).read_bytes()
        if after != data:
            assert "--diff" not in args
            compile(after, name, "exec")  # what fix writes parses


# flake8 7 itself dies in ast.parse on this one (RecursionError), before any plugin runs.
FLAKE8_OWN_CRASH = {"long_chain.py"}


def test_flake8_never_crashes(odd_files):
    files = [str(odd_files / n) for n in INPUTS if n not in FLAKE8_OWN_CRASH]
    proc = run_tool("flake8", "--select", "NPU,E9", *files)
    _no_traceback(proc)
    assert "NPU000" not in proc.stdout, proc.stdout


def test_a_prose_type_comment_is_no_syntax_error_on_any_front_end(odd_files):
    # pylint (astroid parses again without type comments) and flake8 (never reads them) check the
    # file; the CLI said "syntax-error" and nothing else
    path = str(odd_files / "prose_type_comment.py")
    flake8 = run_tool("flake8", "--select", "NPU,E9", path).stdout
    pylint = run_tool("pylint", "--load-plugins", "npu_lint", "--disable", "all", "--enable",
                      "npu-lint-npu1xx,syntax-error", "--persistent", "n", path).stdout
    check = run_tool("npu_lint", "check", "--format", "concise", path).stdout
    assert ":4:5: NPU101" in flake8 and "E9" not in flake8, flake8
    assert ":4:4: " in pylint and "syntax-error" not in pylint, pylint
    assert ":4:5: NPU101" in check and "syntax-error" not in check, check


def test_pylint_never_crashes(odd_files):
    files = [str(odd_files / n) for n in INPUTS if n not in ("binary.py", "nul.py")]
    proc = run_tool("pylint", "--load-plugins", "npu_lint", "--disable", "all", "--enable",
                    "npu-lint-npu1xx,npu-lint-npu2xx,npu-lint-npu4xx", "--persistent", "n", *files)
    assert "npu-lint-internal-error" not in proc.stdout, proc.stdout
    assert "Traceback" not in proc.stderr or "astroid-error" in proc.stdout, proc.stderr[-2000:]


def test_an_internal_error_in_one_rule_is_reported_and_the_run_goes_on(tmp_path, monkeypatch, capsys):
    path = tmp_path / "a.py"
    path.write_text("import torch\nx = torch.ones(1, device='cuda')\ntorch.cuda.synchronize()\n"
                    "if __name__ == '__main__':\n    pass\n")

    def broken(self, node, ctx):
        raise RuntimeError("boom")

    monkeypatch.setattr(TorchCudaApi, "visit", broken)
    status = cli.main(["check", "--format", "json", str(path)])
    out, err = capsys.readouterr()
    assert status == 2
    assert sorted(item["code"] for item in json.loads(out)) == ["NPU110", "NPU120"]  # the other rules still ran
    assert f"{path}:" in err and "rule NPU101 (torch-cuda-api) failed: RuntimeError: boom" in err
