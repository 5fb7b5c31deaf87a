"""Which `torch.cuda` names torch_npu offers as `torch.npu` names, per release."""
from __future__ import annotations

import functools

from . import release_data, torch_model

CUDA = "torch.cuda"
NPU = "torch.npu"


def is_cuda_name(qname: str) -> bool:
    return qname == CUDA or qname.startswith(CUDA + ".")


@functools.lru_cache(maxsize=4096)
def npu_equivalent(qname: str, release: str) -> str | None:
    """`torch.npu...` for a `torch.cuda...` name, or None when torch_npu lacks it."""
    parts = qname.split(".")[2:]
    if not parts:
        return NPU
    facts = release_data.facts(release)
    first = parts[0]
    if torch_model.has_module(f"{CUDA}.{first}"):
        names = facts.npu_submodules.get(first)
        if names is None:
            return None
        if len(parts) > 1 and parts[1] not in names:
            return None
    elif first not in facts.npu_all:
        return None
    return ".".join([NPU, *parts])


def first_release_with_equivalent(qname: str) -> str | None:
    """The oldest supported release that has an NPU equivalent for qname."""
    for release in release_data.releases():
        if npu_equivalent(qname, release) is not None:
            return release
    return None
