# args: --unsafe-fixes
"""Optional torch: the module imports without it."""
import os

try:
    import torch
    import torch_npu
    from torch.amp import autocast
    HAS_TORCH = True
except ImportError:
    HAS_TORCH = False


def run(model, batch):
    with autocast("npu"):
        return model(batch.npu())
