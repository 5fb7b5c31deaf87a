# args: --select NPU510 --unsafe-fixes
import torch
import torch_npu
from torch import nn
from torch.optim import AdamW

model = nn.Linear(16, 4)
optimizer = torch_npu.optim.NpuFusedAdamW(model.parameters(), lr=1e-4, weight_decay=0.05)
sgd = torch_npu.optim.NpuFusedSGD(model.parameters(), 0.1, 0.9)
imported = torch_npu.optim.NpuFusedAdamW(model.parameters(), lr=1e-4)
keeps_foreach = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=False)
no_lr = torch.optim.SGD(model.parameters())
