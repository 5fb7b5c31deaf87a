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


TEAM_FAILING_NAME = textwrap.dedent("""\
    rules:
      - code: NPU802
        name: team-cuda-only-pool
        kind: symbol
        match:
          symbols: [teamlib.CudaPool]
        severity: error
        message: "`{qname}` runs on CUDA only"
        fix:
          applicability: display-only
          message: "Port the pool by hand"
        doc:
          what: "Flags teamlib.CudaPool."
          why: "The team's pool has CUDA kernels only."
          example: |
            import teamlib
            teamlib.CudaPool()
          use_instead: |
            import teamlib
          fix_safety: "No fix."
""")


def test_a_name_an_extra_rule_says_fails_on_the_npu_holds_back_the_test_that_keeps_it_off(tmp_path):
    # as for DataParallel (NPU140): renamed alone, the test would send the NPU into the team's pool
    from npu_lint.config.settings import Settings
    from npu_lint.core.findings import Applicability
    from npu_lint.engine.engine import Engine

    rules = tmp_path / "team-rules.yaml"
    rules.write_text(TEAM_FAILING_NAME, encoding="utf-8")
    source = "import torch\nimport teamlib\n\nif torch.cuda.is_available():\n    pool = teamlib.CudaPool()\n"
    held = {f.code: f for f in Engine(Settings(extend_rules=(str(rules),))).check_text(source).findings}
    assert held["NPU101"].fix.applicability is Applicability.DISPLAY_ONLY
    assert "teamlib.CudaPool" in held["NPU101"].message + held["NPU101"].fix.message
    plain = {f.code: f for f in Engine(Settings()).check_text(source).findings}
    assert plain["NPU101"].fix.applicability is not Applicability.DISPLAY_ONLY
