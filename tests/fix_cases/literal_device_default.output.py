# args: --unsafe-fixes
"""A device type a config declares as a Literal (nerfstudio 1.1.5 configs/base_config.py,
scripts/train.py): the default's new value becomes the Literal's member too, or tyro and pydantic
reject the default."""
import dataclasses
from typing import Literal, Optional

import torch
import torch_npu


@dataclasses.dataclass
class MachineConfig:
    device_type: Literal["cpu", "npu", "mps"] = "npu"
    fallback: Optional[Literal["npu", "cpu"]] = "npu"
    already_both: Literal["cuda", "npu"] = "npu"


def launch(main_func, device_type: Literal["cpu", "npu", "mps"] = "npu", *, only: Literal["npu"] = "npu"):
    if device_type == "npu":
        torch.npu.set_device(0)
    return main_func, only
