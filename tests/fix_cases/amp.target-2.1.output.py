import torch
import torch_npu
from torch.npu.amp import GradScaler, autocast

scaler = GradScaler()
scaler2 = torch.npu.amp.GradScaler(init_scale=2.0**16)
new_scaler = torch.amp.GradScaler("npu")
with autocast(dtype=torch.float16):
    pass
with torch.amp.autocast("npu"):
    pass
with torch.autocast("npu", dtype=torch.bfloat16):
    pass
