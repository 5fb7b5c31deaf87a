"""A rule from an `extend-rules` file reaches every front end: check (with --statistics and
SARIF), pylint and flake8, and checks see it through the engine, not a module global."""
from __future__ import annotations

import json
import textwrap

import pytest
from conftest import run_tool

EXTRA_RULES = textwrap.dedent("""\
    rules:
      - code: NPU801
        name: team-forbidden-empty-cache
        kind: symbol
        match:
          symbols: [torch.cuda.empty_cache]
        severity: warning
        message: "`{qname}`: the team does not empty the allocator cache"
        doc:
          what: "Flags torch.cuda.empty_cache."
          why: "A team policy."
          example: |
            import torch
            torch.cuda.empty_cache()
          use_instead: |
            import torch
          fix_safety: "No fix."
""")


@pytest.fixture()
def project(tmp_path):
    (tmp_path / "team-rules.yaml").write_text(EXTRA_RULES, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.npu-lint]\nextend-rules = ["team-rules.yaml"]\n',
                                             encoding="utf-8")
    (tmp_path / "train.py").write_text("import torch\n\ntorch.cuda.empty_cache()\n", encoding="utf-8")
    return tmp_path


def test_check_statistics_counts_the_extra_rule(project):
    proc = run_tool("npu_lint", "check", "--statistics", "train.py", cwd=project)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "NPU801  team-forbidden-empty-cache" in proc.stdout + proc.stderr


def test_sarif_describes_the_extra_rule(project):
    proc = run_tool("npu_lint", "check", "--format", "sarif", "train.py", cwd=project)
    run = json.loads(proc.stdout)["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    [result] = [r for r in run["results"] if r["ruleId"] == "NPU801"]
    assert rules[result["ruleIndex"]]["id"] == "NPU801"


def test_pylint_reports_the_extra_rule(project):
    proc = run_tool("pylint", "--load-plugins", "npu_lint", "--disable=all",
                    "--enable=team-forbidden-empty-cache", "train.py", cwd=project)
    assert "train.py:3:0: W5801:" in proc.stdout, proc.stdout + proc.stderr
    assert "(team-forbidden-empty-cache)" in proc.stdout


def test_flake8_reports_the_extra_rule(project):
    proc = run_tool("flake8", "--select", "NPU801", "train.py", cwd=project)
    assert proc.stdout.strip() == (
        "train.py:3:1: NPU801 `torch.cuda.empty_cache`: the team does not empty the allocator cache"), proc.stderr
