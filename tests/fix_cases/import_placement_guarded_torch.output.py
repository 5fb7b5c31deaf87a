# args: --unsafe-fixes
# Copyright (c) Microsoft Corporation.
# SPDX-License-Identifier: Apache-2.0
"""After deepspeed's accelerator/cuda_accelerator.py: torch is optional, so torch_npu must be too."""
import os

# During setup stage torch may not be installed, pass on no torch will
# allow op builder related API to be executed.
try:
    import torch_npu
    import torch.cuda
except ImportError:
    pass


class CudaAccelerator:
    def device_count(self):
        return torch.npu.device_count()

    def visible_devices_envs(self):
        return os.environ.get("ASCEND_RT_VISIBLE_DEVICES")
