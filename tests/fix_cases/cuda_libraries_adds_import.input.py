# args: --unsafe-fixes --select NPU403
from torch import nn

try:
    from apex.normalization import FusedLayerNorm
    from apex.optimizers import FusedSGD
except ImportError:
    FusedLayerNorm = FusedSGD = None


def build(dim):
    return FusedLayerNorm(dim), FusedSGD
