# args: --unsafe-fixes
# A library's CUDA switch kept on `self` and read only as the library's `use_cuda=` (an embedding
# wrapper that builds an audio model's class this way): the device is ported, the switch keeps its
# "cuda", so the library stays on its CPU path; "npu" there would turn its CUDA path on.
import torch
from mergekit.options import MergeOptions


class Wrapper:
    def __init__(self, device=None):
        if device is None:
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.device = device
        self.use_cuda = device == "cuda"
        self.options = MergeOptions(device="auto", use_cuda=self.use_cuda)
