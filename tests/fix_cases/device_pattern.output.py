# args: --unsafe-fixes
# InvokeAI's generation_devices validator: the NPU joins the devices the pattern accepts, with
# CUDA's index suffix.
import re


def validate_generation_devices(devices):
    pattern = re.compile(r"^(cpu|mps|xpu(:\d+)?|cuda(:\d+)?|npu(:\d+)?)$")
    return [device for device in devices if pattern.match(device)]
