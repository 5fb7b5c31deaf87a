"""The shipped example GPU training script: the same findings from pylint, flake8 and
`npu-lint check`, equal to the reviewed list in tests/golden/train_gpu.json. CI runs this
once without torch and once with torch 2.13 installed, so both must give this list."""
from __future__ import annotations

import json
import re

from conftest import REPO, npu_lint_json, run_tool

from npu_lint.knowledge.loader import shipped_rules

SCRIPT = REPO / "docs" / "examples" / "train_gpu.py"
GOLDEN = sorted(tuple(row) for row in json.loads((REPO / "tests" / "golden" / "train_gpu.json").read_text()))
CODE_OF = {rule.name: rule.code for rule in shipped_rules()}


def test_npu_lint_check_gives_the_reviewed_findings():
    items = npu_lint_json([SCRIPT], "--no-cache")
    assert sorted((i["location"]["row"], i["location"]["column"], i["code"]) for i in items) == GOLDEN


def test_flake8_gives_the_same():
    proc = run_tool("flake8", "--select", "NPU", str(SCRIPT))
    rows = [re.match(r".*:(\d+):(\d+): (NPU\d+) ", line) for line in proc.stdout.splitlines()]
    assert sorted((int(m[1]), int(m[2]), m[3]) for m in rows) == GOLDEN


def test_pylint_gives_the_same():
    checkers = ",".join(sorted({f"npu-lint-{rule.family.lower()}" for rule in shipped_rules()}))
    proc = run_tool("pylint", "--load-plugins", "npu_lint", "--disable", "all", "--enable", checkers,
                    "--msg-template", "{line}:{column}:{symbol}", "--score", "n", "--persistent", "n", str(SCRIPT))
    rows = [line.split(":") for line in proc.stdout.splitlines() if not line.startswith("*")]
    assert sorted((int(line), int(column) + 1, CODE_OF[symbol]) for line, column, symbol in rows) == GOLDEN


def test_a_users_own_cuda_method_stays_quiet():
    line = next(n for n, text in enumerate(SCRIPT.read_text().splitlines(), start=1) if "Timer().cuda()" in text)
    assert not [row for row in GOLDEN if row[0] == line]
