# args: --unsafe-fixes --select NPU403
import torch
import torch.nn as nn
from apex.normalization import FusedLayerNorm
from apex.optimizers import FusedAdam, FusedLAMB, FusedSGD
from apex.parallel import DistributedDataParallel as DDP, SyncBatchNorm, convert_syncbn_model
from flash_attn import flash_attn_func


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = FusedLayerNorm(dim, eps=1e-6)
        self.fast_norm = FusedLayerNorm(dim, memory_efficient=True)
        self.bn = SyncBatchNorm(dim)

    def forward(self, q, k, v):
        return flash_attn_func(self.norm(q), k, v, causal=True)


def setup(model, args):
    model = convert_syncbn_model(model)
    model = DDP(model)
    apex_ddp = DDP(model, delay_allreduce=True)
    adamw = FusedAdam(model.parameters(), lr=1e-3, weight_decay=0.05)
    adam = FusedAdam(model.parameters(), adam_w_mode=False, lr=1e-3)
    adam_first = FusedAdam(adam_w_mode=True, params=model.parameters())
    adam_flag = FusedAdam(model.parameters(), adam_w_mode=args.adamw)
    sgd = FusedSGD(model.parameters(), lr=0.1, momentum=0.9)
    lamb = FusedLAMB(model.parameters(), lr=1e-3)
    return model, apex_ddp, adamw, adam, adam_first, adam_flag, sgd, lamb, isinstance(model, DDP)
