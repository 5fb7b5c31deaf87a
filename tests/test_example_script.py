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


def _code_words(text: str) -> dict[int, set[str]]:
    """Per line, the CUDA / NPU words in code: names and strings, not comments or docstrings."""
    import ast
    import io
    import tokenize

    docstrings = {node.body[0].value.lineno for node in ast.walk(ast.parse(text))
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    words: dict[int, set[str]] = {}
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type in (tokenize.NAME, tokenize.STRING) and token.start[0] not in docstrings:
            found = set(re.findall(r"(?i)cuda|cudnn|nccl|npu|hccl", token.string))
            if found:
                words.setdefault(token.start[0], set()).update(found)
    return words


def test_agnostic_route_leaves_no_device_word_but_on_reported_lines(tmp_path):
    copy = tmp_path / "train_gpu.py"
    copy.write_text(SCRIPT.read_text())
    run_tool("npu_lint", "fix", "--strategy", "agnostic", "--unsafe-fixes", str(copy))
    fixed = copy.read_text()
    reported = {i["location"]["row"] for i in npu_lint_json([copy], "--no-cache", "--strategy", "agnostic")}
    lines = fixed.splitlines()
    # The script's own Timer class has a `cuda()` method: a name of the user's, not torch's.
    own = {n for n, line in enumerate(lines, start=1) if "def cuda(self)" in line or "Timer().cuda()" in line}
    left = {n: (words, lines[n - 1].strip()) for n, words in _code_words(fixed).items() if n not in reported | own}
    assert not left
    assert "torch.accelerator" in fixed and "import torch_npu" not in fixed
