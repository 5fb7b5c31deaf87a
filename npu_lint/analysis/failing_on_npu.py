"""Names that fail on the NPU as they stand and that no fix renames: the symbols of the rules that
are errors with a fix that is only shown (`torch.nn.DataParallel`, NPU140; `ProcessGroupNCCL`,
NPU205; `CUDAExtension`, NPU410; `triton.jit`, NPU402).

A CUDA test that keeps one of them off other devices (`if torch.cuda.device_count() > 1: model =
nn.DataParallel(model)`, `device.type == "cuda"` before it) does not get its rename applied by
itself: renamed alone, the test sends the NPU into the name, where the code ran before without it.
"""
from __future__ import annotations

import dataclasses

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.names import ATTRIBUTE_NODES, in_type_test, is_chain_top, qualified_name
from npu_lint.core.findings import Applicability, Finding, Related, Severity

_TABLE = "failing_on_npu:symbols"


def _symbols(ctx: ModuleContext) -> dict[str, str]:
    """Each such symbol of the engine's rules (shipped and extend-rules), with its rule's code;
    read once per module."""
    table = ctx.scratch.get(_TABLE)
    if table is None:
        table = ctx.scratch[_TABLE] = {
            symbol: rule.code for rule in ctx.catalog
            if rule.kind == "symbol" and rule.severity is Severity.ERROR
            and rule.fix is not None and rule.fix.applicability is Applicability.DISPLAY_ONLY
            for symbol in rule.match.get("symbols", ())}
    return table


def rule_of(qname: str, ctx: ModuleContext) -> str | None:
    """The code of the rule that reports `qname` if it is such a symbol, else None."""
    return _symbols(ctx).get(qname)


def fails_on_npu(node: nodes.NodeNG, ctx: ModuleContext) -> str | None:
    """The name of such a symbol that `node` uses, else None: named (`nn.DataParallel(model)`; not
    in a type test, which only asks), or through a class of the module that extends it (haystack
    1.26's `class WrappedDataParallel(DataParallel)`, then `WrappedDataParallel(model)`)."""
    if not is_chain_top(node) or in_type_test(node):
        return None
    names = _symbols(ctx)
    qname = qualified_name(node)
    if qname in names:
        return qname
    if not isinstance(node, nodes.Name):
        return None
    _scope, assigned = node.lookup(node.name)
    for defined in assigned:
        if isinstance(defined, nodes.ClassDef):
            base = next((q for q in map(qualified_name, defined.bases) if q in names), None)
            if base is not None:
                return base
    return None


def failing_name_in(statements: list[nodes.NodeNG], ctx: ModuleContext) -> tuple[nodes.NodeNG, str] | None:
    """The first use of such a name in `statements` (what a CUDA test keeps off other devices),
    with its name, else None."""
    return next(((inner, failing) for statement in statements
                 for inner in statement.nodes_of_class((*ATTRIBUTE_NODES, nodes.Name))
                 for failing in (fails_on_npu(inner, ctx),) if failing is not None), None)


def held_with(finding: Finding, name: str, code: str, related: Related) -> Finding:
    """The test's finding with its fix only shown, together with `name`'s (reported as `code`),
    which the test keeps off other devices and which has no fix."""
    fix = dataclasses.replace(
        finding.fix, applicability=Applicability.DISPLAY_ONLY,
        message=f"{finding.fix.message} together with `{name}`, which the test keeps off other devices "
                f"and which has no fix (see {code})")
    return dataclasses.replace(finding, fix=fix, related=tuple(sorted((*finding.related, related))))
