"""NPU112 and its facts (data/integer_devices.yaml): one row per release, reported only where an
integer still means CUDA, and docs/integer-devices.md generated from the same table."""
from __future__ import annotations

import pytest
from conftest import FIXTURES

from npu_lint.config.settings import Settings
from npu_lint.engine.engine import Engine
from npu_lint.knowledge import release_data
from npu_lint.knowledge.integer_devices import DATA_FILE, integer_device_facts, parse
from npu_lint.knowledge.loader import RuleDataError
from npu_lint.knowledge.location import data_file

FIXTURE = FIXTURES / "torch_npu_2_1" / "integer_devices.py"


def _codes(text: str, **settings) -> list[str]:
    result = Engine(Settings(select=("NPU112",), **settings)).check_text(text, "example.py")
    assert not result.problems, result.problems
    return [finding.code for finding in result.findings]


def test_one_row_per_release_and_only_torch_2_1_factories_mean_cuda():
    facts = integer_device_facts()
    assert tuple(facts.releases) == release_data.releases()
    cuda = {(row.release, form) for row in facts.releases.values() for form in row.cuda_forms()}
    assert cuda == {("2.1.0.post17", "factory")}
    for row in facts.releases.values():  # never CUDA in any release: not reported anywhere
        assert row.meanings["map_location"] == "type-error" and row.meanings["device_ids"] == "index"


def test_a_wrong_meaning_is_a_clear_error():
    text = data_file(DATA_FILE).replace("factory: cuda", "factory: gpu", 1)
    with pytest.raises(RuleDataError, match="releases.2.1.0.post17.factory"):
        parse(text)


@pytest.mark.parametrize("release", release_data.releases())
def test_the_fixture_fires_only_on_torch_npu_2_1(release):
    found = _codes(FIXTURE.read_text(encoding="utf-8"), target_torch_npu=release)
    assert bool(found) == (release == "2.1.0.post17")


def test_transfer_to_npu_rewrites_the_factories_it_wraps():
    text = "import torch\nimport torch_npu\na = torch.randn(3, device=0)\nb = torch.asarray([1.0], device=0)\n"
    assert _codes(text, target_torch_npu="2.1") == ["NPU112", "NPU112"]
    assert _codes(text, target_torch_npu="2.1", strategy="auto") == ["NPU112"]  # asarray is not wrapped


def test_int_of_text_is_an_integer_without_inference_and_a_shadowed_int_is_not():
    text = ('import os\nimport torch\nimport torch_npu\nrank = int(os.environ["RANK"])\n'
            'a = torch.zeros(2, device=rank)\nb = torch.zeros(2, device=int(os.environ["RANK"]))\n')
    assert _codes(text, target_torch_npu="2.1") == ["NPU112", "NPU112"]
    shadowed = "import torch\nimport torch_npu\nint = str\nb = torch.zeros(2, device=int(3))\n"
    assert _codes(shadowed, target_torch_npu="2.1") == []
