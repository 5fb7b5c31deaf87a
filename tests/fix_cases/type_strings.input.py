import torch


def split_params(params):
    fp16, fp32 = [], []
    for param in params:
        if param.type() in ["torch.cuda.HalfTensor", "torch.cuda.BFloat16Tensor"]:
            fp16.append(param)
        elif param.type() == "torch.cuda.FloatTensor":
            fp32.append(param)
        else:
            raise TypeError(f"{param.type()} is not torch.cuda.FloatTensor")
    return fp16, fp32
