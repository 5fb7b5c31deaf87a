# args: --unsafe-fixes
# A device choice that also asks for a CUDA build (NPU182, whisperspeech's inference.py): the fix
# drops the build test, and the next pass ports the device test and the device it picks.
import torch
import torch_npu


def get_default_compute_device():
    if torch.npu.is_available():
        return "npu"
    elif torch.backends.mps.is_available():
        return "mps"
    else:
        return "cpu"


def device_for_inference():
    if torch.cuda.is_available() and torch.version.hip:
        device = torch.device("cuda:0")
    elif torch.npu.is_available():
        device = torch.device("npu:0")
    else:
        device = torch.device("cpu")
    return device


def first_operand(rank):
    return f"npu:{rank}" if torch.npu.is_available() else "cpu"
