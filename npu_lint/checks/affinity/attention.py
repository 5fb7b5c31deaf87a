"""check: attention_by_hand -- `softmax(q @ k.transpose(-2, -1) * scale + mask) @ v`.

Read backwards from the last matmul: its left operand is a softmax (through dropout, casts, a
head mask), whose input is a matmul with a transposed key (through scaling, masks, casts).
Quiet where the function already calls `scaled_dot_product_attention` or `npu_fusion_attention`,
itself or through a method of its own class (vit-pytorch's ViViT: `if self.use_flash_attn: out =
self.flash_attn(q, k, v)`, whose `flash_attn` calls SDPA; the hand-written branch is then a
fallback), in a function named for SDPA of a module that calls SDPA (uni2ts's
`native_scaled_dot_product_attention`, the written-out twin of that call), and on chips with no
fused attention documented.
A plain `F.scaled_dot_product_attention` call is never reported: Ascend documents it as
flash-attention backed on Atlas A2 (and A3) for every release npu-lint knows.
"""
from __future__ import annotations

from typing import Optional

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.names import is_method_self, qualified_name
from npu_lint.analysis.shapes import spelled, VALUE_PRESERVING, Unpacked, calls_in_frame, find, last_name, \
    module_attribute_class, op_of, strip_casts
from npu_lint.checks.affinity.base import AffinityCheck, self_layer_call
from npu_lint.knowledge.operator_data import chip_label

_MATMUL = frozenset({"matmul", "bmm"})
_TRANSPOSED = frozenset({"transpose", "permute", "mT", "swapaxes", "t"})
_SOFTMAX_MODULES = frozenset({"torch.nn.Softmax", "torch.nn.modules.activation.Softmax"})
_FUSED = frozenset({"scaled_dot_product_attention", "npu_fusion_attention", "flash_attn_func",
                    "npu_fused_attention"})
# Steps between the scores and the softmax, and between the softmax and the last matmul.
_SCORE_STEPS = frozenset({"add", "sub", "mul", "div", "masked_fill", "where", *VALUE_PRESERVING})
_PROBABILITY_STEPS = frozenset({"dropout", "mul", "masked_fill", *VALUE_PRESERVING})


def _transposed(node) -> bool:
    if isinstance(node, Unpacked):
        return False
    node = strip_casts(node)  # k.transpose(-2, -1).contiguous()
    if isinstance(node, nodes.Attribute) and node.attrname in ("mT", "T"):
        return True
    op = op_of(node)
    return op is not None and op.name in _TRANSPOSED


def _scores(node, depth: int = 0) -> Optional[nodes.NodeNG]:
    """The `q @ k^T` matmul behind node, through scaling and masking."""
    if isinstance(node, Unpacked) or depth > 6:
        return None
    if self_layer_call(node):  # self.rel_pos(attn): a position bias added by a layer of the model
        return find(node.args[0], lambda v: _scores(v, depth + 1))
    op = op_of(node)
    if op is None:
        return None
    if op.name in _MATMUL and len(op.operands) == 2:
        return node if find(op.operands[1], _transposed) is not None else None
    if op.name in _SCORE_STEPS:
        operands = op.operands[1:3] if op.name == "where" else op.operands[:1] if op.name == "masked_fill" \
            else op.operands
        for operand in operands:
            found = find(operand, lambda v: _scores(v, depth + 1))
            if found is not None:
                return found
    return None


def _softmax_input(node, depth: int = 0) -> Optional[nodes.NodeNG]:
    """The input of the softmax behind node, through dropout, casts and a head mask."""
    if isinstance(node, Unpacked) or depth > 6:
        return None
    if self_layer_call(node):
        # self.dropout(p), self.attn_drop(p), self.softmax(s): a layer of the model on one tensor
        if module_attribute_class(node.func) in _SOFTMAX_MODULES:
            return node.args[0]
        return find(node.args[0], lambda v: _softmax_input(v, depth + 1))
    if isinstance(node, nodes.Call) and isinstance(node.func, nodes.Call) and len(node.args) == 1 \
            and qualified_name(node.func.func) in _SOFTMAX_MODULES:
        return node.args[0]  # nn.Softmax(dim=-1)(scores)
    op = op_of(node)
    if op is not None and op.name == "softmax" and op.operands:
        return op.operands[0]
    if isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute) and node.func.attrname == "softmax" \
            and node.args and op is None:
        return node.args[0]  # a project's own softmax helper (fairseq's utils.softmax upcasts, then F.softmax)
    if op is not None and op.name in _PROBABILITY_STEPS and op.operands:
        operands = op.operands if op.name == "mul" else op.operands[:1]
        for operand in operands:
            found = find(operand, lambda v: _softmax_input(v, depth + 1))
            if found is not None:
                return found
        return None
    return None


def _parts(node: nodes.NodeNG) -> list:
    """The expression and every name in it."""
    return [node, *node.nodes_of_class(nodes.Name)]


def _own_method_calls_fused(node: nodes.NodeNG) -> bool:
    """Does the method around node call (`self.flash_attn(...)`) a method of its class that calls a
    fused attention?"""
    frame = node.frame()
    klass = frame.parent if isinstance(frame, nodes.FunctionDef) else None
    if not isinstance(klass, nodes.ClassDef):
        return False
    for call in frame.nodes_of_class(nodes.Call):
        func = call.func
        if isinstance(func, nodes.Attribute) and is_method_self(func.expr):
            method = klass.locals.get(func.attrname, ())
            if len(method) == 1 and isinstance(method[0], nodes.FunctionDef) and method[0] is not frame \
                    and any(last_name(inner.func) in _FUSED for inner in method[0].nodes_of_class(nodes.Call)):
                return True
    return False


_SDPA = "scaled_dot_product_attention"


def _written_out_sdpa(node: nodes.NodeNG, ctx: ModuleContext) -> bool:
    """Is `node` in a function named for `scaled_dot_product_attention`
    (`native_scaled_dot_product_attention`) of a module that calls SDPA itself? uni2ts's attention
    module writes out the reference code of torch's SDPA documentation beside the layer that calls
    `F.scaled_dot_product_attention`: the twin of a call the module already makes, where advising
    that call says nothing new. A function of that name in a module that never calls torch's SDPA
    is a model's own attention (transformers' CTRL, a port of TensorFlow's tutorial layer, which
    the module calls by that name) and is still advised."""
    scope = node.scope()
    named = False
    while isinstance(scope, (nodes.FunctionDef, nodes.Lambda)):
        if isinstance(scope, nodes.FunctionDef) and f"_{_SDPA}_" in f"_{scope.name.strip('_')}_":
            named = True
            break
        scope = scope.parent.scope() if scope.parent is not None else None
    if not named:
        return False
    return any(last_name(call.func) == _SDPA and _torch_sdpa(call) for call in ctx.nodes_of(nodes.Call))


def _torch_sdpa(call: nodes.Call) -> bool:
    """Does `call` call torch's SDPA (`F.scaled_dot_product_attention`), not the module's own function
    of that name (transformers' CTRL: `output = scaled_dot_product_attention(q, k, v, mask, ...)`)?"""
    name = qualified_name(call.func)
    return name is not None and name.split(".")[0] == "torch" and name.endswith("." + _SDPA)


class AttentionByHand(AffinityCheck):
    node_types = (nodes.BinOp, nodes.Call)

    def triggers(self) -> frozenset:
        return frozenset({"softmax", "Softmax"})

    def visit(self, node, ctx: ModuleContext) -> None:
        if not spelled(node, "@", _MATMUL):
            return
        op = op_of(node)
        if op is None or op.name not in _MATMUL or len(op.operands) != 2:
            return
        softmax_input = find(op.operands[0], _softmax_input)
        if softmax_input is None:
            return
        scores = find(softmax_input, _scores)
        if scores is None or calls_in_frame(node, _FUSED) or _own_method_calls_fused(node) \
                or _written_out_sdpa(node, ctx):
            return
        if any(find(part, _softmax_input) is not None for part in _parts(op.operands[1])):
            return  # softmax times softmax (Nystrom kernels): not an attention over values
        sdpa = self.available("scaled_dot_product_attention")
        fusion = self.available("npu_fusion_attention")
        if fusion is not None:
            operator, advice = fusion, (
                "or `torch.nn.functional.scaled_dot_product_attention`, which Ascend documents as "
                f"flash-attention backed on {chip_label(self.chip)} (layout [batch, heads, seq, head_dim], "
                "head_dim up to 512, bool mask)")
        elif sdpa is not None:
            operator, advice = sdpa, (
                f"(`torch_npu.npu_fusion_attention` is documented for Atlas A2 only, not for "
                f"{chip_label(self.chip)})")
        else:
            return
        self.report(ctx, node, operator, advice=advice,
                    related=(ctx.related(scores, "the attention scores: query times transposed key"),))
