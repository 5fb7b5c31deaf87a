"""NPU5xx: off by default, gated on the target release and chip, facts from data/fused_operators.yaml."""
from __future__ import annotations

import pytest

from npu_lint.config.settings import Settings
from npu_lint.engine.engine import Engine
from npu_lint.knowledge import fused_operators
from npu_lint.knowledge.loader import rule_by_code, shipped_rules

SWIGLU = """
import torch.nn.functional as F


def swiglu(x):
    a, b = x.chunk(2, dim=-1)
    return F.silu(a) * b
"""
GEGLU = SWIGLU.replace("silu", "gelu")
ATTENTION = """
import torch


def attention(q, k, v):
    scores = torch.matmul(q, k.transpose(-1, -2)) / 8.0
    return torch.matmul(scores.softmax(dim=-1), v)
"""


def _findings(text: str, **settings):
    engine = Engine(Settings(select=("NPU5",), **settings))
    return engine.check_text(text, "model.py").findings


def test_off_by_default():
    assert all(not rule.default_enabled for rule in shipped_rules() if rule.family == "NPU5xx")
    assert not Engine(Settings()).check_text(SWIGLU, "model.py").findings


def test_pylint_ids_use_checker_digits_55():
    assert rule_by_code("NPU501").pylint_msgid == "C5501"


def test_swiglu_follows_the_chips_ascend_documents():
    assert [f.code for f in _findings(SWIGLU, npu_chip="Atlas A2")] == ["NPU503"]
    assert _findings(SWIGLU, npu_chip="Atlas A3") == []


def test_gelu_mul_needs_2_6():
    assert _findings(GEGLU, target_torch_npu="2.5.1.post1") == []
    assert [f.code for f in _findings(GEGLU, target_torch_npu="2.6.0.post5")] == ["NPU504"]


@pytest.mark.parametrize("chip, api", [("Atlas A2", "torch_npu.npu_fusion_attention"),
                                       ("Atlas A3", "torch.nn.functional.scaled_dot_product_attention"),
                                       ("Ascend 950DT", None)])
def test_attention_advice_per_chip(chip, api):
    found = _findings(ATTENTION, npu_chip=chip)
    if api is None:
        assert found == []
    else:
        assert len(found) == 1 and f"`{api}`" in found[0].message
        assert found[0].related, "the scores matmul is shown as a related location"


def test_plain_sdpa_is_never_reported():
    text = "import torch.nn.functional as F\n\n\ndef f(q, k, v):\n    return F.scaled_dot_product_attention(q, k, v)\n"
    for chip in ("Atlas A2", "Atlas A3", "Ascend 950DT"):
        assert _findings(text, npu_chip=chip) == []


def test_every_suggested_operator_has_sources_and_known_chips():
    for rule in shipped_rules():
        if rule.family != "NPU5xx":
            continue
        operators = fused_operators.for_rule(rule.code)
        assert operators, rule.code
        for operator in operators:
            assert operator.sources and operator.chips and operator.dtypes


def test_optimizer_fix_only_where_the_arguments_carry_over():
    text = ("import torch\n\nw = [torch.zeros(2)]\na = torch.optim.AdamW(w, lr=1e-3)\n"
            "b = torch.optim.AdamW(w, lr=1e-3, maximize=True)\nc = torch.optim.SGD(w)\n")
    findings = {f.start.line: f for f in _findings(text)}
    assert findings[4].fix.applicability.value == "unsafe"
    assert findings[5].fix.applicability.value == "display-only"
    assert findings[6].fix.applicability.value == "display-only"
