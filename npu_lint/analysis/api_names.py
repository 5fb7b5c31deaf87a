"""The spelling of torch API names in the rule data, shared by the checks and the prefilter."""
from __future__ import annotations

TENSOR = "torch.Tensor."


def normalize_api(qname: str) -> str:
    """The spelling the data uses: `torch.nn.modules.loss.HuberLoss` is `torch.nn.HuberLoss`."""
    if qname.startswith("torch.nn.modules."):
        return "torch.nn." + qname.rsplit(".", 1)[-1]
    if qname.startswith("torch.functional."):
        return "torch." + qname[len("torch.functional."):]
    if qname.startswith("torch._tensor.Tensor."):
        return TENSOR + qname[len("torch._tensor.Tensor."):]
    return qname
