# args: --unsafe-fixes
import torch
import torch_npu


# xformers' fmha operators: the device test keeps other devices off a compute-capability check,
# which has no fix; renamed alone, "npu" would send the NPU into torch.cuda.
def minimum_gemm_alignment(inp):
    if inp.device.type != "cuda":
        return 1
    cap = torch.cuda.get_device_capability(inp.device)
    return 8 if cap[0] >= 8 else 4


def head_dim_supported(d):
    if d.device.type == "cuda":
        device_capability = torch.cuda.get_device_capability(d.device)
        return device_capability in [(8, 0), (9, 0)]
    return True


# Near miss: the test keeps other devices off a call that has a fix, and both are renamed.
def memory_of(x):
    if x.device.type == "npu":
        return torch.npu.memory_allocated(x.device)
    return 0
