"""Report formats for CI: SARIF (validated against the official schema), GitHub, JUnit, statistics."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from conftest import FIXTURES, run_tool, shared_file

GPU = FIXTURES / "torch_cuda_api.py"


def test_sarif_is_valid_and_carries_rules_and_fixes(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(shared_file("schemas", "sarif-schema-2.1.0.json").read_text())
    out = tmp_path / "report.sarif"
    proc = run_tool("npu_lint", "check", "--format", "sarif", "--output-file", str(out), str(GPU))
    assert proc.returncode == 1 and proc.stdout == ""
    sarif = json.loads(out.read_text())
    jsonschema.validate(sarif, schema)
    run = sarif["runs"][0]
    rule_ids = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert "NPU101" in rule_ids and run["results"]
    first = run["results"][0]
    assert rule_ids[first["ruleIndex"]] == first["ruleId"]
    assert any(result["fixes"] for result in run["results"])
    region = first["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] >= 1 and region["startColumn"] >= 1


def test_sarif_escapes_odd_file_names(tmp_path):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(shared_file("schemas", "sarif-schema-2.1.0.json").read_text())
    odd = tmp_path / 'we"ird <name> %.py'
    odd.write_text("import torch\nimport torch_npu\ntorch.cuda.synchronize()\n")
    sarif = json.loads(run_tool("npu_lint", "check", "--format", "sarif", str(odd)).stdout)
    jsonschema.validate(sarif, schema)
    uri = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri.startswith("file://") and "%22" in uri and "%3C" in uri


def test_github_annotations(tmp_path):
    proc = run_tool("npu_lint", "check", "--format", "github", str(GPU))
    lines = proc.stdout.splitlines()
    assert lines and all(line.startswith(("::warning ", "::error ", "::notice ")) for line in lines)
    assert any(f"file={GPU}".replace(":", "%3A") in line and ",line=" in line and "::NPU101 " in line for line in lines)


def test_junit_is_xml_with_a_failure_per_finding():
    proc = run_tool("npu_lint", "check", "--format", "junit", str(GPU))
    root = ET.fromstring(proc.stdout)
    json_items = json.loads(run_tool("npu_lint", "check", "--format", "json", str(GPU)).stdout)
    assert int(root.get("failures")) == len(json_items) == len(root.findall(".//failure"))


def test_statistics_counts_per_rule():
    proc = run_tool("npu_lint", "check", "--statistics", "--format", "json", str(GPU))
    items = json.loads(proc.stdout)
    count = sum(1 for item in items if item["code"] == "NPU101")
    assert f"{count:>6}  NPU101  torch-cuda-api [*]" in proc.stderr


def test_source_text_a_message_quotes_is_one_line():
    # pyro contrib/mue/dataloaders.py and mmpose sim_ota_assigner.py: an expression written over
    # several lines, quoted whole, broke the one-line-per-finding formats.
    from npu_lint.config.settings import Settings
    from npu_lint.engine.engine import Engine

    text = (
        "import torch\n"
        "def f(x, ious):\n"
        "    m = (\n"
        "        torch.cumsum(\n"
        "            x,\n"
        "            -1,\n"
        "        )\n"
        "        > 0\n"
        "    ).to(torch.double)\n"
        "    mask = torch.softmax(ious, 0) > 0\n"
        "    y = torch.softmax(x *\n"
        "                      ious, 0)[mask]\n"
        "    z = x.to(torch.double)\n"
        "    w = torch.tensor(0,\n"
        "                     dtype=ious.dtype).to(ious.device, non_blocking=True).double()\n"
        "    return m, y, z, w\n"
    )
    findings = Engine(Settings(select=("NPU606", "NPU611"))).check_text(text, "model.py").findings
    messages = {f.start.line: f.message for f in findings}
    assert "`(torch.cumsum(x, -1) > 0).to(torch.double)`" in messages[3]
    assert "`torch.softmax(x * ious, 0)[mask]`" in messages[11]
    assert "`x.to(torch.double)`" in messages[13]  # one-line text is quoted as written
    assert "`torch.tensor(0, dtype=ious.d...non_blocking=True).double()`" in messages[14]  # both ends kept
    assert not any("\n" in message for message in messages.values())


def test_a_method_chain_a_message_quotes_reads_as_written():
    # pythae 0.1.2 pvae_utils.py: `torch.tensor([1.0, -1.0])` then `.double()`, `.to(device)` and
    # `.repeat(...)` one call a line. NPU304 cut the text at 40 characters before it was put on one
    # line, and quoted `torch.tensor([1.0, -1.0]) .d`.
    from npu_lint.config.settings import Settings
    from npu_lint.engine.engine import Engine

    text = (
        "import torch\n"
        "def signs(device, dim):\n"
        "    return (\n"
        "        torch.tensor([1.0, -1.0])\n"
        "        .double()\n"
        "        .to(device)\n"
        "        .repeat(dim)\n"
        "    )\n"
        "def scaled(values_from_the_loader, device):\n"
        "    return torch.nn.functional.gelu(\n"
        "        torch.as_tensor(values_from_the_loader, dtype=torch.float64, device=device))\n"
    )
    findings = Engine(Settings(select=("NPU304",))).check_text(text, "model.py").findings
    messages = {f.start.line: f.message for f in findings}
    assert "(`torch.tensor([1.0, -1.0]).double().to(device)`)" in messages[4]
    # a long expression on one line keeps both ends, as a multi-line one does
    assert "(`torch.as_tensor(values_from_...orch.float64, device=device)`)" in messages[10]


FOLDED = ("import torch\n"
          "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
          "x = torch.zeros(2).cuda()\n"
          "y = torch.zeros(2).cuda()\n")
FOLDED_PART = "also at 2:23, NPU110: Device `cuda` is a CUDA device; use `npu`"


@pytest.mark.parametrize("tool", ["flake8", "pylint", "concise", "github", "junit"])
def test_front_ends_without_related_places_show_what_a_finding_speaks_for(tmp_path, tool):
    """`torch.cuda.is_available` speaks for the "cuda" it picks (one fix for both). A front end
    that shows no related places puts it in the message, or a hand port keeps "cuda"."""
    path = tmp_path / "pick.py"
    path.write_text(FOLDED, encoding="utf-8")
    command = {"flake8": ["flake8", "--select", "NPU"],
               "pylint": ["pylint", "--load-plugins", "npu_lint", "--persistent", "n", "--score", "n"]}
    proc = run_tool(*command.get(tool, ["npu_lint", "check", "--format", tool]), str(path))
    lines = [line for line in proc.stdout.splitlines() if "torch.cuda.is_available" in line]
    assert len(lines) == 1 and FOLDED_PART in lines[0], proc.stdout + proc.stderr
    assert sum("also at" in line for line in proc.stdout.splitlines()) == 1  # the .cuda() lines fold nothing


def test_the_full_report_notes_a_folded_finding_and_json_keeps_it_related(tmp_path):
    path = tmp_path / "pick.py"
    path.write_text(FOLDED, encoding="utf-8")
    full = run_tool("npu_lint", "check", str(path)).stdout
    assert f"= note: {FOLDED_PART}" in full
    [test] = [item for item in json.loads(run_tool("npu_lint", "check", "--format", "json", str(path)).stdout)
              if item["code"] == "NPU101"]
    assert "also at" not in test["message"]
    assert [r["message"] for r in test["related"]] == ["NPU110: Device `cuda` is a CUDA device; use `npu`"]


def test_only_folded_findings_join_the_message():
    from npu_lint.core.findings import Confidence, Finding, Position, Related, Severity

    here = Position(3, 4)
    use = Related(here, here, "`x` is used here")
    folded = Related(Position(2, 22), Position(2, 28), "NPU110: Device `cuda`", folded="NPU110")
    finding = Finding("NPU101", "torch-cuda-api", "m", here, here, Severity.WARNING, Confidence.HIGH,
                      related=(use,))
    assert finding.message_with_folded == "m"
    assert (Finding("NPU101", "torch-cuda-api", "m", here, here, Severity.WARNING, Confidence.HIGH,
                    related=(use, folded)).message_with_folded == "m (also at 2:23, NPU110: Device `cuda`)")
