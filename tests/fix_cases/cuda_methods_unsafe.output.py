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


def place(scores):
    # espnet's ctc_prefix_score.py: the test and the device it picks are one fix, no safer than the test's
    return torch.device("npu:%d" % scores.get_device()) if scores.is_npu else torch.device("cpu")


def encode(feats, amp):
    # kornia's feature/dedode/encoder.py: renamed alone, "npu" would never be switched on
    with torch.autocast("npu", enabled=amp and feats.is_npu):
        return feats * 2


def in_float32(t):
    with torch.amp.autocast("npu" if t.is_npu else "cpu", enabled=False):
        return t.float()


def dummy_forward(model, input_size):
    # torchreid's model_complexity.py: the statement form is the same one fix, no safer than the test's
    input = torch.rand(input_size)
    if next(model.parameters()).is_npu:
        input = input.npu()
    return model(input)
