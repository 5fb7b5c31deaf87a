# args: --unsafe-fixes
# A `.is_cuda` test is renamed only with what it keeps off other devices, as a device string or
# torch.cuda test is: renamed alone, it would send the NPU into a name that fails there as it
# stands (mmfewshot's and mmhuman3d's inference APIs scatter with mmcv 1.x's CUDA scatter;
# nn.DataParallel).
import torch
import torch.nn as nn
from mmcv.parallel import collate, scatter


def prepare(model, data, device):
    data = collate([data], samples_per_gpu=1)
    if next(model.parameters()).is_cuda:
        data = scatter(data, [device])[0]
    return data


def wrap(model):
    if next(model.parameters()).is_cuda:
        model = nn.DataParallel(model)
    return model


# What it keeps off has an NPU fix of its own: renamed with it.
def to_host(x):
    if x.is_cuda:
        x = x.cpu()
    return x.cuda()
