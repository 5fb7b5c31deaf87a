"""`npu-lint fix`: fixture pairs, idempotence, and never breaking or losing a file."""
from __future__ import annotations

import os
import re
import stat

import pytest
from conftest import REPO, run_tool

from npu_lint.knowledge.loader import load_rules
from npu_lint.run.file_writer import WriteRefused, write_atomically
from npu_lint.run.fixer import Fixer

CASES = REPO / "tests" / "fix_cases"
CASE_NAMES = sorted(p.name[: -len(".input.py")] for p in CASES.glob("*.input.py"))
TARGET_OUTPUT = re.compile(r"^(?P<name>\w+)\.target-(?P<target>[\d.]+)\.output\.py$")


def _args(text: str) -> list[str]:
    first = text.splitlines()[0] if text else ""
    return first[len("# args:"):].split() if first.startswith("# args:") else []


def _snapshots() -> list[tuple[str, str | None]]:
    """(case, target): `NAME.output.py` for the arguments of the input's first line, and
    `NAME.target-X.output.py` for the same with `--target-torch-npu X` (where spellings differ)."""
    found = [(name, None) for name in CASE_NAMES]
    for path in sorted(CASES.glob("*.target-*.output.py")):
        match = TARGET_OUTPUT.match(path.name)
        assert match and match["name"] in CASE_NAMES, f"{path.name}: no such case or not NAME.target-X.output.py"
        found.append((match["name"], match["target"]))
    return found


@pytest.mark.parametrize("name, target", _snapshots(), ids=lambda v: v or "")
def test_fix_case(name, target, tmp_path):
    source = (CASES / f"{name}.input.py").read_text(encoding="utf-8")
    expected = (CASES / (f"{name}.target-{target}.output.py" if target else f"{name}.output.py")).read_text(
        encoding="utf-8")
    args = _args(source) + (["--target-torch-npu", target] if target else [])
    path = tmp_path / "case.py"
    path.write_text(source, encoding="utf-8")
    proc = run_tool("npu_lint", "fix", *args, str(path))
    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr
    assert path.read_text(encoding="utf-8") == expected
    again = run_tool("npu_lint", "fix", *args, str(path))
    assert path.read_text(encoding="utf-8") == expected, "a second run changed the file"
    assert "Fixed 0 finding(s)" in again.stderr


def test_fix_cases_exist_for_each_step():
    assert {"torch_cuda_api", "cuda_methods_safe", "device_strings", "nccl", "amp", "display_only"} <= set(CASE_NAMES)


def test_diff_writes_nothing(tmp_path):
    path = tmp_path / "a.py"
    path.write_text("import torch\ntorch.cuda.synchronize()\n")
    proc = run_tool("npu_lint", "fix", "--diff", str(path))
    assert proc.returncode == 1
    assert proc.stdout.startswith(f"--- {path}\n+++ {path}\n")
    for line in ("-torch.cuda.synchronize()\n", "+torch.npu.synchronize()\n", "+import torch_npu\n"):
        assert line in proc.stdout
    assert path.read_text() == "import torch\ntorch.cuda.synchronize()\n"
    path.write_text("import torch\n")
    assert run_tool("npu_lint", "fix", "--diff", str(path)).returncode == 0


def test_stdin_to_stdout():
    proc = run_tool("npu_lint", "fix", "-", input="import torch\nx = torch.ones(1, device='cuda')\n")
    assert proc.stdout == "import torch\nimport torch_npu\nx = torch.ones(1, device='npu')\n"
    assert proc.returncode == 0


def test_exit_status_while_findings_remain(tmp_path):
    path = tmp_path / "a.py"
    path.write_text("import torch\nimport torch_npu\ntorch.cuda.get_arch_list()\n")
    proc = run_tool("npu_lint", "fix", str(path))
    assert proc.returncode == 1 and "NPU102" in proc.stdout
    assert run_tool("npu_lint", "fix", "--exit-zero", str(path)).returncode == 0


def test_noqa_and_pylint_disable_are_honoured(tmp_path):
    text = ("import torch\nimport torch_npu\ntorch.cuda.synchronize()  # noqa: NPU101\n"
            "torch.cuda.synchronize()  # pylint: disable=torch-cuda-api\ntorch.cuda.synchronize()\n")
    path = tmp_path / "a.py"
    path.write_text(text)
    run_tool("npu_lint", "fix", str(path))
    assert path.read_text() == text.replace("torch.cuda.synchronize()\n", "torch.npu.synchronize()\n")


def test_encoding_bom_line_endings_and_mode_are_kept(tmp_path):
    latin = tmp_path / "latin.py"
    latin.write_bytes("# -*- coding: latin-1 -*-\r\nimport torch\r\ns = 'é'\r\ntorch.cuda.synchronize()".encode("latin-1"))
    os.chmod(latin, 0o750)
    bom = tmp_path / "bom.py"
    bom.write_bytes(b"\xef\xbb\xbfimport torch\ntorch.cuda.synchronize()\n")
    run_tool("npu_lint", "fix", str(latin), str(bom))
    assert latin.read_bytes() == (
        "# -*- coding: latin-1 -*-\r\nimport torch\r\nimport torch_npu\r\ns = 'é'\r\ntorch.npu.synchronize()".encode("latin-1"))
    assert stat.S_IMODE(latin.stat().st_mode) == 0o750
    assert bom.read_bytes() == b"\xef\xbb\xbfimport torch\nimport torch_npu\ntorch.npu.synchronize()\n"


def test_import_goes_after_last_torch_import_even_at_end_of_file():
    out = Fixer().fix_text("import os\nimport torch\nfrom torch import nn", "a.py")
    assert out.text == "import os\nimport torch\nfrom torch import nn", "nothing to fix, nothing added"
    out = Fixer().fix_text("import torch\nx = torch.zeros(1, device='cuda')\nimport torch.nn as nn", "a.py")
    assert out.text == "import torch\nx = torch.zeros(1, device='npu')\nimport torch.nn as nn\nimport torch_npu"


BREAKING_RULE = """
rules:
  - code: NPU999
    name: breaks-the-file
    kind: symbol
    match: {symbols: [torch.foo], replace_last: "1 +"}
    severity: warning
    message: "m"
    fix: {applicability: safe, message: "f"}
    doc: {what: w, why: y, example: e, use_instead: u, fix_safety: f}
"""


def test_a_fix_that_would_not_parse_is_not_applied():
    rules = load_rules([("breaking.yaml", BREAKING_RULE)])
    fixer = Fixer(rules=rules)
    text = "import torch\ntorch.foo()\n"
    out = fixer.fix_text(text, "a.py")
    assert out.text == text
    assert [p.rule for p in out.problems if p.kind == "fix-skipped"] == ["NPU999"]


def test_write_refuses_a_file_changed_on_disk(tmp_path):
    path = tmp_path / "a.py"
    path.write_bytes(b"new contents")
    with pytest.raises(WriteRefused, match="changed on disk"):
        write_atomically(str(path), b"fixed", original=b"old contents")
    assert path.read_bytes() == b"new contents"


def test_write_refuses_read_only_and_symlinks(tmp_path):
    target = tmp_path / "a.py"
    target.write_bytes(b"x = 1\n")
    link = tmp_path / "link.py"
    link.symlink_to(target)
    with pytest.raises(WriteRefused, match="symbolic link"):
        write_atomically(str(link), b"y", original=b"x = 1\n")
    os.chmod(target, 0o444)
    if os.access(target, os.W_OK):
        pytest.skip("running as a user who can write read-only files")
    with pytest.raises(WriteRefused, match="read-only"):
        write_atomically(str(target), b"y", original=b"x = 1\n")


def test_failed_write_leaves_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "a.py"
    path.write_bytes(b"old\n")

    def full_disk(*_args, **_kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(WriteRefused, match="No space left"):
        write_atomically(str(path), b"new\n", original=b"old\n")
    assert path.read_bytes() == b"old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["a.py"], "the temporary file was not removed"
