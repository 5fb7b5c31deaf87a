import torch
from torch.cuda.amp import autocast

# espnet2/s2t/espnet_model.py: `autocast(False)` passes `enabled` by position, but torch.amp.autocast
# takes the dtype second; the torch.npu.amp name takes the arguments in torch.cuda.amp's order.
with autocast(False):
    pass
with torch.cuda.amp.autocast(False, torch.bfloat16):
    pass
with torch.cuda.amp.autocast(enabled=False):
    pass
scaler = torch.cuda.amp.GradScaler(2.0**16)  # torch.amp.GradScaler keeps the order after the device
