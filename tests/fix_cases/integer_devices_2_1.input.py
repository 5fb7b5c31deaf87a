# args: --target-torch-npu 2.1 --unsafe-fixes
import os

import torch

local_rank = int(os.environ["LOCAL_RANK"])
noise = torch.randn(8, 16, device=local_rank)
positions = torch.arange(128, device=0)
labels = torch.tensor([0, 1], device=int(os.environ["LOCAL_RANK"]))
model = torch.nn.Linear(16, 16).to(local_rank)
