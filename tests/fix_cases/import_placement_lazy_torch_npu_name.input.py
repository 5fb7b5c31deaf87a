# args: --select NPU510 --unsafe-fixes
# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0

# DeepSpeed Team: torch loads lazily, when training starts. The fix writes the name `torch_npu`,
# so it is imported where torch is, not at the top above this header.
def make_optimizer(params):
    import torch

    return torch.optim.AdamW(params, lr=1e-3)
