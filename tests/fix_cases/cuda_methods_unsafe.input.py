# args: --unsafe-fixes
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


def place(scores):
    # espnet's ctc_prefix_score.py: the test and the device it picks are one fix, no safer than the test's
    return torch.device("cuda:%d" % scores.get_device()) if scores.is_cuda else torch.device("cpu")


def encode(feats, amp):
    # kornia's feature/dedode/encoder.py: renamed alone, "npu" would never be switched on
    with torch.autocast("cuda", enabled=amp and feats.is_cuda):
        return feats * 2


def in_float32(t):
    with torch.amp.autocast("cuda" if t.is_cuda else "cpu", enabled=False):
        return t.float()


def dummy_forward(model, input_size):
    # torchreid's model_complexity.py: the statement form is the same one fix, no safer than the test's
    input = torch.rand(input_size)
    if next(model.parameters()).is_cuda:
        input = input.cuda()
    return model(input)
