# args: --unsafe-fixes
# mmcls 0.x's tools/visualizations/vis_cam.py: the CUDA switch handed by position to the project's
# own function, which builds a pytorch-grad-cam class picked from a table with `use_cuda=`. On an
# Ascend host the test says no and grad-cam runs on the CPU; "npu" would turn its .cuda() path on.
import torch
import torch_npu
from pytorch_grad_cam import GradCAM, LayerCAM

METHOD_MAP = {"gradcam": GradCAM, "layercam": LayerCAM}


def init_cam(method, model, target_layers, use_cuda):
    cam_class = METHOD_MAP[method.lower()]
    return cam_class(model=model, target_layers=target_layers, use_cuda=use_cuda)


def main(args, model, target_layers):
    use_cuda = ("cuda" in args.device)
    cam = init_cam(args.method, model, target_layers, use_cuda)
    return cam, own_cam(args, model)


# Near miss: the project's own function reads the switch and moves the model itself.
def move(model, use_cuda):
    return model.npu() if use_cuda else model


def own_cam(args, model):
    use_cuda = ("npu" in args.device)
    return move(model, use_cuda)
