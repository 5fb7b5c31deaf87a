"""kind: argument -- a call judged by one argument as written (the advice rules NPU601-605)."""
from __future__ import annotations

import pytest

from npu_lint.config.settings import Settings
from npu_lint.engine.engine import Engine
from npu_lint.run.fixer import apply_edits


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(Settings(select=("NPU601", "NPU602", "NPU605")))


def _codes(engine: Engine, body: str) -> list[tuple[int, str]]:
    result = engine.check_text("import torch\nfrom torch.utils.data import DataLoader as DL\n" + body, "t.py")
    assert not result.problems
    return [(f.start.line - 2, f.code) for f in result.findings]


@pytest.mark.parametrize("body, expected", [
    ("DL(ds)\n", [(1, "NPU601"), (1, "NPU602")]),  # an alias, both left at their defaults
    ("DL(ds, 8, True, None, None, 4, None, True)\n", []),  # positional num_workers and pin_memory
    ("DL(ds, 8, True, None, None, 0, None, False)\n", [(1, "NPU601"), (1, "NPU602")]),
    ("DL(ds, num_workers=cfg.workers, pin_memory=cfg.pin)\n", []),  # decided at run time
    ("DL(ds, **loader_kwargs)\n", []),  # may pass both
    ("DL(*args)\n", []),
    ("torch.autograd.set_detect_anomaly(True)\n", [(1, "NPU605")]),
    ("torch.autograd.set_detect_anomaly(mode=True)\n", [(1, "NPU605")]),
    ("torch.autograd.set_detect_anomaly(args.debug)\n", []),
    ("torch.autograd.gradcheck(f, (x,))\n", [(1, "NPU605")]),
    ("DataLoader(ds)\n", []),  # not imported under that name
])
def test_argument_rules(engine, body, expected):
    assert sorted(_codes(engine, body)) == expected


# torch 2.3's is_autocast_enabled and set_autocast_enabled take no device type: nothing to pass
@pytest.mark.parametrize("code, body", [
    ("NPU124", "enabled = torch.is_autocast_enabled()\n"),
    ("NPU125", "torch.set_autocast_enabled(True)\n"),
])
@pytest.mark.parametrize("target, fires", [("2.14", True), ("2.4.0", True), ("2.3.1", False)])
def test_autocast_state_without_device_type(code, body, target, fires):
    engine = Engine(Settings(target_torch_npu=target, select=(code,)))
    assert _codes(engine, body) == ([(1, code)] if fires else [])


# torch 2.13 made fork_rng's device_type default to the current accelerator's
@pytest.mark.parametrize("target, fires", [("2.1", True), ("2.12", True), ("2.13", False), ("2.14", False)])
def test_rng_fork_without_device_type(target, fires):
    engine = Engine(Settings(target_torch_npu=target, select=("NPU126",)))
    assert _codes(engine, "with torch.random.fork_rng(devices=ids):\n    pass\n") == ([(1, "NPU126")] if fires else [])


@pytest.mark.parametrize("strategy, written", [
    ("manual", 'torch.random.fork_rng(ids, device_type="npu")'),
    ("agnostic", "torch.random.fork_rng(ids, device_type=torch.accelerator.current_accelerator().type)"),
])
def test_rng_fork_gets_the_device_type_by_keyword(strategy, written):
    engine = Engine(Settings(target_torch_npu="2.12", strategy=strategy, select=("NPU126",)))
    [finding] = engine.check_text("import torch\ntorch.random.fork_rng(ids)\n", "t.py").findings
    [edit] = [edit for edit in finding.fix.edits if not edit.content.startswith("import ")]
    assert "torch.random.fork_rng(ids" + edit.content + ")" == written


@pytest.mark.parametrize("call, written", [
    ("torch.random.fork_rng(\n    devices=ids,  # eval devices\n)\n",
     'torch.random.fork_rng(\n    devices=ids, device_type="npu",  # eval devices\n)\n'),
    ("torch.random.fork_rng(ids,)\n", 'torch.random.fork_rng(ids, device_type="npu",)\n'),
    ("torch.random.fork_rng(\n)\n", 'torch.random.fork_rng(\ndevice_type="npu")\n'),
])
def test_the_keyword_goes_after_the_last_argument(call, written):
    # before ')' it would follow a comment or a trailing comma: `ids,  # c\n, device_type=...`
    engine = Engine(Settings(target_torch_npu="2.12", select=("NPU126",)))
    [finding] = engine.check_text("import torch\n" + call, "t.py").findings
    edits = [edit for edit in finding.fix.edits if not edit.content.startswith("import ")]
    assert apply_edits("import torch\n" + call, edits) == "import torch\n" + written
