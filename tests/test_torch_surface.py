"""The per-release torch surface (data/torch_surface.yaml): what it says, and that it is current."""
from __future__ import annotations

import pytest

from npu_lint.generate import torch_surface as generator
from npu_lint.generate.wheel_cache import cache_root
from npu_lint.knowledge.torch_surface import first_torch_with, torch_deprecates, torch_has, torch_version


def test_facts_from_the_wheels():
    assert torch_version("2.1.0.post17") == "2.1.0"
    assert first_torch_with("torch.amp.GradScaler") == "2.3.1"
    assert first_torch_with("torch.get_device_module") == "2.4.0"
    assert first_torch_with("torch.accelerator.current_accelerator") == "2.6.0"
    assert first_torch_with("torch.distributed.get_default_backend_for_device") == "2.6.0"
    assert first_torch_with("torch.accelerator.empty_cache") == "2.9.0"
    assert torch_deprecates("torch.cuda.amp.GradScaler", "2.4.0.post4")
    assert not torch_deprecates("torch.cuda.amp.GradScaler", "2.3.1.post6")
    assert torch_has("torch.accelerator.empty_host_cache", "2.13.0") and not torch_has(
        "torch.accelerator.empty_host_cache", "2.12.0.post3")


def test_hand_kept_releases_say_so():
    text = generator.DEFAULT_OUTPUT.read_text()
    for version in generator.HAND_KEPT:
        assert version in text
    assert text.count("Hand-kept.") == 3 and "NOT read" in text


def test_committed_data_matches_the_wheels():
    folder = cache_root() / "torch-wheels"
    if not all(generator.wheel_path(folder, v) for v in generator.TORCH_RELEASES if v not in generator.HAND_KEPT):
        pytest.skip(f"torch wheels not in {folder}")
    assert generator.render(generator.build(folder)) == generator.DEFAULT_OUTPUT.read_text()
