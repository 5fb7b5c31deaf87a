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


def to_cuda(tensors):
    # asteroid's utils/torch_utils.py: `isinstance` makes it a Tensor, whose .npu() is safe; past
    # the branch it may be anything with a cuda() of its own
    if isinstance(tensors, torch.Tensor):
        return tensors.cuda()
    return tensors.cuda()


def inputs_to_device(inputs):
    # pythae's trainer: `torch.is_tensor` makes the item a Tensor; an item stored again before
    # the call, or one not tested, may be anything
    moved = dict.fromkeys(inputs)
    for key in inputs.keys():
        if torch.is_tensor(inputs[key]):
            moved[key] = inputs[key].cuda()
        if torch.is_tensor(inputs[key]):
            inputs[key] = wrap(inputs[key])
            moved[key] = inputs[key].cuda()
        moved[key] = inputs[key].cuda()
    return {k: v.cuda() if torch.is_tensor(v) else v for k, v in moved.items()}


def window_sum_on(magnitude, window_sum):
    # tacotron2's stft.py (tortoise-tts, fairseq's gslm): the test and the move it picks are one fix,
    # no safer than the test's (its receiver is not inferred); renamed alone, the move is never taken
    window_sum = torch.from_numpy(window_sum)
    return window_sum.cuda() if magnitude.is_cuda else window_sum


def dummy_forward(model, input_size):
    # torchreid's model_complexity.py: the statement form is the same one fix, no safer than the test's
    input = torch.rand(input_size)
    if next(model.parameters()).is_cuda:
        input = input.cuda()
    return model(input)
