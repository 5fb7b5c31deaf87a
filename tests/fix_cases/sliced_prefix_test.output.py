# args: --unsafe-fixes
# ManiSkill's envs/utils/system/backend.py tests a backend's prefix with a slice as long as
# "cuda": the slice takes the length of "npu" with it, or the test never holds.
import torch
import torch_npu


def parse_backend(sim_backend, sim_device_id):
    if sim_backend[:3] == "npu":
        device_str = f"npu:{sim_device_id}" if sim_device_id is not None else "npu"
        return torch.device(device_str)
    return torch.device("cpu")
