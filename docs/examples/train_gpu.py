"""A typical single- and multi-GPU training script, written for CUDA.

npu-lint's README runs `npu-lint check` on this file; every pattern here is
one that Ascend's manual migration changes.
"""
import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.cuda.amp import GradScaler, autocast
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


def parse_args():
    parser = argparse.ArgumentParser(description="Train a small CNN")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--device", default="cuda", help="device to train on")
    parser.add_argument("--dist-backend", default="nccl", help="communication backend")
    parser.add_argument("--amp", action="store_true", help="use mixed precision")
    parser.add_argument("--local_rank", type=int, default=int(os.environ.get("LOCAL_RANK", 0)))
    return parser.parse_args()


class RandomImages(Dataset):
    def __init__(self, size=512):
        self.size = size

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        image = torch.randn(3, 32, 32)
        label = torch.randint(0, 10, (1,)).item()
        return image, label


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 8 * 8, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(torch.flatten(x, 1))


class Timer:
    """Not torch's: a class of our own that happens to have a cuda() method."""

    def __init__(self):
        self.start = time.time()

    def cuda(self):
        return self

    def elapsed(self):
        return time.time() - self.start


def setup_distributed(args):
    distributed = int(os.environ.get("WORLD_SIZE", 1)) > 1
    if distributed:
        dist.init_process_group(backend=args.dist_backend)
        torch.cuda.set_device(args.local_rank)
    return distributed


def train_one_epoch(model, loader, criterion, optimizer, scaler, device, use_amp):
    model.train()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for images, labels in loader:
        images = images.cuda(non_blocking=True)
        labels = labels.to(device)
        optimizer.zero_grad()
        with autocast(enabled=use_amp):
            loss = criterion(model(images), labels)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end)


def main():
    args = parse_args()
    torch.backends.cudnn.benchmark = True
    distributed = setup_distributed(args)
    device = torch.device(f"cuda:{args.local_rank}" if torch.cuda.is_available() else "cpu")

    dataset = RandomImages()
    sampler = DistributedSampler(dataset) if distributed else None
    loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler, pin_memory=True)

    model = Net().cuda()
    if distributed:
        model = DDP(model, device_ids=[args.local_rank])
    elif torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    criterion = nn.CrossEntropyLoss().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    scaler = GradScaler(enabled=args.amp)
    timer = Timer().cuda()

    for epoch in range(args.epochs):
        if sampler is not None:
            sampler.set_epoch(epoch)
        ms = train_one_epoch(model, loader, criterion, optimizer, scaler, device, args.amp)
        peak = torch.cuda.max_memory_allocated() / 2**20
        print(f"epoch {epoch}: {ms:.0f} ms, peak memory {peak:.0f} MiB, {timer.elapsed():.1f} s")

    if not distributed or dist.get_rank() == 0:
        torch.save(model.state_dict(), "model.pt")
    state = torch.load("model.pt", map_location="cuda")
    print(len(state), "tensors saved")


if __name__ == "__main__":
    main()
