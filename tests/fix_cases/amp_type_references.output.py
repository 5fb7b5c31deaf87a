from typing import Optional

import torch
import torch_npu

# speechbrain utils/checkpoints.py keys its save hooks by class (there by
# torch.cuda.amp.grad_scaler.GradScaler) and looks an object's classes up (inspect.getmro): the
# fixed constructor makes a torch.amp.GradScaler, so the key must be torch.amp's class.
DEFAULT_SAVE_HOOKS = {
    torch.amp.GradScaler: "torch_save",
    torch.optim.Optimizer: "torch_save",
}
scaler = torch.amp.GradScaler("npu", enabled=True)
if isinstance(scaler, (torch.amp.GradScaler, type(None))):
    pass


def restore(saved: torch.amp.GradScaler) -> None:
    pass


class Solver:
    scaler: Optional[torch.amp.GradScaler] = None  # audiocraft, monai: an annotation inside Optional


scaler_cls = torch.npu.amp.GradScaler  # called later, without a device: the NPU class
