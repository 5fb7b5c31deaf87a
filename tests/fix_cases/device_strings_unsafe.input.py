# args: --unsafe-fixes
import argparse

import torch

rank = 0
parser = argparse.ArgumentParser()
parser.add_argument("--device", default="cuda", help="cuda or cpu")
device = torch.device("cuda")
other = torch.device(f"cuda:{rank}")
x = torch.zeros(2, device="cuda:0").to('cuda')
if device.type == "cuda":
    pass
if device.type not in ['cpu', 'cuda', "xla"]:
    raise ValueError(device)
if str(device).startswith("cuda:"):
    x = x.to("cuda:" + str(rank + 1))
fabric_kwargs = {"accelerator": "cuda", "devices": 1}
