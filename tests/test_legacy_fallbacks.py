"""The torch.cuda.amp fallback of an import from torch.amp runs only on a torch without that name."""
from __future__ import annotations

from npu_lint.config.settings import Settings
from npu_lint.engine.engine import Engine

# hivemind 1.1.12's optim/grad_scaler.py and espnet2's train/trainer.py, shortened
TEXT = """import torch
try:
    from torch.amp import GradScaler
except ImportError:
    from torch.cuda.amp import GradScaler
if hasattr(torch.amp, "autocast"):
    from torch.amp import autocast
else:
    from torch.cuda.amp import autocast
"""


def _codes(settings: Settings) -> list[tuple[int, str]]:
    return [(f.start.line, f.code) for f in Engine(settings).check_text(TEXT, "<string>").findings]


def test_the_newest_target_never_reaches_either_fallback():
    assert _codes(Settings()) == []


def test_torch_2_1_reaches_the_grad_scaler_fallback_only():
    # torch.amp.autocast is in torch 2.1, torch.amp.GradScaler came with torch 2.3
    assert _codes(Settings(target_torch_npu="2.1")) == [(5, "NPU101")]
