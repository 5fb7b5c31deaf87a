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
# arguments on the next lines, as black writes a long call (open_flamingo's train_utils.py):
# the device type goes after the parenthesis with no space left at the line's end
ctx = torch.amp.autocast("npu",
    dtype=torch.bfloat16, cache_enabled=True
)
ctx = torch.amp.autocast("npu",  # bfloat16 for stability
    dtype=torch.bfloat16
)
