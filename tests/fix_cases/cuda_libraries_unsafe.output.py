# args: --unsafe-fixes --select NPU403
import torch
import torch_npu
import torch.nn as nn
from apex.normalization import FusedLayerNorm
from apex.optimizers import FusedAdam, FusedLAMB, FusedSGD
from apex.parallel import DistributedDataParallel as DDP, SyncBatchNorm, convert_syncbn_model
from flash_attn import flash_attn_func


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = torch.nn.LayerNorm(dim, eps=1e-6)
        self.fast_norm = FusedLayerNorm(dim, memory_efficient=True)
        self.bn = torch.nn.SyncBatchNorm(dim)

    def forward(self, q, k, v):
        return flash_attn_func(self.norm(q), k, v, causal=True)


def setup(model, args):
    model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model)
    model = torch.nn.parallel.DistributedDataParallel(model)
    apex_ddp = DDP(model, delay_allreduce=True)
    adamw = torch_npu.optim.NpuFusedAdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    adam = torch_npu.optim.NpuFusedAdam(model.parameters(), lr=1e-3)
    adam_first = torch_npu.optim.NpuFusedAdamW(params=model.parameters())
    adam_flag = FusedAdam(model.parameters(), adam_w_mode=args.adamw)
    sgd = torch_npu.optim.NpuFusedSGD(model.parameters(), lr=0.1, momentum=0.9)
    lamb = FusedLAMB(model.parameters(), lr=1e-3)
    return model, apex_ddp, adamw, adam, adam_first, adam_flag, sgd, lamb, isinstance(model, torch.nn.parallel.DistributedDataParallel)
