#!/usr/bin/env python
"""Train a small classifier with mixed precision."""
from __future__ import annotations

import argparse

import torch_npu
from torch.amp import GradScaler, autocast
import torch
import torch.nn as nn


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.1)
    args = parser.parse_args()
    model = nn.Linear(8, 2).npu()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    scaler = GradScaler("npu")
    with autocast("npu"):
        loss = model(torch.randn(4, 8).npu()).sum()
    scaler.scale(loss).backward()
    scaler.step(optimizer)


if __name__ == "__main__":
    main()
