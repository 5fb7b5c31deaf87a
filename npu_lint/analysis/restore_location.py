"""A checkpoint's load place that a CUDA test picks between the saved place and the host.

    torch.load(path, map_location=None if torch.cuda.is_available() else "cpu")
    map_location = "cpu" if not torch.cuda.is_available() else None   (big-sleep's BigGAN loader)

`None` restores each tensor where it was saved. On a GPU host that was the GPU the test found; on
an NPU host, once the test asks `torch.npu`, it would be CUDA, which the NPU host has not:
torch.load raises for a checkpoint saved from CUDA tensors (torch_npu's load remaps only its own
and the CPU's). Unported, the test said False there and the host got everything, which worked. So
the port of the test is the port of its `None` too: "npu", the device the test now finds.
"""
from __future__ import annotations

from astroid import nodes

MAP_LOCATION = "map_location"


def restored_where_saved(test: nodes.NodeNG) -> nodes.Const | None:
    """The `None` arm a CUDA availability test (`torch.cuda.is_available()`, its function or the
    call) picks for a `map_location`, opposite a host arm ("cpu"); None when it is not one."""
    node = test
    if isinstance(node.parent, nodes.Call) and node.parent.func is node:
        node = node.parent
    positive = True
    if isinstance(node.parent, nodes.UnaryOp) and node.parent.op == "not":
        node, positive = node.parent, False
    choice = node.parent
    if not isinstance(choice, nodes.IfExp) or choice.test is not node:
        return None
    on_cuda, elsewhere = (choice.body, choice.orelse) if positive else (choice.orelse, choice.body)
    if not (isinstance(on_cuda, nodes.Const) and on_cuda.value is None and _names_host(elsewhere)):
        return None
    return on_cuda if _is_map_location(choice) else None


def _names_host(node: nodes.NodeNG) -> bool:
    """`"cpu"`, `torch.device("cpu")`."""
    if isinstance(node, nodes.Call) and len(node.args) == 1 and not node.keywords:
        node = node.args[0]
    return isinstance(node, nodes.Const) and node.value == "cpu"


def _is_map_location(value: nodes.NodeNG) -> bool:
    """Is `value` a `map_location=` argument, directly or through a local name that is only ever
    handed on as one?"""
    holder = value.parent
    if isinstance(holder, nodes.Keyword):
        return holder.arg == MAP_LOCATION
    if not (isinstance(holder, nodes.Assign) and holder.value is value and len(holder.targets) == 1
            and isinstance(holder.targets[0], nodes.AssignName)):
        return False
    name = holder.targets[0].name
    uses = [use for use in holder.scope().nodes_of_class(nodes.Name) if use.name == name]
    return bool(uses) and all(isinstance(use.parent, nodes.Keyword) and use.parent.arg == MAP_LOCATION
                              for use in uses)
