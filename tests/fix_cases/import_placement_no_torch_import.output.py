# args: --unsafe-fixes
"""A fairseq-style helper that moves what it is given without importing torch itself."""
import torch_npu
import logging

logger = logging.getLogger(__name__)


def move_to_device(sample, use_gpu=True):
    if use_gpu:
        sample = sample.npu()
    return sample
