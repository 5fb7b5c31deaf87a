# args: --unsafe-fixes
"""A fairseq-style helper that moves what it is given without importing torch itself."""
import logging

logger = logging.getLogger(__name__)


def move_to_device(sample, use_gpu=True):
    if use_gpu:
        sample = sample.cuda()
    return sample
