"""check: tensor_grown_in_loop -- `t = torch.cat([t, x])` inside a loop.

Each pass makes a tensor one step longer: every iteration has a new shape (and copies all
that came before). Not where a piece is moved to the host (`torch.cat((x, part.cpu()))`, MONAI's
maisi autoencoder gathering splits to spare device memory): torch.cat takes tensors on one
device, so the growing tensor lives on the CPU, and the NPU never sees its shapes.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.cpu_device import explicitly_on_cpu
from npu_lint.analysis.loops import enclosing_loop
from npu_lint.analysis.names import qualified_name
from npu_lint.checks.base import Check

CONCATENATIONS = frozenset({"torch.cat", "torch.concat", "torch.concatenate"})


def _target_text(target: nodes.NodeNG, ctx: ModuleContext) -> str | None:
    if isinstance(target, (nodes.AssignName, nodes.AssignAttr)):
        return ctx.node_text(target)
    return None


class TensorGrownInLoop(Check):
    node_types = (nodes.Assign,)

    def triggers(self) -> frozenset[str]:
        return frozenset({"cat", "concat", "concatenate"})

    def visit(self, node: nodes.Assign, ctx: ModuleContext) -> None:
        call = node.value
        if len(node.targets) != 1 or not isinstance(call, nodes.Call) or not call.args:
            return
        name = _target_text(node.targets[0], ctx)
        pieces = call.args[0]
        if name is None or not isinstance(pieces, (nodes.List, nodes.Tuple)):
            return
        if not any(ctx.node_text(piece) == name for piece in pieces.elts):
            return
        if any(ctx.node_text(piece) != name and explicitly_on_cpu(piece) for piece in pieces.elts):
            return  # grown on the host
        qname = qualified_name(call.func)
        loop = enclosing_loop(node) if qname in CONCATENATIONS else None
        if loop is not None and not _rebound_in(loop, name, node, ctx):
            ctx.report(self.rule, call, name=name, api=qname)


def _rebound_in(loop: nodes.NodeNG, name: str, growth: nodes.Assign, ctx: ModuleContext) -> bool:
    """The name gets a fresh value on each pass (the loop's target, or another assignment in the
    loop, as in `for s in seqs: s = torch.cat([s, eos])`): it is not carried across passes."""
    for target in loop.nodes_of_class((nodes.AssignName, nodes.AssignAttr)):
        if target.parent is not growth and _target_text(target, ctx) == name:
            return True
    return False
