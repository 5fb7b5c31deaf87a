import torch
import torch_npu


def split_params(params):
    fp16, fp32 = [], []
    for param in params:
        if param.type() in ["torch.cuda.HalfTensor", "torch.npu.HalfTensor", "torch.cuda.BFloat16Tensor", "torch.npu.BFloat16Tensor"]:
            fp16.append(param)
        elif param.type() == "torch.npu.FloatTensor":
            fp32.append(param)
        else:
            raise TypeError(f"{param.type()} is not torch.cuda.FloatTensor")
    return fp16, fp32
