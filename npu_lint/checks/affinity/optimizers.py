"""checks: optimizer_has_npu_fused, clip_grad_norm_has_fused -- torch.optim and gradient clipping.

`torch.optim.AdamW(...)` -> `torch_npu.optim.NpuFusedAdamW(...)`: the arguments carry over when the
call passes only parameters the fused class has (in its order, with torch's defaults), so the
rewrite is mechanical; it still changes behaviour (fp32/fp16 parameters only, no re-allocation),
hence unsafe. `fused=True`, or a test given as `fused=`, already asks torch for a fused step: quiet.
So is an optimizer over a list of one tensor (advertorch's attacks: `optim.Adam([delta], lr=lr)`, a
perturbation of the input; laplace-torch's `Adam([log_prior_prec])`, a hyperparameter): there is no
loop over parameters to fuse, and such code sets the tensor's `.data` and `.grad` itself, which the
fused optimizer's flat buffer would not see.
`torch.nn.utils.clip_grad_norm_` -> the fused optimizer's `clip_grad_norm_fused_`: display only.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.names import keyword, last_name, qualified_name
from npu_lint.checks.affinity.base import AffinityCheck
from npu_lint.checks.operator_calls import has_star_arguments
from npu_lint.core.findings import Edit
from npu_lint.knowledge import fused_operators

_CLIP = frozenset({"torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad.clip_grad_norm_"})


def _optimizer_name(qname: str | None) -> str | None:
    """`torch.optim.adamw.AdamW` -> `torch.optim.AdamW`."""
    if qname and qname.startswith("torch.optim."):
        return "torch.optim." + qname.rsplit(".", 1)[-1]
    return None


class OptimizerHasNpuFused(AffinityCheck):
    node_types = (nodes.Call,)

    def __init__(self, rule, settings):
        super().__init__(rule, settings)
        self.table = fused_operators.optimizers()

    def triggers(self) -> frozenset:
        return frozenset(name.rsplit(".", 1)[-1] for name in self.table)

    def visit(self, node: nodes.Call, ctx: ModuleContext) -> None:
        if not isinstance(node.func, (nodes.Name, nodes.Attribute)):
            return
        last = last_name(node.func)
        if "torch.optim." + last not in self.table:
            return
        name = _optimizer_name(qualified_name(node.func))
        counterpart = self.table.get(name or "")
        fused_flag = keyword(node, "fused")
        if counterpart is None or _asks_for_fused(fused_flag) or _one_tensor(node):
            return
        operator = self.available("npu_fused_optimizers")
        if operator is None:
            return
        fused = f"torch_npu.optim.{counterpart.fused}"
        edits = ()
        if self._exact(node, counterpart):
            start, end = ctx.start(node.func), ctx.end(node.func)
            edits = (Edit(start, end, fused), *ctx.torch_npu_import_edits(node, bind=True))
        self.report(ctx, node, operator, optimizer=name, fused=fused, edits=edits)

    @staticmethod
    def _exact(node: nodes.Call, counterpart) -> bool:
        """Every argument has the same meaning in the fused class (and its required ones are given)."""
        if has_star_arguments(node) or len(node.args) > len(counterpart.parameters):
            return False
        given = set(counterpart.parameters[:len(node.args)])
        for item in node.keywords or ():
            if item.arg not in counterpart.parameters or item.arg in given:
                return False
            given.add(item.arg)
        return all(name in given for name in counterpart.required) and "params" in given


class ClipGradNormHasFused(AffinityCheck):
    node_types = (nodes.Call,)

    def triggers(self) -> frozenset:
        return frozenset({"clip_grad_norm_"})

    def visit(self, node: nodes.Call, ctx: ModuleContext) -> None:
        if last_name(node.func) != "clip_grad_norm_" or qualified_name(node.func) not in _CLIP:
            return
        operator = self.available("npu_fused_optimizers")
        if operator is not None:
            self.report(ctx, node, operator)


def _one_tensor(call: nodes.Call) -> bool:
    """Are the optimizer's params a list or tuple of one plain name or attribute (`[delta]`,
    `[self.log_scale]`), not a starred or computed collection?"""
    params = keyword(call, "params") or (call.args[0] if call.args else None)
    return isinstance(params, (nodes.List, nodes.Tuple)) and len(params.elts) == 1 \
        and isinstance(params.elts[0], (nodes.Name, nodes.Attribute))


def _asks_for_fused(flag: nodes.NodeNG | None) -> bool:
    """`fused=True`, or a test that says when (WhisperSpeech's `fused=device != 'cpu'`, true on the
    NPU too): the code asks for torch's own fused step. Not `fused=False` or `fused=None`."""
    if flag is None:
        return False
    return not isinstance(flag, nodes.Const) or flag.value is True

