"""Each rule's doc examples are tests: the example fires, the "use instead" stays quiet;
and the generated pages in docs/rules/ are what the rule data generates."""
from __future__ import annotations

import pytest
from conftest import run_tool

from npu_lint.config.settings import Settings
from npu_lint.engine.engine import Engine
from npu_lint.generate.rule_docs import generated_pages, stale_pages
from npu_lint.knowledge.loader import STRATEGIES, shipped_rules

RULES = shipped_rules()


def _codes(engine: Engine, text: str) -> list[str]:
    result = engine.check_text(text, "example.py")
    assert not result.problems, result.problems
    return [finding.code for finding in result.findings]


@pytest.fixture(scope="module")
def engines() -> dict[str, Engine]:
    """One engine per route, with the off-by-default rules selected too."""
    codes = tuple(rule.code for rule in RULES)
    return {strategy: Engine(Settings(select=codes, strategy=strategy)) for strategy in STRATEGIES}


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.code)
def test_example_fires(rule, engines):
    for strategy in rule.strategies:
        assert rule.code in _codes(engines[strategy], rule.doc.example), strategy


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.code)
def test_use_instead_is_quiet(rule, engines):
    for strategy in rule.strategies:
        assert rule.code not in _codes(engines[strategy], rule.doc.use_instead), strategy


def test_docs_are_generated_from_rule_data():
    stale = stale_pages()
    assert not stale, f"run `python -m npu_lint.generate.rule_docs`; stale pages: {stale}"


def test_page_has_every_section():
    page = generated_pages()["NPU101.md"]
    for section in ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety"):
        assert f"## {section}" in page


def test_explain_prints_the_page():
    proc = run_tool("npu_lint", "explain", "NPU101")
    assert proc.returncode == 0
    assert proc.stdout == generated_pages()["NPU101.md"]
    assert run_tool("npu_lint", "explain", "torch-cuda-api").stdout == proc.stdout


def test_explain_unknown_rule_is_a_clear_error():
    proc = run_tool("npu_lint", "explain", "NPU999")
    assert proc.returncode == 2
    assert "no rule 'NPU999'" in proc.stderr and "Traceback" not in proc.stderr


def test_rules_lists_every_rule():
    proc = run_tool("npu_lint", "rules")
    assert proc.returncode == 0
    for rule in RULES:
        assert rule.code in proc.stdout and rule.name in proc.stdout
