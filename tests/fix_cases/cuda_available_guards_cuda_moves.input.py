import torch
from torch import nn


# A test of CUDA whose `.cuda()` moves have only an unsafe fix: renamed alone (a safe fix run),
# it lets the NPU host into `.cuda()`, which fails there where the CPU path ran before. The test
# is renamed no sooner than the moves it guards, also through a flag handed to the module's own
# function and tested there.
def fit(net, loader, use_cuda=True):
    if use_cuda:
        net = net.cuda()
    for x, y in loader:
        if use_cuda:
            x, y = x.cuda(), y.cuda()
        net(x).sub(y).pow(2).mean().backward()
    return net


class Detector:
    def __init__(self):
        self.use_cuda = torch.cuda.is_available()

    def train(self, net, loader):
        return fit(net, loader, use_cuda=self.use_cuda)


def evaluate(net, batch):
    if torch.cuda.is_available():
        batch = batch.cuda()
    return net(batch)


# The moves have a safe fix (a module the file builds): the test's rename stays safe.
def build():
    model = nn.Linear(2, 2)
    if torch.cuda.is_available():
        model = model.cuda()
    return model

