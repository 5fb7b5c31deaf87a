# A compute-capability check read from the device properties is shown, never rewritten: on the NPU
# `major` and `minor` are None (or missing), so the renamed check would fail (denoising-diffusion-
# pytorch attend.py, transformers utils/import_utils.py, coqui-TTS perceiver_encoder.py). So is a
# torch.cuda argument of it (`torch.cuda.current_device()`): renamed alone, the line would be half ported.
import torch
from packaging import version

if not torch.cuda.is_available() or torch.cuda.get_device_properties(0).major < 8:
    flash = False


def flash_config():
    device_properties = torch.cuda.get_device_properties(torch.device("cuda"))
    return version.parse(f"{device_properties.major}.{device_properties.minor}")


def is_a100():
    dprops = torch.cuda.get_device_properties(torch.cuda.current_device())
    return dprops.major == 8 and dprops.minor == 0


# The streaming-multiprocessor count is left empty the same way (unsloth models/_utils.py,
# torchtitan deepep.py).
def is_big_gpu(index):
    sms = torch.cuda.get_device_properties(index).multi_processor_count
    return sms >= 80


# Near misses: the fields the NPU fills (name, total_memory) keep their fix.
total = torch.cuda.get_device_properties(0).total_memory
props = torch.cuda.get_device_properties(0)
print(props.name, props.total_memory)


def other_scope():
    major = 8
    props = torch.cuda.get_device_properties(0)
    return props.total_memory, major
