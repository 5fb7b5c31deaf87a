import torch
import torch_npu
from torch.amp import GradScaler, autocast

scaler = GradScaler("npu")
scaler2 = torch.amp.GradScaler("npu", init_scale=2.0**16)
new_scaler = torch.amp.GradScaler("npu")
with autocast("npu", dtype=torch.float16):
    pass
with torch.amp.autocast("npu"):
    pass
with torch.autocast("npu", dtype=torch.bfloat16):
    pass
