# args: --unsafe-fixes
# ManiSkill's envs/utils/system/backend.py tests a backend's prefix with a slice as long as
# "cuda": the slice takes the length of "npu" with it, or the test never holds.
import torch


def parse_backend(sim_backend, sim_device_id):
    if sim_backend[:4] == "cuda":
        device_str = f"cuda:{sim_device_id}" if sim_device_id is not None else "cuda"
        return torch.device(device_str)
    return torch.device("cpu")
