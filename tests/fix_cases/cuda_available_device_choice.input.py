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

# The same for the backend such a test picks: "nccl" on the NPU, where gloo ran before.
backend = "nccl" if torch.cuda.is_available() else "gloo"
if torch.cuda.is_available():
    fallback_backend = "nccl"
else:
    fallback_backend = "gloo"
# ... and for a longer test (transformers' examples), where the device is part of the test's port.
chosen = torch.device("cuda" if torch.cuda.is_available() and not DEFAULT_DEVICE == "cpu" else "cpu")
