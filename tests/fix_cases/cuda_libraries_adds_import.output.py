# args: --unsafe-fixes --select NPU403
from torch import nn
import torch
import torch_npu

try:
    from apex.normalization import FusedLayerNorm
    from apex.optimizers import FusedSGD
except ImportError:
    FusedLayerNorm = FusedSGD = None


def build(dim):
    return torch.nn.LayerNorm(dim), torch_npu.optim.NpuFusedSGD
