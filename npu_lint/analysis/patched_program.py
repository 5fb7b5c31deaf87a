"""Does a program run under transfer_to_npu? Its entry module imports the patch, or sets the
environment switch that turns it on, or uses CUDA, where the auto route adds the patch (NPU190).

An entry module that does none of these (a dataset converter, `print_config.py`) runs unpatched:
the libraries it imports see the real `torch.cuda.is_available()`, so what NPU191 says of them
after the patch does not hold there.
"""
from __future__ import annotations

from typing import Iterator

from astroid import nodes

from npu_lint.analysis.cuda_library_guards import guards_cuda_library

ENVIRONMENT_SWITCH = "TORCH_TRANSFER_TO_NPU"
TRANSFER_MODULE = "torch_npu.contrib.transfer_to_npu"


def imports_transfer_to_npu(scope: nodes.NodeNG, own_only: bool = False) -> bool:
    """Does `scope` import torch_npu's transfer_to_npu patch (anywhere in it, or with `own_only`
    in its own body, not in a function it defines)?"""
    for node in scope.nodes_of_class((nodes.Import, nodes.ImportFrom)):
        if own_only and node.scope() is not scope:
            continue
        if isinstance(node, nodes.ImportFrom):
            names = [f"{node.modname}.{name}" for name, _ in node.names]
        else:
            names = [name for name, _ in node.names]
        if any(name.startswith(TRANSFER_MODULE) for name in names):
            return True
    return False


def switches_patch_on(module: nodes.Module, text: str) -> bool:
    """Is the patch already there: imported, or asked for through its environment switch?"""
    return ENVIRONMENT_SWITCH in text or imports_transfer_to_npu(module)


def runs_patched(module: nodes.Module, text: str) -> bool:
    """Does this entry module run under the patch, as it is or once NPU190's fix is applied?"""
    return switches_patch_on(module, text) or next(cuda_uses(module), None) is not None


def cuda_uses(module: nodes.Module) -> Iterator[nodes.NodeNG]:
    """The module's uses of CUDA, in order (a `.cuda`/`.is_cuda` attribute, a "cuda..."/"nccl"
    string), but not a test guarding a CUDA-only library."""
    for node in module.nodes_of_class((nodes.Attribute, nodes.Const)):
        if isinstance(node, nodes.Attribute) and node.attrname in ("cuda", "is_cuda"):
            if not guards_cuda_library(_chain_top(node)):
                yield node
        elif isinstance(node, nodes.Const) and isinstance(node.value, str) and node.value.startswith(("cuda", "nccl")):
            if not guards_cuda_library(node):
                yield node


def _chain_top(node: nodes.Attribute) -> nodes.NodeNG:
    """`torch.cuda.is_available` for its `torch.cuda`: the name a test asks."""
    while isinstance(node.parent, nodes.Attribute) and node.parent.expr is node:
        node = node.parent
    return node
