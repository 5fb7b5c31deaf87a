import torch.distributed as dist
import torch_npu

dist.init_process_group("hccl", init_method="env://")
group = dist.new_group(backend="cpu:gloo,npu:hccl")
group = dist.new_group(backend="hccl")
if dist.is_hccl_available():
    backend = dist.Backend.HCCL
