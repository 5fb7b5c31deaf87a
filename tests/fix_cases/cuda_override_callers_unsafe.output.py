# args: --unsafe-fixes
# A class that overrides cuda() with work of its own and has no npu() (NPU119): renaming its
# callers' `.cuda()` would call nn.Module's npu() and skip that work (hqq 0.2.8's HQQLinear packs
# its quantized weights in cuda(), gpytorch 1.15's NNUtil builds its index there). Those calls stay
# until the class has an npu(); other Modules' calls are renamed.
import torch
import torch_npu
from torch import nn


class Quantizer:
    @staticmethod
    def cuda(W_q, meta, device):
        return W_q.to(device), meta


class HQQLinear(nn.Module):
    def cuda(self, device):
        self.W_q, self.meta = Quantizer.cuda(self.W_q, self.meta, device)
        self.bias = None if self.bias is None else self.bias.npu(device)
        return self

    def initialize(self):
        self.cuda(self.device)
        self.ready = True


class NNUtil(nn.Module):
    def cuda(self, device=None):
        super().cuda(device=device)
        self.index = build_gpu_index(self.train_x)
        return self

    def to(self, device):
        if "npu" in str(device):
            return self.cuda()
        return self.cpu()


def load():
    layer = HQQLinear()
    layer.cuda(0)
    return nn.Linear(4, 4).npu()
