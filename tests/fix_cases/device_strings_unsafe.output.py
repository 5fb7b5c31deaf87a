# args: --unsafe-fixes
import argparse

import torch
import torch_npu

rank = 0
parser = argparse.ArgumentParser()
parser.add_argument("--device", default="npu", help="cuda or cpu")
device = torch.device("npu")
other = torch.device(f"npu:{rank}")
x = torch.zeros(2, device="npu:0").to('npu')
if device.type == "npu":
    pass
if device.type not in ['cpu', 'cuda', 'npu', "xla"]:
    raise ValueError(device)
if str(device).startswith("npu:"):
    x = x.to("npu:" + str(rank + 1))
fabric_kwargs = {"accelerator": "cuda", "devices": 1}
