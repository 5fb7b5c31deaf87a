# args: --unsafe-fixes
# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""Modules that never import torch get no `import torch_npu`: they hand names and objects to
modules that do, and torch_npu belongs with that torch. After deepspeed's comm/constants.py and a
fairseq-style helper that moves what it is given."""
import logging

logger = logging.getLogger(__name__)

NCCL_BACKEND = 'nccl'


def move_to_device(sample, use_gpu=True):
    if use_gpu:
        sample = sample.cuda()
    return sample
