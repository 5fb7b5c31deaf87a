"""kind: argument -- a call judged by one argument as written (the advice rules NPU601-605)."""
from __future__ import annotations

import pytest

from npu_lint.config.settings import Settings
from npu_lint.engine.engine import Engine


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


@pytest.mark.parametrize("target, expected", [
    ("2.14", [(1, "NPU124")]),
    ("2.4.0", [(1, "NPU124")]),
    ("2.3.1", []),  # torch 2.3's is_autocast_enabled takes no device type
])
def test_autocast_state_without_device_type(target, expected):
    engine = Engine(Settings(target_torch_npu=target, select=("NPU124",)))
    assert _codes(engine, "enabled = torch.is_autocast_enabled()\n") == expected


@pytest.mark.parametrize("target, expected", [
    ("2.14", [(1, "NPU125")]),
    ("2.4.0", [(1, "NPU125")]),
    ("2.3.1", []),  # torch 2.3's set_autocast_enabled takes no device type
])
def test_autocast_switch_without_device_type(target, expected):
    engine = Engine(Settings(target_torch_npu=target, select=("NPU125",)))
    assert _codes(engine, "torch.set_autocast_enabled(True)\n") == expected
