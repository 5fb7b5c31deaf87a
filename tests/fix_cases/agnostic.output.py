# args: --strategy agnostic
import os

import torch
import torch.distributed as dist
from torch.amp import GradScaler, autocast

local_rank = int(os.environ.get("LOCAL_RANK", 0))
if torch.accelerator.is_available() and torch.accelerator.device_count() > 1:
    dist.init_process_group(backend=torch.distributed.get_default_backend_for_device(torch.accelerator.current_accelerator()))
    torch.accelerator.set_device_index(local_rank)
device = torch.device(f"{torch.accelerator.current_accelerator().type}:{local_rank}" if torch.accelerator.is_available() else "cpu")
scaler = GradScaler(torch.accelerator.current_accelerator().type, enabled=True)


def step(model, images, labels, optimizer):
    images = images.cuda(non_blocking=True)
    labels = labels.cuda(local_rank)  # names its own device: no neutral form, reported
    with autocast(torch.accelerator.current_accelerator().type, dtype=torch.float16):
        loss = torch.nn.functional.cross_entropy(model(images), labels)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    torch.accelerator.synchronize()
    return loss.item(), torch.accelerator.max_memory_allocated() / 2**20, torch.accelerator.current_device_index()


def load(path):
    model = torch.nn.Linear(4, 2).to(torch.accelerator.current_accelerator())
    model.load_state_dict(torch.load(path, map_location=f"{torch.accelerator.current_accelerator().type}:0"))
    start = torch.cuda.Event(enable_timing=True)  # no neutral form here: reported, not rewritten
    return model, start, images_on_gpu(model)


def images_on_gpu(model):
    return next(model.parameters()).is_cuda


def supports_bf16_collectives():
    # The test keeps torch.cuda.nccl.version() off the NPU: renamed alone it would let it run.
    return torch.cuda.is_available() and torch.cuda.nccl.version() >= (2, 10)
