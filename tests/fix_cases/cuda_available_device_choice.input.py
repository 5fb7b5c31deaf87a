import torch

# The test and the device it picks are one port; renamed alone, the test would pick "cuda" on the
# NPU. A safe fix run leaves both while the device string's fix is unsafe.
DEFAULT_DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
if torch.cuda.is_available():
    fallback = "cuda"
else:
    fallback = "cpu"
accelerator = "gpu" if torch.cuda.is_available() else "cpu"
n = torch.cuda.device_count() if torch.cuda.is_available() else 0
