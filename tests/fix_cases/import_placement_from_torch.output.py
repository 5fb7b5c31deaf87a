# args: --unsafe-fixes
from torch import nn, optim
import torch_npu
from torch.utils.data import DataLoader

DEVICE = "npu"


def train(model: nn.Module, loader: DataLoader) -> None:
    model.to(DEVICE)
    opt = optim.AdamW(model.parameters())
    for x, y in loader:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x.to(DEVICE)), y.to(DEVICE))
        loss.backward()
        opt.step()
