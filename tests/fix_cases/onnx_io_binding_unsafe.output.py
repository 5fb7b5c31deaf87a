# args: --unsafe-fixes
# mmcls 0.x's core/export/test.py (as mmdet 2.x's and mmseg 0.x's ONNX Runtime wrappers): the
# device type an IOBinding reads is ONNX Runtime's name, which knows no "npu" (the CANN provider's
# is "cann"); the provider is what the port changes, by hand here: the branch that adds it is
# taken where `get_device()` answers "GPU", which only a CUDA build does. The tensor is ported.
import onnxruntime as ort
import torch
import torch_npu


class RuntimeClassifier:
    def __init__(self, onnx_file, device_id):
        self.sess = ort.InferenceSession(onnx_file)
        providers = ["CPUExecutionProvider"]
        self.is_cuda_available = ort.get_device() == "GPU"
        if self.is_cuda_available:
            providers.insert(0, "CUDAExecutionProvider")
        self.sess.set_providers(providers)
        self.io_binding = self.sess.io_binding()
        self.device_id = device_id

    def forward(self, imgs):
        device_type = "cuda" if self.is_cuda_available else "cpu"
        input_data = imgs.to("npu")
        self.io_binding.bind_input(name="input", device_type=device_type, device_id=self.device_id,
                                   element_type=None, shape=input_data.shape, buffer_ptr=input_data.data_ptr())
        self.io_binding.bind_output("probs")
        self.sess.run_with_iobinding(self.io_binding)
        return torch.from_numpy(self.io_binding.copy_outputs_to_cpu()[0])


# Near miss: a branch the program's own switch decides is ported.
def session(onnx_file, use_gpu):
    providers = ["CPUExecutionProvider"]
    if use_gpu:
        providers.insert(0, "CANNExecutionProvider")
    return ort.InferenceSession(onnx_file, providers=providers)
