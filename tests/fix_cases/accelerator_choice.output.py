# args: --unsafe-fixes
# neuralforecast common/_base_model.py: the test picks Lightning's CUDA accelerator name, which
# has no NPU spelling; fixing the test alone would pick "gpu" on the NPU, where the program ran
# on the CPU before.
import lightning as L
import torch


def trainer_kwargs_for(trainer_kwargs):
    if trainer_kwargs.get("accelerator", None) is None:
        if torch.cuda.is_available():
            trainer_kwargs["accelerator"] = "gpu"
    return L.Trainer(**trainer_kwargs)
