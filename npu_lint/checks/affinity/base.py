"""What every fused-operator check shares: the target's release and chip, and the facts it prints."""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.call_owners import report_about
from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.test_code import in_reference_helper, in_test_function
from npu_lint.checks.base import Check
from npu_lint.checks.operator_calls import chip_of, release_of
from npu_lint.knowledge import fused_operators
from npu_lint.knowledge.fused_operators import FusedOperator


class AffinityCheck(Check):
    """A pattern with one fused counterpart (`fused`, a key of data/fused_operators.yaml)."""

    fused = ""

    def __init__(self, rule, settings):
        super().__init__(rule, settings)
        self.release = release_of(settings)
        self.chip = chip_of(settings)

    def available(self, key: str) -> FusedOperator | None:
        """The operator when the target release and chip have it, else None (then stay quiet)."""
        operator = fused_operators.operator(key)
        return operator if operator.available(self.release, self.chip) else None

    def report(self, ctx: ModuleContext, node: nodes.NodeNG, operator: FusedOperator, **fields: str) -> None:
        if _in_reference_of(node, operator.api) or in_test_function(node) or in_reference_helper(node):
            return  # a test's hand-written form is the reference the kernel is compared with
        fields.setdefault("advice", "")
        # noted for analysis/call_owners.py: the fused class is what an operator note on the call
        # (NPU931) goes with
        report_about(ctx, self.rule, node, api=operator.api, facts=operator.facts(),
                     signature=operator.signature, **fields)


def _in_reference_of(node: nodes.NodeNG, api: str) -> bool:
    """Is `node` inside a function named for the torch_npu operator `api` (`npu_rotary_mul`,
    `npu_rotary_mul_backward`)? MindStudio Probe's bench functions compute each fused operator's
    golden output on the host that way, to compare the NPU's with: the operator itself is what
    they check, not what they should call. A test function's hand-written form is such a
    reference too (xDiT's `test_ck_vsa_matches_masked_dense`: `reference =
    torch.matmul(torch.softmax(scores, dim=-1), value.float())` beside AITER's sparse kernel), and
    so is a helper of a test module named for a reference (vllm-ascend's `_reference_impl`);
    `report` leaves those alone through analysis/test_code.py."""
    if not api.startswith("torch_npu."):
        return False
    name = api.rsplit(".", 1)[-1]
    scope = node.scope()
    while isinstance(scope, (nodes.FunctionDef, nodes.Lambda)):
        if isinstance(scope, nodes.FunctionDef) and (scope.name == name or scope.name.startswith(name + "_")):
            return True
        scope = scope.parent.scope() if scope.parent is not None else None
    return False


def self_layer_call(node: nodes.NodeNG) -> bool:
    """`self.name(x)`: a layer of the model applied to one tensor."""
    return isinstance(node, nodes.Call) and len(node.args) == 1 and not node.keywords \
        and isinstance(node.func, nodes.Attribute) and isinstance(node.func.expr, nodes.Name) \
        and node.func.expr.name == "self"
