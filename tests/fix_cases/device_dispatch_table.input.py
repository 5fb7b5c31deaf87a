# args: --unsafe-fixes
# transformers' and diffusers' testing_utils: a table of backend functions looked up by device
# type. The key and its torch.cuda value are one port: renamed alone, the NPU's "npu" would find no
# entry. So a safe run leaves the entry, and an unsafe one adds the NPU's entry beside CUDA's, on
# the same line or, for an entry on a line of its own, on the next.
import torch

BACKEND_EMPTY_CACHE = {"cuda": torch.cuda.empty_cache, "cpu": None, "default": None}
BACKEND_DEVICE_COUNT = {"cuda": torch.cuda.device_count, "cpu": lambda: 0, "default": lambda: 1}
BACKEND_MANUAL_SEED = {
    "cuda": torch.cuda.manual_seed,
    "cpu": torch.manual_seed,
    "default": torch.manual_seed,
}


def backend_empty_cache(device: str):
    function = BACKEND_EMPTY_CACHE.get(device, BACKEND_EMPTY_CACHE["default"])
    if function is not None:
        function()
