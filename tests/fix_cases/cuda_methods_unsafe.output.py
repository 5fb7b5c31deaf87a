# args: --unsafe-fixes
import torch
import torch.nn as nn
import torch_npu


class Net(nn.Module):
    pass


x = torch.randn(3).npu()
model = Net().npu()
on_gpu = x.is_npu


def step(batch):
    return batch.npu()


def in_float32(t):
    with torch.amp.autocast("npu" if t.is_npu else "cpu", enabled=False):
        return t.float()
