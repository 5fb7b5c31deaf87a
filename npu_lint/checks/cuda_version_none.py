"""check: cuda_version_is_none (NPU181) -- a use of `torch.version.cuda` that raises on None.

torch_npu runs on the CPU build of torch, where `torch.version.cuda` is None (torch/version.py
of the torch wheels torch_npu pairs with: `cuda: Optional[str] = None`), and transfer_to_npu does
not patch it. Code that parses it (`version.parse(torch.version.cuda)`, `float(...)`,
`.split(".")`, `[0]`) raises where it ran on a CUDA build. What raises and what is guarded is
analysis.none_uses; a local name given the value once (`cuda = torch.version.cuda`, or
`getattr(torch.version, "cuda", None)`) is followed in its scope. No fix: what the code should do
without a CUDA version (skip a CUDA-only kernel, log "none") is the author's choice.
"""
from __future__ import annotations

from typing import Iterator

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.names import qualified_name, single_value
from npu_lint.analysis.none_uses import none_crash, none_guarded
from npu_lint.checks.base import Check

CUDA_VERSION = "torch.version.cuda"
_SHOWN = 60  # characters of the failing expression quoted in the message


class CudaVersionIsNone(Check):
    node_types = (nodes.Attribute, nodes.Call)

    def triggers(self) -> frozenset:
        return frozenset({(".version", ".cuda"), (".version", "getattr", "'cuda")})

    def visit(self, node, ctx: ModuleContext) -> None:
        if not _is_cuda_version(node):
            return
        self._judge(node, node, lambda e: e is node or _is_cuda_version(e), ctx)
        for use in _alias_uses(node):
            name = use.name
            self._judge(use, node, lambda e, name=name: isinstance(e, nodes.Name) and e.name == name
                        or _is_cuda_version(e), ctx)

    def _judge(self, use: nodes.NodeNG, source: nodes.NodeNG, is_value, ctx: ModuleContext) -> None:
        crash = none_crash(use)
        if crash is None or none_guarded(use, is_value):
            return
        expression, error = crash
        statement = expression.statement()
        reported = ctx.scratch.setdefault(self, set())
        if statement in reported:
            return  # once per statement: the first failure stops it
        reported.add(statement)
        text = ctx.node_text(expression)
        shown = text if len(text) <= _SHOWN else text[:_SHOWN - 3] + "..."
        ctx.report(self.rule, expression, use=shown, error=error, value=ctx.node_text(source))


def _is_cuda_version(node: nodes.NodeNG) -> bool:
    return (isinstance(node, nodes.Attribute) and node.attrname == "cuda" and qualified_name(node) == CUDA_VERSION) \
        or _getattr_cuda_version(node)


def _getattr_cuda_version(node: nodes.NodeNG) -> bool:
    """`getattr(torch.version, "cuda", ...)`."""
    return isinstance(node, nodes.Call) and isinstance(node.func, nodes.Name) and node.func.name == "getattr" \
        and len(node.args) >= 2 and isinstance(node.args[1], nodes.Const) and node.args[1].value == "cuda" \
        and qualified_name(node.args[0]) == "torch.version"


def _alias_uses(source: nodes.NodeNG) -> Iterator[nodes.Name]:
    """The reads of a local name whose one assignment is `source` (`cuda = torch.version.cuda`)."""
    assign = source.parent
    if not (isinstance(assign, nodes.Assign) and assign.value is source and len(assign.targets) == 1
            and isinstance(assign.targets[0], nodes.AssignName)):
        return
    name = assign.targets[0].name
    for use in assign.scope().nodes_of_class(nodes.Name):
        if use.name == name and single_value(use) is source:
            yield use
