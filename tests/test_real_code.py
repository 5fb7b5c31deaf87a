"""Robustness on real PyTorch code (DESIGN.md section 7): no crash on any file, fixes that keep
every file parsing and reach a fixpoint.  Downloads four sdists once (tests/realcode.py)."""
from __future__ import annotations

import ast
import json
import shutil
import warnings
from pathlib import Path

import pytest
import realcode
from conftest import run_tool

pytestmark = [pytest.mark.slow, pytest.mark.network]


def _no_crash(proc) -> None:
    output = proc.stdout + proc.stderr
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    assert "Traceback" not in output, output[output.find("Traceback"):][:3000]
    assert "internal-error" not in output, [line for line in output.splitlines() if "internal-error" in line][:20]


def test_check_every_file_of_the_four_projects(tmp_path):
    roots = realcode.real_code_roots()
    files = realcode.python_files(roots)
    assert len(files) > 2000
    proc = run_tool("npu_lint", "check", "--no-cache", "--format", "json", *map(str, roots), cwd=tmp_path)
    _no_crash(proc)
    findings = json.loads(proc.stdout)
    assert findings and {f["filename"] for f in findings} <= {str(f) for f in files}


def _parses(data: bytes) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(data)
        return True
    except (SyntaxError, ValueError):
        return False


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*.py"))}


@pytest.mark.parametrize("project", realcode.PROJECTS, ids=lambda p: p.name)
def test_unsafe_fixes_keep_every_file_parsing_and_reach_a_fixpoint(project, tmp_path):
    copy = tmp_path / project.folder
    shutil.copytree(realcode.extract(project), copy)
    roots = [str(copy if root == "." else copy / root) for root in project.roots]
    before = _snapshot(copy)

    first = run_tool("npu_lint", "fix", "--unsafe-fixes", *roots, cwd=tmp_path)
    _no_crash(first)
    after = _snapshot(copy)
    assert after.keys() == before.keys()
    changed = [name for name in before if after[name] != before[name]]
    assert changed, "the fixes changed no file"
    broken = [name for name in changed if not _parses(after[name])]
    assert not broken

    second = run_tool("npu_lint", "fix", "--unsafe-fixes", *roots, cwd=tmp_path)
    _no_crash(second)
    again = _snapshot(copy)
    assert [name for name in after if again[name] != after[name]] == []
