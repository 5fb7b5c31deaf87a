"""`npu-lint check`: exit statuses, `# noqa`, --select/--ignore, JSON shape, bad input."""
from __future__ import annotations

import json

from conftest import run_tool

GPU = "import torch\nimport torch_npu\ntorch.cuda.synchronize()\n"


def _write(tmp_path, text, name="script.py", encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return path


def test_exit_status_and_text_format(tmp_path):
    path = _write(tmp_path, GPU)
    proc = run_tool("npu_lint", "check", "--format", "concise", str(path))
    assert proc.returncode == 1
    assert proc.stdout == (f"{path}:3:1: NPU101 `torch.cuda.synchronize` is a CUDA API; on the NPU use `torch.npu.synchronize`\n"
                           "\nFound 1 finding.\n[*] 1 fixable with `npu-lint fix`.\n")
    full = run_tool("npu_lint", "check", str(path)).stdout
    assert full.startswith(f"{path}:3:1: NPU101 [*] `torch.cuda.synchronize` is a CUDA API")
    assert "3 | torch.cuda.synchronize()\n  | ^^^^^^^^^^^^^^^^^^^^^^ NPU101\n" in full
    assert "= help: Use `torch.npu.synchronize`" in full
    clean = _write(tmp_path, "import torch\nx = torch.ones(2)\n", "clean.py")
    proc = run_tool("npu_lint", "check", str(clean))
    assert (proc.returncode, proc.stdout) == (0, "All checks passed!\n")
    assert run_tool("npu_lint", "check", "--exit-zero", str(path)).returncode == 0


def test_json_has_ruffs_shape(tmp_path):
    path = _write(tmp_path, GPU)
    [item] = json.loads(run_tool("npu_lint", "check", "--format", "json", str(path)).stdout)
    assert item["filename"] == str(path)
    assert (item["code"], item["name"], item["severity"]) == ("NPU101", "torch-cuda-api", "warning")
    assert item["location"] == {"row": 3, "column": 1}
    assert item["end_location"] == {"row": 3, "column": 23}
    assert item["noqa_row"] == 3 and item["url"] == "docs/rules/NPU101.md"
    assert item["fix"] == {
        "applicability": "safe",
        "message": "Use `torch.npu.synchronize`",
        "edits": [{"content": "npu", "location": {"row": 3, "column": 7}, "end_location": {"row": 3, "column": 11}}],
    }


def test_noqa_and_pylint_disable(tmp_path):
    text = (
        "import torch\nimport torch_npu\n"
        "torch.cuda.synchronize()  # noqa\n"
        "torch.cuda.synchronize()  # noqa: NPU101\n"
        "torch.cuda.synchronize()  # noqa: NPU2\n"
        "torch.cuda.synchronize()  # pylint: disable=torch-cuda-api\n"
        "s = '# noqa'; torch.cuda.synchronize()\n"
    )
    items = json.loads(run_tool("npu_lint", "check", "--format", "json", str(_write(tmp_path, text))).stdout)
    assert [item["location"]["row"] for item in items] == [5, 7]


def test_a_file_flake8_skips_whole_is_skipped_by_every_front_end(tmp_path):
    # mmdeploy 0.2's backend/tensorrt/__init__.py starts with `# flake8: noqa`: flake8 skips the
    # file (its own pattern, codes or not), so the CLI and pylint's plugin say nothing there either.
    body = "import torch\nimport torch_npu\ntorch.cuda.synchronize()\n"
    for header in ("# flake8: noqa\n", "  # FLAKE8=noqa: E501\n"):
        path = _write(tmp_path, header + body)
        assert json.loads(run_tool("npu_lint", "check", "--format", "json", str(path)).stdout) == []
        assert run_tool("flake8", "--select", "NPU", str(path)).stdout == ""
        pylint = run_tool("pylint", "--load-plugins", "npu_lint", "--disable=all", "--enable=torch-cuda-api", str(path))
        assert "torch-cuda-api" not in pylint.stdout
    # Not a comment of its own (flake8 warns and checks the file), nor one inside a string's text
    for text in (body.replace("synchronize()", "synchronize()  # flake8: noqa"),
                 "x = '# flake8: noqa'\n" + body):
        path = _write(tmp_path, text)
        items = json.loads(run_tool("npu_lint", "check", "--format", "json", str(path)).stdout)
        assert [item["code"] for item in items] == ["NPU101"]
        assert "NPU101" in run_tool("flake8", "--select", "NPU", str(path)).stdout


_PYLINT_SCOPES = """\
import torch
import torch_npu

torch.cuda.synchronize()


def own_line_in_function():
    torch.cuda.synchronize()
    # pylint: disable=torch-cuda-api
    torch.cuda.synchronize()
    if True:
        torch.cuda.synchronize()
    torch.cuda.synchronize()


def after():
    torch.cuda.synchronize()


def trailing_on_def():  # pylint: disable=torch-cuda-api
    torch.cuda.synchronize()
    return torch.cuda.device_count()


def in_if_block(x):
    if x:
        # pylint: disable=torch-cuda-api
        torch.cuda.synchronize()
    torch.cuda.synchronize()


def multi_line_statement():
    y = torch.cuda.device_count(  # pylint: disable=torch-cuda-api
    ) + torch.cuda.device_count()
    return y


def reenabled():
    # pylint: disable=torch-cuda-api
    torch.cuda.synchronize()
    # pylint: enable=torch-cuda-api
    torch.cuda.synchronize()


class Holder:
    # pylint: disable=torch-cuda-api
    def a(self):
        torch.cuda.synchronize()

    def b(self):
        torch.cuda.synchronize()


def trailing_if(x):
    if x:  # pylint: disable=torch-cuda-api
        torch.cuda.synchronize()
    else:
        torch.cuda.synchronize()
    torch.cuda.synchronize()


# pylint: disable=torch-cuda-api
torch.cuda.synchronize()


def last():
    torch.cuda.synchronize()
"""


def test_pylint_disable_holds_where_pylint_says_on_every_front_end(tmp_path):
    # pylint's scopes: after code, the line; on a line of its own, the rest of its block (the
    # rest of the module at the top level) up to an `enable`; on a `def` or `if` line, that line.
    path = _write(tmp_path, _PYLINT_SCOPES)
    pylint = run_tool("pylint", "--load-plugins", "npu_lint", "--disable=all", "--enable=torch-cuda-api",
                      "--score=n", str(path)).stdout
    pylint_rows = [int(line.split(":")[1]) for line in pylint.splitlines() if "W5101" in line]
    cli_rows = [item["location"]["row"] for item in
                json.loads(run_tool("npu_lint", "check", "--format", "json", str(path)).stdout)]
    flake8_rows = [int(line.split(":")[1]) for line in
                   run_tool("flake8", "--select", "NPU101", str(path)).stdout.splitlines()]
    assert pylint_rows == [4, 8, 17, 21, 22, 29, 34, 42, 56, 58, 59]
    assert cli_rows == flake8_rows == pylint_rows
    # pylint ignores the whole file for `skip-file`, and for the deprecated `disable=all` anywhere;
    # not for `disable-next=all`, a name that only starts with "all", or the text of a string
    body = "import torch\nimport torch_npu\nx = torch.cuda.device_count()\n"
    for comment, rows in (("# pylint: skip-file", []), ("    y = 1  # pylint: disable=all", []),
                          ("y = 1  # pylint: disable-next=all", [3]), ("s = '# pylint: skip-file'", [3])):
        path = _write(tmp_path, body + ("def f():\n" if comment.startswith(" ") else "") + comment + "\n")
        pylint = run_tool("pylint", "--load-plugins", "npu_lint", "--disable=all", "--enable=torch-cuda-api",
                          "--score=n", str(path)).stdout
        cli = json.loads(run_tool("npu_lint", "check", "--format", "json", str(path)).stdout)
        assert [int(line.split(":")[1]) for line in pylint.splitlines() if "W5101" in line] == rows, comment
        assert [item["location"]["row"] for item in cli] == rows, comment


def test_select_and_ignore(tmp_path):
    text = GPU + "x = torch.ones(2, device='cuda')\n"
    path = _write(tmp_path, text)

    def codes(*args):
        proc = run_tool("npu_lint", "check", "--format", "json", *args, str(path))
        return sorted(item["code"] for item in json.loads(proc.stdout))

    assert codes() == ["NPU101", "NPU110"]
    assert codes("--select", "NPU11") == ["NPU110"]
    assert codes("--ignore", "NPU110") == ["NPU101"]
    assert codes("--select", "NPU1", "--ignore", "NPU11") == ["NPU101"]


def test_select_all_runs_every_rule_and_a_wrong_code_is_an_error(tmp_path):
    # A new user tries Ruff's `--select ALL`: it matched no rule and ended in "All checks passed!".
    text = GPU + "loader = torch.utils.data.DataLoader([1, 2])\n"  # NPU601, NPU602: off by default
    path = _write(tmp_path, text)

    def codes(*args):
        proc = run_tool("npu_lint", "check", "--format", "json", *args, str(path))
        return sorted(item["code"] for item in json.loads(proc.stdout))

    every = ["NPU101", "NPU601", "NPU602"]
    assert codes("--select", "ALL") == every
    assert codes("--select", "all") == every
    assert codes("--select", ",".join(f"NPU{n}" for n in range(10))) == every
    assert codes("--select", "ALL", "--ignore", "NPU60") == ["NPU101"]
    assert codes("--select", "ALL", "--ignore", "ALL") == []
    assert codes("--select", "NPU") == ["NPU101"]  # "NPU" alone: the default rules
    for flag in ("--select", "--ignore"):
        proc = run_tool("npu_lint", "check", flag, "E501,NPU1", str(path))
        assert proc.returncode == 2 and "All checks passed" not in proc.stdout
        assert f"{flag}: not npu-lint rule codes: E501" in proc.stderr and "ALL" in proc.stderr


def test_syntax_error_is_reported_not_raised(tmp_path):
    path = _write(tmp_path, "import torch\ntorch.cuda.synchronize(\n")
    proc = run_tool("npu_lint", "check", str(path))
    assert proc.returncode == 1
    assert "syntax-error: SyntaxError" in proc.stdout and "Traceback" not in proc.stderr


def test_unreadable_and_odd_files(tmp_path):
    binary = _write(tmp_path, b"\x00\x01cuda\x02", "binary.py")
    latin = _write(tmp_path, "# -*- coding: latin-1 -*-\nimport torch\nimport torch_npu\ns = 'é'; torch.cuda.synchronize()\n",
                   "latin.py", encoding="latin-1")
    bom = _write(tmp_path, b"\xef\xbb\xbf" + GPU.encode(), "bom.py")
    crlf = _write(tmp_path, GPU.replace("\n", "\r\n"), "crlf.py")
    empty = _write(tmp_path, "", "empty.py")
    proc = run_tool("npu_lint", "check", str(binary), str(latin), str(bom), str(crlf), str(empty))
    assert "Traceback" not in proc.stderr
    lines = proc.stdout.splitlines()
    assert any("binary.py:1:1: unreadable: file contains NUL bytes" in line for line in lines)
    assert f"{latin}:4:10: NPU101" in proc.stdout  # a character column: é is one, not two bytes
    assert f"{bom}:3:1: NPU101" in proc.stdout
    assert f"{crlf}:3:1: NPU101" in proc.stdout
    assert str(empty) not in proc.stdout


def test_folder_is_walked(tmp_path):
    (tmp_path / "pkg").mkdir()
    _write(tmp_path / "pkg", GPU, "a.py")
    (tmp_path / ".venv").mkdir()
    _write(tmp_path / ".venv", GPU, "ignored.py")
    proc = run_tool("npu_lint", "check", str(tmp_path))
    assert "a.py:3:1: NPU101" in proc.stdout and "ignored.py" not in proc.stdout


def _notebook(tmp_path, name="train.ipynb"):
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
            "source": ["import torch\n", "model = torch.nn.Linear(2, 2).cuda()\n"]}
    notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    return _write(tmp_path, json.dumps(notebook, indent=1), name)


def test_notebooks_are_named_as_not_checked_not_passed(tmp_path):
    # A notebook's JSON parses as a Python dict literal, whose strings hold the code: read as
    # Python it said "All checks passed!" over a `.cuda()` call.
    notebook = _notebook(tmp_path)
    named = run_tool("npu_lint", "check", str(notebook))
    assert "All checks passed" not in named.stdout
    assert "1 Jupyter notebook not checked" in named.stdout and "train.ipynb" in named.stdout
    _write(tmp_path, GPU, "a.py")
    folder = run_tool("npu_lint", "check", "--format", "concise", str(tmp_path))
    assert "a.py:3:1: NPU101" in folder.stdout and "1 Jupyter notebook not checked" in folder.stdout
    machine = run_tool("npu_lint", "check", "--format", "json", str(tmp_path))
    assert len(json.loads(machine.stdout)) == 1 and "1 Jupyter notebook not checked" in machine.stderr
    before = notebook.read_bytes()
    fixed = run_tool("npu_lint", "fix", "--unsafe-fixes", str(tmp_path))
    assert notebook.read_bytes() == before and "1 Jupyter notebook not checked" in fixed.stderr


def test_missing_path_and_bad_option(tmp_path):
    proc = run_tool("npu_lint", "check", str(tmp_path / "nope.py"))
    assert proc.returncode == 1 and "unreadable: cannot read" in proc.stdout
    proc = run_tool("npu_lint", "check", "--target-torch-npu", "1.0", str(tmp_path))
    assert proc.returncode == 2 and "npu-lint: error:" in proc.stderr and "Traceback" not in proc.stderr


def test_progress_bar_only_on_a_terminal(tmp_path):
    import io

    from npu_lint.run.progress import ProgressBar

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    piped, terminal = io.StringIO(), Terminal()
    for stream in (piped, terminal):
        bar = ProgressBar(100, stream=stream)
        for _ in range(100):
            bar.update()
        bar.close()
    assert piped.getvalue() == ""
    assert "100/100 files" in terminal.getvalue()
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(60):
        (folder / f"m{i}.py").write_text(GPU)
    proc = run_tool("npu_lint", "check", "--format", "concise", "--no-cache", str(folder))
    assert "files" not in proc.stderr and "[#" not in proc.stderr  # piped: no bar


# A safe fix (NPU101), an unsafe one (NPU111: the string may not be a device), none (NPU102).
MIXED = GPU + 'DEFAULT_DEVICE = "cuda"\nprint(torch.cuda.get_arch_list())\n'


def _tail(proc) -> list[str]:
    return proc.stdout.splitlines()[-2:]


def test_summary_counts_findings_and_fixes(tmp_path):
    path = _write(tmp_path, MIXED)
    for fmt in ("text", "concise"):
        proc = run_tool("npu_lint", "check", "--no-cache", "--format", fmt, str(path))
        assert _tail(proc) == ["Found 3 findings.",
                               "[*] 1 fixable with `npu-lint fix` (1 more with `npu-lint fix --unsafe-fixes`)."]
    proc = run_tool("npu_lint", "check", "--no-cache", "--unsafe-fixes", str(path))
    assert _tail(proc) == ["Found 3 findings.", "[*] 2 fixable with `npu-lint fix --unsafe-fixes`."]
    only_unsafe = _write(tmp_path, 'DEFAULT_DEVICE = "cuda"\n', "unsafe.py")
    proc = run_tool("npu_lint", "check", "--no-cache", str(only_unsafe))
    assert _tail(proc) == ["Found 1 finding.", "No safe fixes (1 more with `npu-lint fix --unsafe-fixes`)."]
    broken = _write(tmp_path, "import torch\nx = torch.cuda.current_device(\n", "broken.py")
    proc = run_tool("npu_lint", "check", "--no-cache", str(broken))
    assert proc.stdout.splitlines()[-1] == "Found 0 findings and 1 file that could not be checked."
    # Naming nothing a rule looks for, a file is not parsed: its syntax error is flake8's business.
    unrelated = _write(tmp_path, "def (:\n", "unrelated.py")
    proc = run_tool("npu_lint", "check", "--no-cache", str(unrelated))
    assert proc.stdout.splitlines()[-1] == "All checks passed!"


def test_machine_formats_have_no_summary(tmp_path):
    path = _write(tmp_path, MIXED)
    for fmt in ("json", "sarif", "junit", "github"):
        proc = run_tool("npu_lint", "check", "--no-cache", "--format", fmt, str(path))
        assert "Found " not in proc.stdout + proc.stderr and "fixable" not in proc.stdout, fmt
    assert json.loads(run_tool("npu_lint", "check", "--format", "json", str(path)).stdout)


def test_no_unsafe_fixes_overrides_the_configuration(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.npu-lint]\nunsafe-fixes = true\n")
    path = _write(tmp_path, MIXED)
    proc = run_tool("npu_lint", "check", "--no-cache", str(path), cwd=tmp_path)
    assert _tail(proc) == ["Found 3 findings.", "[*] 2 fixable with `npu-lint fix`."]
    proc = run_tool("npu_lint", "check", "--no-cache", "--no-unsafe-fixes", str(path), cwd=tmp_path)
    assert _tail(proc) == ["Found 3 findings.",
                           "[*] 1 fixable with `npu-lint fix --no-unsafe-fixes` (1 more with `npu-lint fix --unsafe-fixes`)."]
    proc = run_tool("npu_lint", "fix", "--no-unsafe-fixes", str(path), cwd=tmp_path)
    assert 'DEFAULT_DEVICE = "cuda"' in path.read_text() and "torch.npu.synchronize()" in path.read_text()
    proc = run_tool("npu_lint", "fix", str(path), cwd=tmp_path)  # the configuration's unsafe fixes
    assert 'DEFAULT_DEVICE = "npu"' in path.read_text()
    both = run_tool("npu_lint", "fix", "--unsafe-fixes", "--no-unsafe-fixes", str(path), cwd=tmp_path)
    assert both.returncode == 2 and "not allowed with argument" in both.stderr


def test_fix_takes_the_run_options_check_takes(tmp_path):
    # `npu-lint check --no-cache X` then `npu-lint fix --no-cache X` was a usage error.
    path = _write(tmp_path, MIXED)
    proc = run_tool("npu_lint", "fix", "--no-cache", "--cache-dir", str(tmp_path / "cache"), str(path), cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr
    assert "torch.npu.synchronize()" in path.read_text()
    assert not (tmp_path / "cache").exists()


def test_python_m_answers_as_the_console_script_from_a_projects_root(tmp_path):
    # `python -m` puts the working directory on sys.path, where astroid would find the project's
    # own modules and infer `make()` a Tensor; `npu-lint` does not, and neither may `python -m`.
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "util.py").write_text("import torch\n\n\ndef make():\n    return torch.zeros(1)\n")
    script = tmp_path / "run.py"
    script.write_text("from pkg.util import make\n\nx = make().cuda()\n")
    answers = [run_tool("npu_lint", "check", "--no-cache", "--format", "concise", str(script), cwd=cwd).stdout
               for cwd in (tmp_path, package)]
    assert "could not be inferred" in answers[0]
    assert answers[0] == answers[1]
