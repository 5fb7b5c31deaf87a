# args: --unsafe-fixes
import torch.distributed as dist

# The backend a test picks is part of the test's port (ultralytics' engine/trainer.py, ColossalAI's
# pipeline_process_group.py): renamed alone, the test would pick NCCL on the NPU, or the backend
# would be HCCL on a CUDA device.
dist.init_process_group(backend="nccl" if dist.is_nccl_available() else "gloo")


def backend_of(device):
    return "nccl" if device == "cuda" else "gloo"
