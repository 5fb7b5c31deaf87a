import torch
import torch.nn as nn
import torch_npu


class Net(nn.Module):
    pass


x = torch.randn(3).cuda()
model = Net().cuda()
on_gpu = x.is_cuda


def step(batch):
    return batch.cuda()


def in_float32(t):
    with torch.amp.autocast("cuda" if t.is_cuda else "cpu", enabled=False):
        return t.float()
