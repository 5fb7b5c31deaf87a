"""check: cpu_test_runs_cuda_kernel -- a test that only keeps the CPU off the module's own CUDA kernel.

    if input.device.type == "cpu":                      basicsr's ops/upfirdn2d/upfirdn2d.py
        out = upfirdn2d_native(input, kernel, ...)
    else:
        out = UpFirDn2d.apply(input, kernel, ...)       calls the module's CUDA build

The test separates the CPU from every other device, so an NPU tensor takes the other path into a
kernel that runs on CUDA only (a CUDA build of the module or a Triton/Helion kernel, as
analysis/cuda_kernels.py finds them). The build itself is NPU412; this is where the NPU reaches it.
Only tests whose meaning is plain are read: `x.device.type == "cpu"` (or `!=`, `str(x.device)`),
`x.is_cpu`, under `not`, or one operand of an `or` (CPU side) / `and` (other side).
"""
from __future__ import annotations

from typing import Iterator

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.cuda_kernels import cuda_kernel_names
from npu_lint.analysis.names import statements_after
from npu_lint.checks.base import Check

_EXITS = (nodes.Return, nodes.Raise)


class CpuTestRunsCudaKernel(Check):
    node_types = (nodes.Compare, nodes.Attribute)

    def triggers(self) -> frozenset:
        # The tests `_says_cpu` reads, not any "cpu" string (`map_location="cpu"` is everywhere).
        return frozenset({".is_cpu", ("=='cpu", ".type", "device"), ("=='cpu", ".device", "str")})

    def visit(self, node: nodes.NodeNG, ctx: ModuleContext) -> None:
        says_cpu = _says_cpu(node)
        if says_cpu is None:
            return
        kernels = cuda_kernel_names(node.root())
        if not kernels:
            return
        tested = node.left if isinstance(node, nodes.Compare) else node.expr
        for statement in _other_devices_path(node, says_cpu):
            name = next((n.name for n in _names(statement) if n.name in kernels), None)
            if name is not None:
                ctx.report(self.rule, node, kernel=name, test=node.as_string(),
                           tensor=_tensor_of(tested).as_string())
                return


def _says_cpu(node: nodes.NodeNG) -> bool | None:
    """True for a test that is true on the CPU only, False for one true everywhere else, None for
    anything else."""
    if isinstance(node, nodes.Attribute):
        called = isinstance(node.parent, nodes.Call) and node.parent.func is node
        return True if node.attrname == "is_cpu" and not called else None
    if len(node.ops) != 1:
        return None
    operator, right = node.ops[0]
    if operator not in ("==", "!=") or not (isinstance(right, nodes.Const) and right.value == "cpu"):
        return None
    if not _names_device(node.left):
        return None
    return operator == "=="


def _names_device(node: nodes.NodeNG) -> bool:
    """`x.device.type`, `device.type`, `str(x.device)`."""
    if isinstance(node, nodes.Call) and isinstance(node.func, nodes.Name) and node.func.name == "str" \
            and len(node.args) == 1:
        node = node.args[0]
        return isinstance(node, nodes.Attribute) and node.attrname == "device"
    return isinstance(node, nodes.Attribute) and node.attrname == "type" \
        and isinstance(node.expr, (nodes.Attribute, nodes.Name)) \
        and (getattr(node.expr, "attrname", None) or getattr(node.expr, "name", None)) == "device"


def _tensor_of(tested: nodes.NodeNG) -> nodes.NodeNG:
    """`input` of `input.device.type`, `str(input.device)`, `input.is_cpu`."""
    if isinstance(tested, nodes.Call):
        tested = tested.args[0]
    if isinstance(tested, nodes.Attribute) and tested.attrname == "type":
        tested = tested.expr
    return tested.expr if isinstance(tested, nodes.Attribute) and tested.attrname == "device" else tested


def _other_devices_path(node: nodes.NodeNG, says_cpu: bool) -> Iterator[nodes.NodeNG]:
    """The statements or expression that run for every device but the CPU."""
    test = node
    while isinstance(test.parent, nodes.UnaryOp) and test.parent.op == "not":
        test, says_cpu = test.parent, not says_cpu
    if isinstance(test.parent, nodes.BoolOp):
        # `cpu or other`: the else side is other devices only; `not cpu and other`: the body is
        if (test.parent.op == "or") != says_cpu:
            return
        test = test.parent
    statement = test.parent
    if isinstance(statement, nodes.IfExp) and statement.test is test:
        yield statement.orelse if says_cpu else statement.body
    elif isinstance(statement, nodes.If) and statement.test is test:
        if not says_cpu:
            yield from statement.body
        elif statement.orelse:
            yield from statement.orelse
        elif statement.body and isinstance(statement.body[-1], _EXITS):
            yield from statements_after(statement)


def _names(tree: nodes.NodeNG) -> Iterator[nodes.Name]:
    if isinstance(tree, nodes.Name):
        yield tree
    for child in tree.get_children():
        if not isinstance(child, (nodes.FunctionDef, nodes.ClassDef, nodes.Lambda)):
            yield from _names(child)
