import torch.distributed as dist

dist.init_process_group("nccl", init_method="env://")
group = dist.new_group(backend="cpu:gloo,cuda:nccl")
group = dist.new_group(backend="nccl")
if dist.is_nccl_available():
    backend = dist.Backend.NCCL
