# args: --unsafe-fixes
import torch
import torch_npu

# The test and the device it picks are one port; renamed alone, the test would pick "cuda" on the
# NPU. A safe fix run leaves both while the device string's fix is unsafe.
DEFAULT_DEVICE = "npu" if torch.npu.is_available() else "cpu"
device = torch.device("npu" if torch.npu.is_available() else "cpu")
if torch.npu.is_available():
    fallback = "npu"
else:
    fallback = "cpu"
accelerator = "gpu" if torch.cuda.is_available() else "cpu"
n = torch.npu.device_count() if torch.npu.is_available() else 0
