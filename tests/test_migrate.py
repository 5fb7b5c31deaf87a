"""`npu-lint migrate SRC -o OUT`: every output, SRC never touched, nothing escapes OUT,
and report.html renders in a real headless Chromium."""
from __future__ import annotations

import csv
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import REPO, run_tool

TRAIN = (REPO / "docs" / "examples" / "train_gpu.py").read_text()


def _tree_digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture
def project(tmp_path) -> Path:
    src = tmp_path / "proj"
    (src / "pkg").mkdir(parents=True)
    (src / "train.py").write_text(TRAIN)
    (src / "pkg" / "__init__.py").write_text("")
    (src / "pkg" / "ops.py").write_text("import torch\n\ndef norm(x):\n    return x.cuda().norm()\n")
    (src / "data.txt").write_text("not python\n")
    (src / '<img src=x onerror=alert(1)>, "odd".py').write_text(
        "import torch\nimport torch_npu\ns = '</pre><script>alert(1)</script>'; torch.cuda.get_arch_list()\n")
    return src


def _rows(path: Path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_migrate_writes_every_output_and_leaves_src_alone(project, tmp_path):
    before = _tree_digest(project)
    out = tmp_path / "out"
    proc = run_tool("npu_lint", "migrate", str(project), "-o", str(out))
    assert proc.returncode == 1, proc.stderr  # findings are left for a person
    assert "Traceback" not in proc.stderr
    assert _tree_digest(project) == before, "migrate wrote inside SRC"

    copy = out / "proj"
    assert (copy / "data.txt").read_text() == "not python\n"
    migrated = (copy / "train.py").read_text()
    assert "torch.npu.synchronize()" in migrated and "import torch_npu\n" in migrated
    assert "torch.cuda.synchronize" not in migrated
    compile(migrated, "train.py", "exec")

    changes = _rows(out / "change_list.csv")
    assert {"file", "line", "rule", "before", "after"} == set(changes[0])
    assert any(r["rule"] == "NPU101" and "torch.cuda.synchronize()" in r["before"]
               and "torch.npu.synchronize()" in r["after"] for r in changes)
    unsupported = _rows(out / "unsupported_api.csv")
    assert any(r["rule"] == "NPU140" and "DataParallel" in r["api"] for r in unsupported)
    odd = [r for r in unsupported if r["file"].startswith("<img")]
    assert odd and odd[0]["file"] == '<img src=x onerror=alert(1)>, "odd".py', "CSV must quote, not mangle"
    cuda = _rows(out / "cuda_api_list.csv")
    assert len(cuda) >= len(changes) and all(r["rule"].startswith("NPU") for r in cuda)

    launcher = copy / "run_distributed_npu.sh"
    assert os.access(launcher, os.X_OK)
    script = launcher.read_text()
    for name in ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE", "RANK_SIZE", "ASCEND_RT_VISIBLE_DEVICES"):
        assert name in script
    assert subprocess.run(["bash", "-n", str(launcher)]).returncode == 0

    report = (out / "report.html").read_text()
    assert "<script>" not in report and "&lt;/pre&gt;&lt;script&gt;" in report
    assert "<img" not in report and "&lt;img src=x onerror=alert(1)&gt;" in report
    assert "Migration report" in report and "train.py" in report


def test_migrate_refuses_out_inside_src_and_non_empty_out(project, tmp_path):
    proc = run_tool("npu_lint", "migrate", str(project), "-o", str(project / "migrated"))
    assert proc.returncode == 2 and "inside the source folder" in proc.stderr
    assert not (project / "migrated").exists()
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "keep.txt").write_text("mine")
    proc = run_tool("npu_lint", "migrate", str(project), "-o", str(busy))
    assert proc.returncode == 2 and "not empty" in proc.stderr
    assert [p.name for p in busy.iterdir()] == ["keep.txt"]


def test_symlinks_out_of_the_tree_are_not_followed(project, tmp_path):
    secret = tmp_path / "secret.py"
    secret.write_text("import torch\ntorch.cuda.synchronize()\n")
    (project / "link.py").symlink_to(secret)
    (project / "linked_dir").symlink_to(tmp_path, target_is_directory=True)
    out = tmp_path / "out"
    run_tool("npu_lint", "migrate", str(project), "-o", str(out))
    assert not (out / "proj" / "link.py").exists()
    assert not (out / "proj" / "linked_dir").exists()
    assert secret.read_text() == "import torch\ntorch.cuda.synchronize()\n"
    assert "symbolic link" in (out / "report.html").read_text()


def test_report_renders_in_headless_chromium(project, tmp_path):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("Debian's chromium is not installed (.ci/run installs it)")
    out = tmp_path / "out"
    run_tool("npu_lint", "migrate", str(project), "-o", str(out))
    png = tmp_path / "report.png"
    proc = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0",
         f"--screenshot={png}", "--window-size=1200,1600", (out / "report.html").as_uri()],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert png.stat().st_size > 10_000 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    console = [line for line in proc.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert not console, console
