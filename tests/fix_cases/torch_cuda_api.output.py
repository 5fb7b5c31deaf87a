import torch
import torch_npu
import torch as t
from torch import npu as cuda
from torch.npu import amp
from torch.cuda import nvtx

torch.npu.synchronize()
t.npu.empty_cache()
cuda.manual_seed(0)
with amp.autocast():
    nvtx.range_push("forward")
if torch.cuda.is_available():
    print(torch.cuda.get_arch_list())
graph = torch.npu.NPUGraph()
torch.npu.mstx.range_pop()
