# args: --unsafe-fixes
# Tables per device type (transformers 5's and timm 1.0's backend maps, diffusers' training
# flags): the NPU's entry goes beside CUDA's instead of replacing it, so the table serves both,
# and CUDA's key and the backend it names are one port.
DISTRIBUTED_BACKEND_MAP = {
    "cuda": "nccl",
    "npu": "hccl",
    "cpu": "gloo",
    "xpu": "xccl",
}
BACKEND_SUPPORTS_TRAINING = {"cuda": True, "npu": True, "xpu": True, "cpu": True, "mps": False}
# CUDA's value names CUDA (transformers 5's graph classes): the NPU's is for the port to say.
DEVICE_TYPE_TO_GRAPH_NAME = {"cuda": "CUDAGraph", "xpu": "XPUGraph"}


def distributed_backend(device_type: str) -> str:
    return DISTRIBUTED_BACKEND_MAP.get(device_type, "gloo")
