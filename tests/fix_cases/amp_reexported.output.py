# A module that hands the legacy AMP names to others (funasr 1.4.16's utils/amp.py, shortened): the
# calls that other modules make keep CUDA's signature, `autocast(enabled=...)`, so the import moves
# to torch.npu.amp, which takes it, and not to torch.amp, which wants the device type first.
import torch
import torch_npu
from torch.npu.amp import autocast, GradScaler

__all__ = ["autocast", "GradScaler"]
