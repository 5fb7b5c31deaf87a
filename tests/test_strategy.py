"""The two routes: `auto` is quiet about what transfer_to_npu rewrites, `manual` reports it all."""
from __future__ import annotations

from conftest import FIXTURES

from npu_lint.config.settings import Settings
from npu_lint.engine.engine import Engine
from npu_lint.knowledge.loader import shipped_rules

SCRIPT = (FIXTURES / "auto" / "train_auto.py").read_text()
AUTO_ONLY = {r.code for r in shipped_rules() if r.strategies == ("auto",)}
MANUAL_ONLY = {r.code for r in shipped_rules() if r.strategies == ("manual",)}


def _codes(strategy: str) -> set[str]:
    return {f.code for f in Engine(Settings(strategy=strategy)).check_text(SCRIPT, "train.py").findings}


def test_manual_reports_what_the_patch_rewrites():
    manual = _codes("manual")
    assert {"NPU101", "NPU103", "NPU110", "NPU111", "NPU120", "NPU201"} <= manual
    assert not manual & AUTO_ONLY


def test_auto_reports_only_what_the_patch_leaves():
    auto = _codes("auto")
    assert not auto & MANUAL_ONLY
    assert {"NPU190", "NPU114", "NPU115", "NPU116", "NPU206"} <= auto


def test_every_rule_names_its_routes():
    for rule in shipped_rules():
        assert rule.strategies and set(rule.strategies) <= {"manual", "auto", "agnostic"}
        # Only what transfer_to_npu adds (NPU120 aside) is manual-only: agnostic serves the rest.
        assert "agnostic" in rule.strategies or rule.strategies == ("auto",) or rule.code == "NPU120"


def test_older_release_lists_decide_what_is_patched():
    # get_rng_state joined transfer_to_npu's torch.cuda list in 2.13: in 2.12 its
    # device argument is not rewritten.
    text = "import torch\ntorch.cuda.get_rng_state('cuda:0')\n"
    new = Engine(Settings(strategy="auto")).check_text(text, "a.py").findings
    old = Engine(Settings(strategy="auto", target_torch_npu="2.12.0.post3")).check_text(text, "a.py").findings
    assert "NPU115" not in {f.code for f in new}
    assert "NPU115" in {f.code for f in old}
