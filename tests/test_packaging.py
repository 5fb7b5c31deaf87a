"""The built wheel carries the rule records, the data tables and every subpackage."""
from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile

from conftest import REPO


def test_wheel_contains_rules_and_packages(tmp_path):
    # Build from a copy, so the checkout gets no build/ or *.egg-info folders.
    source = tmp_path / "src"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "*.egg-info", "__pycache__", "tests", "docs"))
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp_path), str(source)],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    [wheel] = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for rule_file in (REPO / "rules").glob("*.yaml"):
        assert f"npu_lint/_rules/{rule_file.name}" in names
    for data_file in (REPO / "data").glob("*.yaml"):
        assert f"npu_lint/_data/{data_file.name}" in names
    for init in (REPO / "npu_lint").rglob("__init__.py"):
        assert init.relative_to(REPO).as_posix() in names
    for data in (REPO / "npu_lint").rglob("*.json"):
        assert data.relative_to(REPO).as_posix() in names
    entry_points = zipfile.ZipFile(wheel).read(
        next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert "npu-lint = npu_lint.frontends.launcher:main" in entry_points
    assert "NPU = npu_lint.frontends.flake8_plugin:NpuLintFlake8" in entry_points
