# args: --strategy auto
"""A hydra-style entry script that imports torch only where the job runs (diffq's examples/cifar)."""
import logging

logger = logging.getLogger(__name__)


def run(args):
    import torch
    import torch.nn as nn

    model = nn.Linear(4, 2)
    if torch.cuda.is_available():
        model.cuda()
    return model


if __name__ == "__main__":
    run(None)
