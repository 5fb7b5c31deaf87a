#!/usr/bin/env python
"""Train a small classifier with mixed precision."""
from __future__ import annotations

import argparse

from torch.cuda.amp import GradScaler, autocast
import torch
import torch.nn as nn


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.1)
    args = parser.parse_args()
    model = nn.Linear(8, 2).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    scaler = GradScaler()
    with autocast():
        loss = model(torch.randn(4, 8).cuda()).sum()
    scaler.scale(loss).backward()
    scaler.step(optimizer)


if __name__ == "__main__":
    main()
