"""`npu-lint fix`: fixture pairs, idempotence, and never breaking or losing a file."""
from __future__ import annotations

import ast

import os
import re
import stat

import astroid
import pytest
from conftest import REPO, run_tool

from npu_lint.config.settings import Settings
from npu_lint.knowledge.loader import load_rules
from npu_lint.knowledge.release_data import normalize_release
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


def test_import_goes_after_import_torch_even_at_end_of_file():
    out = Fixer().fix_text("import os\nimport torch\nfrom torch import nn", "a.py")
    assert out.text == "import os\nimport torch\nfrom torch import nn", "nothing to fix, nothing added"
    out = Fixer().fix_text("import torch\nx = torch.zeros(1, device='cuda')\nimport torch.nn as nn", "a.py")
    assert out.text == "import torch\nimport torch_npu\nx = torch.zeros(1, device='npu')\nimport torch.nn as nn"
    out = Fixer().fix_text("import os\nimport torch", "a.py")
    assert out.text == "import os\nimport torch"
    out = Fixer().fix_text("def f(x):\n    return x.to('cuda')\nimport torch", "a.py")
    assert out.text == "def f(x):\n    return x.to('npu')\nimport torch\nimport torch_npu"


def test_import_goes_before_what_reaches_the_npu_on_import():
    # `from torch.npu.amp import ...` needs torch_npu imported first on targets without autoload
    # (torch 2.1 has no torch.amp.GradScaler to write instead).
    oldest = Settings(target_torch_npu=normalize_release("2.1"))
    out = Fixer(oldest).fix_text("import os\nfrom torch.cuda.amp import GradScaler\nimport torch\n", "a.py")
    assert out.text == "import os\nimport torch_npu\nfrom torch.npu.amp import GradScaler\nimport torch\n"
    # `import torch` comes too late: after the first torch import of any form, if that is early enough.
    text = "import torch.nn\nimport os\nok = torch.cuda.is_available()\nimport torch\n"
    assert Fixer().fix_text(text, "a.py").text.startswith("import torch.nn\nimport torch_npu\nimport os\n")


def test_decorators_run_on_import_and_function_bodies_do_not():
    from npu_lint.analysis.torch_npu_import import torch_npu_placement

    module = astroid.parse("import os\n@register(torch.cuda.is_available())\ndef f():\n    pass\nimport torch\n")
    placement = torch_npu_placement(module)
    assert placement.before and placement.stmt.name == "f"
    module = astroid.parse("import os\ndef f():\n    return torch.cuda.is_available()\nimport torch\n")
    placement = torch_npu_placement(module)
    assert not placement.before and placement.stmt.lineno == 4


def test_import_in_a_try_block_stays_guarded_and_type_checking_imports_do_not_count():
    text = "try:\n    import torch\nexcept ImportError:\n    torch = None\ndev = torch.device('cuda')\n"
    out = Fixer(unsafe=True).fix_text(text, "a.py").text
    assert out.startswith("try:\n    import torch\n    import torch_npu\nexcept ImportError:")
    text = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import torch\nimport torch.nn as nn\n"
            "m = nn.Linear(1, 1).cuda()\n")
    out = Fixer().fix_text(text, "a.py").text
    assert "import torch.nn as nn\nimport torch_npu\nm = " in out


def test_a_guard_of_torch_keeps_torch_npu_and_a_guard_of_one_feature_does_not_get_it():
    # deepspeed accelerator/cuda_accelerator.py: `import torch.cuda` under `except ImportError: pass`.
    text = "import os\ntry:\n    import torch.cuda\nexcept ImportError:\n    pass\nn = torch.cuda.device_count()\n"
    out = Fixer().fix_text(text, "a.py").text
    assert out.startswith("import os\ntry:\n    import torch_npu\n    import torch.cuda\nexcept ImportError:")
    assert out.endswith("n = torch.npu.device_count()\n")
    # diffusers utils/torch_utils.py: the `try:` guards `torch._dynamo`, torch comes from the `if`.
    text = ("if HAS_TORCH:\n    import torch\ntry:\n    from torch._dynamo import allow_in_graph\n"
            "except ImportError:\n    allow_in_graph = None\ndef f():\n    torch.cuda.synchronize()\n")
    out = Fixer().fix_text(text, "a.py").text
    assert out.startswith("if HAS_TORCH:\n    import torch\n    import torch_npu\ntry:\n    from torch._dynamo")


def test_an_import_sharing_its_line_gets_torch_npu_on_that_line():
    # A new line would leave the `if` (or, indented, not parse).
    out = Fixer().fix_text("if ok: import torch\ndef f():\n    torch.cuda.synchronize()\n", "a.py").text
    assert out.startswith("if ok: import torch; import torch_npu\n")
    out = Fixer().fix_text("try: import torch\nexcept ImportError: pass\ntorch.cuda.synchronize()\n", "a.py").text
    assert out.startswith("try: import torch; import torch_npu\n")
    out = Fixer().fix_text("def f():\n\tif ok:\n\t\timport torch\n\t\ttorch.cuda.synchronize()\n", "a.py").text
    assert "\t\timport torch\n\t\timport torch_npu\n" in out, "tabs stay tabs"


def test_a_module_that_never_imports_torch_gets_no_torch_npu_from_a_device_string():
    # deepspeed comm/constants.py, under its license header.
    text = "# Copyright (c) Microsoft Corporation.\n# SPDX-License-Identifier: Apache-2.0\n\nNCCL_BACKEND = 'nccl'\n"
    out = Fixer(unsafe=True).fix_text(text, "a.py").text
    assert out == text.replace("'nccl'", "'hccl'")


@pytest.mark.parametrize("text, line", [
    ("#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n# Copyright (c) Example.\n\nX = 1\n", 5),
    ("# Copyright (c) Example.\n\n# About X.\nX = 1\n", 3),  # a comment on X stays with it
    ("# Copyright (c) Example.\nX = 1\n", 2),
    ('# Copyright (c) Example.\n"""Doc."""\nX = 1\n', 3),
    ('"""Doc."""\nfrom __future__ import annotations\n# About X.\nX = 1\n', 3),
])
def test_a_new_import_at_the_top_goes_below_the_header_docstring_and_future_imports(text, line):
    from npu_lint.analysis.torch_npu_import import module_top_line
    from npu_lint.core.source import LineIndex

    assert module_top_line(astroid.parse(text), LineIndex(text).line) == line


def test_a_fix_that_names_torch_npu_binds_it_with_the_module_imports_below_its_header():
    from npu_lint.analysis.context import ModuleContext

    text = "# Copyright (c) Example.\n\nimport os\nfrom apex.optimizers import FusedAdam\n\nopt = FusedAdam\n"
    ctx = ModuleContext(astroid.parse(text), text, Settings())
    (edit,) = ctx.torch_npu_import_edits()
    assert (edit.start.line, edit.start.column, edit.content) == (5, 0, "import torch_npu\n")


def _reaches_npu(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.ImportFrom):
        return (stmt.module or "").startswith("torch.npu") or (
            stmt.module == "torch" and any(alias.name == "npu" for alias in stmt.names))
    return isinstance(stmt, ast.Import) and any(a.name.startswith("torch.npu") for a in stmt.names)


@pytest.mark.parametrize("name", CASE_NAMES)
def test_fixed_output_imports_torch_npu_before_reaching_torch_npu(name):
    """What makes a fixed program start on targets whose torch does not load torch_npu itself."""
    tree = ast.parse((CASES / f"{name}.output.py").read_text(encoding="utf-8"))
    statements = [s for top in tree.body for s in ([top] + (top.body if isinstance(top, ast.Try) else []))]
    seen_torch_npu = False
    for stmt in statements:
        if isinstance(stmt, ast.Import) and any(a.name == "torch_npu" for a in stmt.names):
            seen_torch_npu = True
        assert seen_torch_npu or not _reaches_npu(stmt), f"{name}.output.py line {stmt.lineno}"


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


def test_an_error_text_in_a_list_of_texts_gets_the_npu_text_beside_it():
    # lighteval 0.13's utils/parallelism.py: the texts are searched one by one, so CUDA's stays
    text = ('def should_reduce_batch_size(exception):\n'
            '    _statements = [\n'
            '        "CUDA out of memory.",  # CUDA OOM\n'
            '        "HIP out of memory",  # ROCM OOM\n'
            '    ]\n'
            '    return any(err in exception.args[0] for err in _statements)\n')
    out = Fixer(unsafe=True).fix_text(text, "a.py")
    assert '"CUDA out of memory.", "NPU out of memory.",  # CUDA OOM' in out.text
    # near miss: the text alone is replaced
    alone = 'def oom(e):\n    return "CUDA out of memory." in str(e)\n'
    assert '"NPU out of memory." in str(e)' in Fixer(unsafe=True).fix_text(alone, "a.py").text
