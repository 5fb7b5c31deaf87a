import torch
from torch.cuda.amp import GradScaler, autocast

scaler = GradScaler()
scaler2 = torch.cuda.amp.GradScaler(init_scale=2.0**16)
new_scaler = torch.amp.GradScaler("cuda")
with autocast(dtype=torch.float16):
    pass
with torch.cuda.amp.autocast():
    pass
with torch.autocast("cuda", dtype=torch.bfloat16):
    pass
