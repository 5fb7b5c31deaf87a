"""An explicit CPU device silences the device and operator rules for that call (the opt-in
NPU930/NPU931 too; the default rules are proven by tests/fixtures/operators.py)."""
from __future__ import annotations

from npu_lint.config.settings import Settings
from npu_lint.engine.engine import Engine

HEADER = "import torch\nimport torch_npu\n"


def _codes(text: str, *select: str) -> list[str]:
    result = Engine(Settings(select=select)).check_text(HEADER + text, "example.py")
    assert not result.problems, result.problems
    return [finding.code for finding in result.findings]


def test_opt_in_list_rules_are_quiet_on_cpu_calls():
    assert _codes('t = torch.from_file("a.bin", size=8)\n', "NPU930") == ["NPU930"]
    assert _codes('t = torch.from_file("a.bin", size=8, device="cpu")\n', "NPU930") == []
    assert _codes('t = torch.from_file("a.bin", size=8, device=torch.device("cpu:0"))\n', "NPU930") == []


def test_a_tensor_made_on_the_cpu_stays_there_through_methods():
    text = 'x = torch.randn(3, device="cpu")\ny = x.abs().lgamma()\n'
    assert _codes(text, "NPU3") == []
    assert _codes('x = torch.randn(3)\ny = x.abs().lgamma()\n', "NPU3") == ["NPU301"]


def test_moving_back_to_another_device_ends_the_cpu_trail():
    text = 'x = torch.randn(3, device="cpu").to("npu")\ny = x.lgamma()\n'
    assert _codes(text, "NPU3") == ["NPU301"]


def test_an_operator_without_any_cpu_kernel_is_reported_on_the_cpu_too():
    text = "x = torch.randn(1, 1, 4, 4)\no = torch.cudnn_convolution(x.cpu(), x, [0, 0], [1, 1], [1, 1], 1, False, False, True)\n"
    assert _codes(text, "NPU302") == ["NPU302"]
