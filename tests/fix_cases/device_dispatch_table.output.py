# args: --unsafe-fixes
# transformers' and diffusers' testing_utils: a table of backend functions looked up by device
# type. The key and its torch.cuda value are one port: renamed alone, the NPU's "npu" would find no
# entry. So a safe run leaves the entry, and an unsafe one renames both.
import torch
import torch_npu

BACKEND_EMPTY_CACHE = {"npu": torch.npu.empty_cache, "cpu": None, "default": None}
BACKEND_DEVICE_COUNT = {"npu": torch.npu.device_count, "cpu": lambda: 0, "default": lambda: 1}


def backend_empty_cache(device: str):
    function = BACKEND_EMPTY_CACHE.get(device, BACKEND_EMPTY_CACHE["default"])
    if function is not None:
        function()
