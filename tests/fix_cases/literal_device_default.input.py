# args: --unsafe-fixes
"""A device type a config declares as a Literal (nerfstudio 1.1.5 configs/base_config.py,
scripts/train.py): the default's new value becomes the Literal's member too, or tyro and pydantic
reject the default."""
import dataclasses
from typing import Literal, Optional

import torch


@dataclasses.dataclass
class MachineConfig:
    device_type: Literal["cpu", "cuda", "mps"] = "cuda"
    fallback: Optional[Literal["cuda", "cpu"]] = "cuda"
    already_both: Literal["cuda", "npu"] = "cuda"


def launch(main_func, device_type: Literal["cpu", "cuda", "mps"] = "cuda", *, only: Literal["cuda"] = "cuda"):
    if device_type == "cuda":
        torch.cuda.set_device(0)
    return main_func, only
