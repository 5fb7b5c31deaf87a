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
# arguments on the next lines, as black writes a long call (open_flamingo's train_utils.py):
# the device type goes after the parenthesis with no space left at the line's end
ctx = torch.cuda.amp.autocast(
    dtype=torch.bfloat16, cache_enabled=True
)
ctx = torch.cuda.amp.autocast(  # bfloat16 for stability
    dtype=torch.bfloat16
)
