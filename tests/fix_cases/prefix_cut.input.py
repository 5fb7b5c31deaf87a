# args: --unsafe-fixes
# TotalSegmentator's python_api.py takes the device index after `startswith("cuda")` with
# `device[5:]`: renamed alone to "npu", the cut eats the index (`int("")` stops, "npu:12" is 2),
# so it takes the new prefix's length with the rename.
import torch


def select_device(device):
    if device.startswith("cuda"):
        if not torch.cuda.is_available():
            return "cpu"
        device_id = int(device[5:])
        return torch.device(device) if device_id < torch.cuda.device_count() else "cpu"
    return device


def device_index(device):
    if not device.startswith("cuda:"):
        raise ValueError(device)
    return int(device[5:])


def checked_index(device):
    return int(device[5:]) if device.startswith("cuda:") and device[5:].isdigit() else 0


def kept_cuts(device, label):
    # another string's cut, a cut short of the prefix's end and one outside the test stay
    if device.startswith("cuda:"):
        label = label[5:] + device[2:]
    return label + device[5:]
