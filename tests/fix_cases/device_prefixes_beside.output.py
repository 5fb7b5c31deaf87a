# args: --unsafe-fixes
# InvokeAI's session events: the tuple of prefixes a device string is tested against lists
# alternatives, as `device.type in ("cuda", "xpu")` does; the NPU joins them, CUDA stays.
import torch
import torch_npu


def queue_item_device(device: str):
    return device if device.startswith(("cuda", "npu", "xpu")) else None


def session_device_index(device: torch.device):
    return device.index if device.type in ("cuda", "npu", "xpu") else None


# FunASR's tests of its server's defaults: a tuple compared for equality holds one value per
# position, so "npu" takes CUDA's place there rather than joining it.
def check_defaults(default):
    assert (default.host, default.port, default.device) == ("0.0.0.0", 8000, "npu")
