"""Environment report, after transformers' commands/env.py: torch is optional, imported where used."""
from .utils import is_torch_available


def torch_info():
    info = {"version": "NA", "accelerator": "NA"}
    if is_torch_available():
        import torch

        info["version"] = torch.__version__
        info["accelerator"] = torch.cuda.is_available()
    return info


def device_count():
    import torch

    return torch.cuda.device_count()
