import torch
import torch as t
from torch import cuda
from torch.cuda import amp
from torch.cuda import nvtx

torch.cuda.synchronize()
t.cuda.empty_cache()
cuda.manual_seed(0)
with amp.autocast():
    nvtx.range_push("forward")
if torch.cuda.is_available():
    print(torch.cuda.get_arch_list())
graph = torch.cuda.CUDAGraph()
torch.cuda.nvtx.range_pop()
