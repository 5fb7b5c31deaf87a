# args: --unsafe-fixes
import torch.distributed as dist
import torch_npu

# The backend a test picks is part of the test's port (ultralytics' engine/trainer.py, ColossalAI's
# pipeline_process_group.py): renamed alone, the test would pick NCCL on the NPU, or the backend
# would be HCCL on a CUDA device.
dist.init_process_group(backend="hccl" if dist.is_hccl_available() else "gloo")


def backend_of(device):
    return "hccl" if device == "npu" else "gloo"
