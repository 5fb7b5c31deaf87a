"""check: cuda_build_picks_device (NPU182) -- a device choice that also asks for a CUDA build.

    if torch.cuda.is_available() and (torch.version.cuda or torch.version.hip):
        return "cuda"                      # whisperspeech's get_default_compute_device
    elif torch.backends.mps.is_available():
        return "mps"
    return "cpu"

`torch.version.cuda` (and `.hip`) is None on the CPU build of torch that torch_npu runs on, under
transfer_to_npu too, so the branch that picks the program's device is never taken on the NPU
and the program runs on the fallback device, silently. npu_branches.py reads such a test as
CUDA's alone (right for a kernel switch: `x.device.type == "cuda" and torch.version.cuda`), so the
branch's own findings are dropped and this is the one line that says the port is needed. The
fix removes the build test from the `and`; the next pass then ports what is left
(`torch.npu.is_available()`, `"npu"`).
"""
from __future__ import annotations

import re

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.names import qualified_name
from npu_lint.analysis.npu_branches import is_cuda_build_version
from npu_lint.checks.base import Check
from npu_lint.core.findings import Edit, Position

_CUDA_DEVICE = re.compile(r"cuda(:\d+)?$")


class CudaBuildPicksDevice(Check):
    node_types = (nodes.BoolOp,)

    def triggers(self) -> frozenset:
        return frozenset({(".version", "is_available"), (".version", "device_count")})

    def visit(self, node: nodes.BoolOp, ctx: ModuleContext) -> None:
        if node.op != "and" or len(node.values) < 2:
            return
        build = [value for value in node.values if _asks_for_cuda_build(value)]
        if len(build) != 1 or not any(_asks_torch_cuda(value) for value in node.values):
            return
        if not _picks_cuda_device(node):
            return
        removal = _removal(ctx, node, build[0])
        if removal and len(node.values) == 2:
            removal += _grouping_parentheses(ctx, node)
        # Dropping the build test is right on every route: CUDA's builds pass it wherever CUDA is available.
        ctx.report(self.rule, build[0], edits=removal, agnostic_edits=removal, test=ctx.node_text(build[0]))


def _asks_for_cuda_build(node: nodes.NodeNG) -> bool:
    """`torch.version.cuda`, `torch.version.cuda is not None`, `(torch.version.cuda or
    torch.version.hip)`: true on a CUDA build, false on the NPU's. A test of `.hip` alone asks for
    ROCm, which the NPU's torch is not either, and which the port leaves as it is."""
    if isinstance(node, nodes.BoolOp) and node.op == "or":
        return all(is_cuda_build_version(value) or _none_test(value) for value in node.values) \
            and any(_names_cuda_version(value) for value in node.values)
    return _names_cuda_version(node) and (is_cuda_build_version(node) or _none_test(node))


def _names_cuda_version(node: nodes.NodeNG) -> bool:
    value = node.left if isinstance(node, nodes.Compare) else node
    return isinstance(value, nodes.Attribute) and value.attrname == "cuda" and is_cuda_build_version(value)


def _none_test(node: nodes.NodeNG) -> bool:
    """`torch.version.cuda is not None` (or `!= None`)."""
    return isinstance(node, nodes.Compare) and len(node.ops) == 1 and node.ops[0][0] in ("is not", "!=") \
        and isinstance(node.ops[0][1], nodes.Const) and node.ops[0][1].value is None \
        and is_cuda_build_version(node.left)


def _asks_torch_cuda(node: nodes.NodeNG) -> bool:
    """A question to torch.cuda at run time: `torch.cuda.is_available()`, `torch.cuda.device_count() > 0`."""
    calls = [node] if isinstance(node, nodes.Call) else list(node.nodes_of_class(nodes.Call))
    return any((qualified_name(call.func) or "").startswith("torch.cuda.") for call in calls)


def _picks_cuda_device(test: nodes.BoolOp) -> bool:
    """Is `test` the whole test of a branch whose value or body picks a CUDA device: `"cuda" if
    ... else "cpu"`, or `if ...:` whose body returns or assigns one?"""
    branching = test.parent
    if isinstance(branching, nodes.IfExp) and branching.test is test:
        return _is_cuda_device(branching.body)
    if isinstance(branching, nodes.If) and branching.test is test:
        return any(isinstance(stmt, (nodes.Return, nodes.Assign, nodes.AnnAssign)) and stmt.value is not None
                   and _is_cuda_device(stmt.value) for stmt in branching.body)
    return False


def _is_cuda_device(value: nodes.NodeNG) -> bool:
    """`"cuda"`, `"cuda:0"`, `f"cuda:{rank}"`, `torch.device("cuda")` and the like."""
    if isinstance(value, nodes.Const):
        return isinstance(value.value, str) and bool(_CUDA_DEVICE.match(value.value))
    if isinstance(value, nodes.JoinedStr):
        first = value.values[0] if value.values else None
        return isinstance(first, nodes.Const) and isinstance(first.value, str) \
            and (first.value == "cuda" or first.value.startswith("cuda:"))
    if isinstance(value, nodes.Call) and qualified_name(value.func) == "torch.device" and value.args:
        return _is_cuda_device(value.args[0])
    return False


def _removal(ctx: ModuleContext, test: nodes.BoolOp, build: nodes.NodeNG) -> tuple[Edit, ...]:
    """Delete `build` and its `and` from the test: from the end of the operand before it (with the
    parentheses that close around it), or, for the first operand, up to the operand after it."""
    index = test.values.index(build)
    if index == 0:
        start, end = ctx.start(build), ctx.start(test.values[1])
        between = ctx.index.segment((ctx.end(build).line, ctx.end(build).column), (end.line, end.column))
        return (Edit(start, end, ""),) if between.split() == ["and"] else ()
    before = ctx.end(test.values[index - 1])
    start = ctx.start(build)
    opened = ctx.index.segment((before.line, before.column), (start.line, start.column)).count("(")
    end = ctx.end(build)
    line = ctx.index.line(end.line)
    column = end.column
    for _ in range(opened):
        column += len(line[column:]) - len(line[column:].lstrip(" \t"))
        if not line[column:].startswith(")"):
            return ()
        column += 1
    return (Edit(before, Position(end.line, column), ""),)


def _grouping_parentheses(ctx: ModuleContext, test: nodes.BoolOp) -> tuple[Edit, ...]:
    """The parentheses around a two-operand test that only group it (`x if (a and b) else y`,
    `elif (a\n and b):`): with one operand left they group nothing, and a port would not write them."""
    start, end = ctx.start(test), ctx.end(test)
    before = ctx.index.line(start.line)[:start.column].rstrip(" \t")
    after = ctx.index.line(end.line)[end.column:].lstrip(" \t")
    if not (before.endswith("(") and after.startswith(")")):
        return ()
    opening = Position(start.line, len(before) - 1)
    closing = Position(end.line, end.column + len(ctx.index.line(end.line)[end.column:]) - len(after))
    return (Edit(opening, Position(opening.line, opening.column + 1), ""),
            Edit(closing, Position(closing.line, closing.column + 1), ""))
