"""`npu-lint migrate SRC -o OUT`: every output, SRC never touched, nothing escapes OUT,
and report.html renders in a real headless Chromium."""
from __future__ import annotations

import csv
import hashlib
import json
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
    assert list(changes[0]) == ["File", "Start Line", "End Line", "Operation Type", "Message"]
    assert any(r["File"] == "train.py" and r["Operation Type"] == "MODIFY"
               and 'change "torch.cuda.synchronize()" to "torch.npu.synchronize()"' in r["Message"] for r in changes)
    inserts = [r for r in changes if r["File"] == "train.py" and r["Operation Type"] == "INSERT"]
    assert len(inserts) == 1 and "import torch_npu" in inserts[0]["Message"], "a shared edit is listed once"
    unsupported = _rows(out / "unsupported_api.csv")
    assert any(r["OP"] == "torch.nn.DataParallel" and "NPU" in r["Tips"] for r in unsupported)
    odd = [r for r in unsupported if r["File"].startswith("<img")]
    assert odd and odd[0]["File"] == '<img src=x onerror=alert(1)>, "odd".py', "CSV must quote, not mangle"
    assert not (out / "cuda_api_list.csv").exists(), "replaced by msFmkTransplt's reports"

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


# -- msFmkTransplt's reports --------------------------------------------------------------

REPORT_HEADERS = {
    "change_list.csv": "File,Start Line,End Line,Operation Type,Message",
    "unsupported_api.csv": "File,Start Line,End Line,OP,Tips",
    "unknown_api.csv": "File,Start Line,End Line,OP,Tips",
    "api_precision_advice.csv": "File,Start Line,End Line,OP,Tips",
    "api_performance_advice.csv": "File,Start Line,End Line,OP,Tips",
    "affinity_api_call.csv": "File,Start Line,End Line,Api Type,Api Call Name,Affinity Api Name",
    "cuda_op_list.csv": "File,Api",
}
EXTENSION_CPP = """#include <torch/extension.h>
// PYBIND11_MODULE(commented_out, m) { m.def("ghost", &ghost); }
torch::Tensor roi_align_forward(const torch::Tensor& input, const torch::Tensor& rois);
torch::Tensor roi_align_backward(const torch::Tensor& grad);

PYBIND11_MODULE(TORCH_EXTENSION_NAME, ext)
{
    ext.def("roi_align_forward", &roi_align_forward, "RoIAlign forward (CUDA)",
            py::arg("input"), py::arg("rois"));
    ext
        .def("roi_align_backward", &roi_align_backward);
}
"""
EXTENSION_CU = """#include <torch/library.h>
TORCH_LIBRARY(detection_ops, m) {
  m.def("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor");
  m.def(TORCH_SELECTIVE_SCHEMA("detection_ops::box_iou(Tensor a, Tensor b) -> Tensor"));
}
TORCH_LIBRARY_IMPL(detection_ops, CUDA, m) {
  m.impl("nms", &nms_kernel);  // the def above already names it: one row
  m.impl(TORCH_SELECTIVE_NAME("detection_ops::box_iou"), TORCH_FN(box_iou_kernel));
}
"""
TRAIN_WITH_EXTENSION = """import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from roi_ext import roi_align_forward


def train(dataset, model, images_list):
    loader = DataLoader(dataset, batch_size=8, num_workers=4, pin_memory=True)
    embed = nn.Embedding(100, 8)
    model = nn.DataParallel(model).cuda()
    torch.cuda.synchronize()
    torch.cuda.synchronize()  # noqa: NPU101
    y = model(images_list).nonzero()  # noqa
    for images in loader:
        images = images.to(torch.device("cuda"))
        out = torch.baddbmm(images, images, images)
        keep = torch.nonzero(out)
        boxes = torch.ops.detection_ops.nms(out, keep, 0.5)
        import helper
        helper.roi_align_backward(boxes)  # the project's own Python function, not the C++ one
    return roi_align_forward(out, keep), embed
"""


@pytest.fixture
def extension_project(tmp_path) -> Path:
    src = tmp_path / "detector"
    (src / "csrc").mkdir(parents=True)
    (src / "csrc" / "roi_align.cpp").write_text(EXTENSION_CPP)
    (src / "csrc" / "nms_kernel.cu").write_text(EXTENSION_CU)
    (src / "train.py").write_text(TRAIN_WITH_EXTENSION)
    (src / "helper.py").write_text("def roi_align_backward(boxes):\n    return boxes\n")
    return src


def test_migrate_writes_msfmktransplt_reports(extension_project, tmp_path):
    out = tmp_path / "out"
    proc = run_tool("npu_lint", "migrate", str(extension_project), "-o", str(out))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    rows = {}
    for name, header in REPORT_HEADERS.items():
        data = (out / name).read_bytes()
        assert not data.startswith(b"\xef\xbb\xbf") and b"\r" not in data, name  # UTF-8, no BOM, \n
        assert data.decode("utf-8").split("\n", 1)[0] == header, name
        with open(out / name, newline="", encoding="utf-8") as handle:
            table = list(csv.reader(handle))
        assert all(len(row) == len(table[0]) for row in table), name
        for row in table:
            for cell in row:
                assert "\n" not in cell and len(cell) < 400, (name, cell)  # one line of code at most
        rows[name] = table[1:]

    assert sorted(r[1] for r in rows["cuda_op_list.csv"]) == [
        "detection_ops.box_iou", "detection_ops.nms", "roi_align_backward", "roi_align_forward"]
    assert {r[0] for r in rows["cuda_op_list.csv"]} == {"csrc/roi_align.cpp", "csrc/nms_kernel.cu"}

    changes = rows["change_list.csv"]
    assert {r[3] for r in changes} <= {"INSERT", "MODIFY", "DELETE"}
    synchronize = [r for r in changes if "synchronize" in r[4]]
    assert len(synchronize) == 1 and synchronize[0][1:3] == ["12", "12"], "line 13 has # noqa: NPU101"
    # One row for the `import torch_npu` every NPU fix carries (this library module is no entry
    # module, so NPU120 does not fire: the row names the first fix that brought the import).
    [insert] = [r[4] for r in changes if r[3] == "INSERT"]
    assert insert.startswith('insert "import torch_npu" (NPU')

    assert [(r[1], r[3]) for r in rows["unsupported_api.csv"]] == [
        ("11", "torch.nn.DataParallel"), ("19", "detection_ops.nms"), ("22", "roi_align_forward")]
    assert rows["unsupported_api.csv"][2][4].startswith("User-defined CUDA Operator.")
    performance = [(r[1], r[3]) for r in rows["api_performance_advice.csv"]]
    assert performance == [("16", "to"), ("18", "torch.nonzero")]  # OP: the API, as msFmkTransplt names it
    assert [r[1] for r in rows["api_precision_advice.csv"]] == ["10", "17"]
    assert rows["affinity_api_call.csv"] == []  # no NPU5xx finding here (or no NPU5xx rules yet)

    analysis = json.loads((out / "analysis.json").read_text(encoding="utf-8"))
    assert analysis["reports"] == {name: len(table) for name, table in rows.items()}
    assert analysis["summary"]["custom_cuda_operators"] == 4
    by_code = {}
    for finding in analysis["findings"]:
        assert finding["file"] == "train.py"
        assert set(finding) >= {"code", "message", "start", "end", "report", "fixed"}
        by_code.setdefault(finding["code"], []).append(finding)
    assert by_code["NPU140"][0]["report"] == "unsupported_api.csv" and not by_code["NPU140"][0]["fixed"]
    assert {f["report"] for f in by_code["NPU101"]} == {"change_list.csv"}
    assert [f["start"]["line"] for f in by_code["NPU101"]] == [12], "# noqa lines are not counted"
    assert by_code["NPU610"][0]["report"] == "api_performance_advice.csv"
    assert {f["report"] for f in by_code["NPU701"] + by_code["NPU702"]} == {"api_precision_advice.csv"}
    assert all(f["start"]["line"] != 14 for f in analysis["findings"]), "bare # noqa silences the line"
    ops = {(op["api"], op["registration"], op["dispatch_key"]) for op in analysis["cuda_operators"]}
    assert ("detection_ops.nms", "TORCH_LIBRARY impl", "CUDA") in ops
    assert [(c["api"], c["start_line"]) for c in analysis["cuda_operator_calls"]] == [
        ("detection_ops.nms", 19), ("roi_align_forward", 22)]

    report = (out / "report.html").read_text(encoding="utf-8")
    assert "each needs an NPU kernel" in report and "detection_ops.box_iou" in report
    assert "cuda_op_list.csv" in report and "analysis.json" in report


def test_change_rows_are_one_line_per_edit(tmp_path):
    """A one-word rename is one short row, whatever other edits the same fix carries."""
    src = tmp_path / "proj"
    src.mkdir()
    body = "".join(f"x{i} = {i}\n" for i in range(40))
    (src / "run.py").write_text("import torch\n" + body + "torch.cuda.synchronize()\n")
    out = tmp_path / "out"
    run_tool("npu_lint", "migrate", str(src), "-o", str(out))
    changes = _rows(out / "change_list.csv")
    assert [(r["Start Line"], r["Operation Type"]) for r in changes] == [("2", "INSERT"), ("42", "MODIFY")]  # inserted as line 2
    assert changes[1]["Message"] == 'change "torch.cuda.synchronize()" to "torch.npu.synchronize()" (NPU101 torch-cuda-api)'


AFFINITY_RULE = """rules:
  - code: NPU598
    name: test-matmul-transpose-affinity
    kind: symbol
    match: {symbols: [torch.matmul]}
    severity: info
    message: "`{qname}` of a transposed operand has a fused NPU form"
    fix: {applicability: display-only, message: "Use `torch_npu.contrib.function.matmul_transpose`"}
    doc:
      what: "A stand-in NPU5xx rule for the report test."
      why: "The affinity rules are data like any other."
      example: "import torch\\ny = torch.matmul(torch.ones(2, 2), torch.ones(2, 2).t())\\n"
      use_instead: "import torch\\n"
      fix_safety: "Display-only."
"""


def test_affinity_findings_fill_affinity_api_call(tmp_path):
    """NPU5xx findings (here from an extend-rules file) go to affinity_api_call.csv."""
    src = tmp_path / "proj"
    src.mkdir()
    (src / "attn.py").write_text("import torch\n\n\ndef scores(q, k):\n    return torch.matmul(q, k.transpose(-2, -1))\n")
    rules = tmp_path / "affinity.yaml"
    rules.write_text(AFFINITY_RULE)
    out = tmp_path / "out"
    proc = run_tool("npu_lint", "migrate", str(src), "-o", str(out), "--extend-rules", str(rules))
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr
    assert [dict(r) for r in _rows(out / "affinity_api_call.csv")] == [{
        "File": "attn.py", "Start Line": "5", "End Line": "5", "Api Type": "torch",
        "Api Call Name": "torch.matmul", "Affinity Api Name": "torch_npu.contrib.function.matmul_transpose"}]
    analysis = json.loads((out / "analysis.json").read_text(encoding="utf-8"))
    assert [f["report"] for f in analysis["findings"] if f["code"] == "NPU598"] == ["affinity_api_call.csv"]
