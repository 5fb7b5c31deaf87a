# args: --unsafe-fixes
# Device tests that pick a project's own CUDA kernel stay as they are (mmcv's bias_act.py,
# transformers' YOSO); an argument of a torch.cuda call ported by hand is renamed with it or
# not at all, and so is a loop over the CUDA devices around it (bitsandbytes' cuda_setup/main.py).
import torch
from torch.utils.cpp_extension import load


def bias_act(x, b, use_custom_op=True):
    if use_custom_op and x.is_cuda:
        return _bias_act_cuda().apply(x, b)
    return _bias_act_ref(x, b)


def _bias_act_ref(x, b):
    return x + b


def _bias_act_cuda():
    return ext_module.bias_act


def load_kernels(src_files):
    global lsh
    load("fast_lsh", src_files + ["lsh.cu"])
    import fast_lsh as lsh


def cumulate(query, value):
    use_cuda = query.is_cuda
    return lsh.lsh_cumulation(query, value, use_cuda, 1)


def get_compute_capabilities():
    ccs = []
    for i in range(torch.cuda.device_count()):
        cc_major, cc_minor = torch.cuda.get_device_capability(torch.cuda.device(i))
        ccs.append(f"{cc_major}.{cc_minor}")
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    return ccs, props


def to_device(x):
    return x.cuda() if x.is_cuda else x
