# args: --unsafe-fixes
"""After diffusers' utils/torch_utils.py: torch is optional, and one torch feature has a fallback.
`import torch_npu` belongs with `import torch`: inside the feature's `try:` a missing torch_npu
would silently turn `maybe_allow_in_graph` into the fallback."""
import importlib.util

if importlib.util.find_spec("torch") is not None:
    import torch
    import torch_npu

try:
    from torch._dynamo import allow_in_graph as maybe_allow_in_graph
except (ImportError, ModuleNotFoundError):

    def maybe_allow_in_graph(cls):
        return cls


def empty_cache():
    torch.npu.empty_cache()
