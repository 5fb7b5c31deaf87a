# args: --strategy agnostic
import os

import torch
import torch.distributed as dist
from torch.cuda.amp import GradScaler, autocast

local_rank = int(os.environ.get("LOCAL_RANK", 0))
if torch.cuda.is_available() and torch.cuda.device_count() > 1:
    dist.init_process_group(backend="nccl")
    torch.cuda.set_device(local_rank)
device = torch.device(f"cuda:{local_rank}" if torch.cuda.is_available() else "cpu")
scaler = GradScaler(enabled=True)


def step(model, images, labels, optimizer):
    images = images.cuda(non_blocking=True)
    labels = labels.cuda(local_rank)  # names its own device: no neutral form, reported
    with autocast(dtype=torch.float16):
        loss = torch.nn.functional.cross_entropy(model(images), labels)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    torch.cuda.synchronize()
    return loss.item(), torch.cuda.max_memory_allocated() / 2**20, torch.cuda.current_device()


def load(path):
    model = torch.nn.Linear(4, 2).cuda()
    model.load_state_dict(torch.load(path, map_location="cuda:0"))
    start = torch.cuda.Event(enable_timing=True)  # no neutral form here: reported, not rewritten
    return model, start, images_on_gpu(model)


def images_on_gpu(model):
    return next(model.parameters()).is_cuda


def supports_bf16_collectives():
    # The test keeps torch.cuda.nccl.version() off the NPU: renamed alone it would let it run.
    return torch.cuda.is_available() and torch.cuda.nccl.version() >= (2, 10)
