import torch
from apex.parallel import DistributedDataParallel as DDP

model = DDP(torch.nn.Linear(2, 2))
