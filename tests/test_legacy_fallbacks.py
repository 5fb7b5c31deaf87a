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


# mergekit 0.1.5's common.py, shortened: torch.accelerator (torch 2.6) answers "npu" on an Ascend
# host, so the torch.cuda fallback runs only on an older torch. A name the table does not track
# (torch.xpu) says nothing about the target: its fallback stays a finding.
ACCELERATOR_TEXT = """import torch


def get_torch_accelerator_module():
    return (
        getattr(torch, torch.accelerator.current_accelerator().type)
        if hasattr(torch, "accelerator")
        else torch.cuda
    )


def get_torch_accelerator_type():
    if not hasattr(torch, "accelerator"):
        return "cuda"
    return torch.accelerator.current_accelerator().type


def get_xpu_or_cuda():
    return torch.xpu if hasattr(torch, "xpu") else torch.cuda
"""


def _accelerator_codes(settings: Settings) -> list[tuple[int, str]]:
    return [(f.start.line, f.code) for f in Engine(settings).check_text(ACCELERATOR_TEXT, "<string>").findings]


def test_the_newest_target_never_reaches_the_fallback_of_torch_accelerator():
    assert _accelerator_codes(Settings()) == [(19, "NPU101")]


def test_torch_2_1_reaches_the_fallback_of_torch_accelerator():
    assert _accelerator_codes(Settings(target_torch_npu="2.1")) == [(8, "NPU101"), (14, "NPU111"), (19, "NPU101")]


# open_clip 3.3's open_clip_train/main.py, shortened: the handler of a torch.amp call that falls
# back to its torch.cuda.amp twin runs only on a torch without torch.amp.GradScaler (torch 2.3).
SCALER_TEXT = """import torch


def resume(device, checkpoint):
    try:
        scaler = torch.amp.GradScaler(device=device)
    except (AttributeError, TypeError) as e:
        scaler = torch.cuda.amp.GradScaler()
    scaler.load_state_dict(checkpoint)
"""


def _scaler_codes(settings: Settings) -> list[tuple[int, str]]:
    return [(f.start.line, f.code) for f in Engine(settings).check_text(SCALER_TEXT, "<string>").findings]


def test_the_newest_target_never_reaches_the_fallback_of_a_torch_amp_call():
    assert _scaler_codes(Settings()) == []


def test_torch_2_1_reaches_the_fallback_of_a_torch_amp_call():
    assert _scaler_codes(Settings(target_torch_npu="2.1")) == [(8, "NPU101"), (9, "NPU105")]
