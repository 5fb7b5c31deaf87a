# args: --unsafe-fixes --select NPU404
import onnxruntime


# flair 0.15.1's embeddings/transformer.py: the CUDA provider with options only it takes. Renamed
# alone, the CANN provider would get options it rejects, and the session would not start.
def export_session(path, on_gpu):
    if on_gpu:
        providers = [
            (
                "CUDAExecutionProvider",
                {
                    "device_id": 0,
                    "arena_extend_strategy": "kNextPowerOfTwo",
                    "gpu_mem_limit": 4 * 1024 * 1024 * 1024,
                    "cudnn_conv_algo_search": "EXHAUSTIVE",
                },
            ),
            "CPUExecutionProvider",
        ]
    else:
        providers = ["CPUExecutionProvider"]
    return onnxruntime.InferenceSession(path, providers=providers)


# Near miss: options the CANN provider takes too.
def plain_session(path):
    return onnxruntime.InferenceSession(path, providers=[("CUDAExecutionProvider", {"device_id": 0})])


# rembg 2.0's sessions/base.py: the provider is tested beside `get_device() == "GPU"`, which only a
# CUDA or ROCm build answers, so the renamed provider alone would pick a branch no NPU takes; the
# provider that branch returns keeps its name too, its fix only shown: no NPU reaches it before the
# test changes.
def session_providers(ort):
    device_type = onnxruntime.get_device()
    if device_type == "GPU" and "CUDAExecutionProvider" in onnxruntime.get_available_providers():
        return ["CUDAExecutionProvider", "CPUExecutionProvider"]
    return ["CPUExecutionProvider"]
