# args: --unsafe-fixes
# skorch's and timm's test skips: renaming the test alone would stop skipping "cuda" on an NPU
# machine, where the test then fails; the device is part of the port, which is no safer than its
# unsafe rename, so a safe run leaves the line alone.
import torch


def skip_unavailable(device):
    if device == "cuda" and not torch.cuda.is_available():
        return True
    return False
