# args: --unsafe-fixes
# TotalSegmentator's python_api.py takes the device index after `startswith("cuda")` with
# `device[5:]`: renamed alone to "npu", the cut eats the index (`int("")` stops, "npu:12" is 2),
# so it takes the new prefix's length with the rename.
import torch
import torch_npu


def select_device(device):
    if device.startswith("npu"):
        if not torch.npu.is_available():
            return "cpu"
        device_id = int(device[4:])
        return torch.device(device) if device_id < torch.npu.device_count() else "cpu"
    return device


def device_index(device):
    if not device.startswith("npu:"):
        raise ValueError(device)
    return int(device[4:])


def checked_index(device):
    return int(device[4:]) if device.startswith("npu:") and device[4:].isdigit() else 0


def kept_cuts(device, label):
    # another string's cut, a cut short of the prefix's end and one outside the test stay
    if device.startswith("npu:"):
        label = label[5:] + device[2:]
    return label + device[5:]
