"""A "cuda" that picks an implementation, not a device.

StyleGAN2-ADA's custom ops (copied into StyleGAN3, EG3D and many GAN projects; twice in
modelscope) take an `impl` argument:

    def bias_act(x, b=None, ..., impl='cuda'):
        assert impl in ['ref', 'cuda']
        if impl == 'cuda' and x.device.type == 'cuda' and _init():
            return _bias_act_cuda(...)(x, b)
        return _bias_act_ref(x=x, b=b, ...)

`impl` names an implementation: `'ref'` is no device. Every test that picks the CUDA one also
tests the tensor's device, so an NPU tensor takes the reference path with `impl` left as it is;
"npu" would fail the assert. Near miss: where a test of `impl == 'cuda'` alone picks the CUDA
kernel, the default sends NPU tensors into it, and the string stays a finding.

A choice between the languages a GPU kernel is written in names no device either (OLMo-core's MoE
token reorder, data/arguments.yaml `kernel_languages`):

    if backend not in ("auto", "cuda", "triton"):
        raise ValueError(f"Invalid backend: {backend}")
    if backend == "auto":
        backend = "cuda"

"cuda" is the CUDA C++ kernel beside the Triton one; "npu" would fail the check, and neither
kernel runs on the NPU: the kernels are reported where they are built and guarded (NPU411, NPU402,
NPU104). Such a choice needs no device test beside it. The value counts in the collection of
choices, as a name's default, keyword, comparison or assigned value (also the default of
`os.getenv`) where the module tests that name against such a collection, or compares that name
(in its function) or attribute (anywhere) with a kernel language alone (flash-linear-attention's
Mamba layers: `if self.backend == 'cuda': ... elif self.backend == 'triton':`).

So does a choice between the project's own implementations named for CUDA or NCCL and their
variants (OLMo-core's pipeline P2P backends, an Enum whose values the configuration holds):

    if self.p2p_backend not in {"nccl", "nccl_rma", "nccl_rma_ack"}:
        raise RuntimeError(f"Unsupported custom pipeline P2P backend: {self.p2p_backend}")
    if getattr(self, "p2p_backend", "nccl") in {"nccl_rma", "nccl_rma_ack"}:

"nccl" is the plain torch.distributed path beside the RMA ones; "hccl" written into these tests
alone would match no value the configuration gives. A name, an attribute or a key tested against
such a variant marks its values so (a name in its function, an attribute or key in the module),
also a `getattr` or `.pop` default; a keyword argument does not count, a call's own `backend=`
(torch.distributed's) being too common a name.
"""
from __future__ import annotations

import re

from astroid import nodes

from npu_lint.analysis.arguments import parameter_of_default, tables

_COLLECTIONS = (nodes.Tuple, nodes.List, nodes.Set)
_DEVICE_WORDS = frozenset({"cuda", "npu", "gpu", "auto"})
_GETTERS = frozenset({"getenv", "get"})  # os.getenv(name, default), os.environ.get(name, default)
_TEXT_METHODS = frozenset({"lower", "strip", "upper"})
# A variant of the port's words, no device or backend itself (`"nccl_rma"`, `"cuda_graph"`)
_VARIANT = re.compile(r"^(cuda|nccl)_[a-z0-9_]+$")


def picks_implementation(node: nodes.NodeNG) -> bool:
    """Is `node` (a "cuda" string) one of a collection of kernel languages, or a value of a name
    that picks between implementations: one tested against kernel languages, or one whose every
    CUDA choice in the module also tests the tensor's device?"""
    if isinstance(node.parent, _COLLECTIONS) and _kernel_languages(node.parent):
        return True
    name = _name_given(node)
    if name is not None and name in _implementation_selectors(node.root()):
        return True
    return not _keys_given(node).isdisjoint(_variant_selectors(node.root()) | _language_selectors(node.root()))


def _kernel_languages(collection: nodes.NodeNG) -> bool:
    """`("cuda", "triton", "te")`: "cuda" beside another language a GPU kernel is written in, also
    one of its variants (`("te_fused", "te_unfused", "cuda")`)."""
    words = {elt.value for elt in collection.elts if isinstance(elt, nodes.Const) and isinstance(elt.value, str)}
    return "cuda" in words and any(word.split("_", 1)[0] in tables().not_values.kernel_languages for word in words)


def _name_given(node: nodes.NodeNG) -> str | None:
    """The name `node` is a value of: a parameter's default, a keyword argument, or the name a
    comparison (or a collection in one) tests it against."""
    parent = node.parent
    if isinstance(parent, nodes.Keyword):
        return parent.arg
    if isinstance(parent, nodes.Arguments):
        return parameter_of_default(parent, node)
    if isinstance(parent, nodes.Call) and isinstance(parent.func, nodes.Attribute) \
            and parent.func.attrname in _GETTERS and any(arg is node for arg in parent.args[1:]):
        parent = _assigned_by(parent)  # `backend = os.getenv("KERNEL_BACKEND", "cuda").lower()`
    if isinstance(parent, nodes.Assign) and len(parent.targets) == 1 \
            and isinstance(parent.targets[0], nodes.AssignName):
        return parent.targets[0].name
    while isinstance(parent, _COLLECTIONS):
        parent = parent.parent
    if isinstance(parent, nodes.Compare) and len(parent.ops) == 1:
        operands = (parent.left, parent.ops[0][1])
        names = [operand.name for operand in operands if isinstance(operand, nodes.Name)]
        return names[0] if names else None
    return None


def _keys_given(node: nodes.NodeNG) -> set[tuple]:
    """What `node` is a value of, as `_variant_selectors` keys: a name of its function (assigned,
    compared, a parameter's default) or an attribute or key of any object (assigned, compared, the
    default of `getattr(stage, "p2p_backend", "nccl")` or `kwargs.pop("p2p_backend", "nccl")`)."""
    keys = set()
    parent = node.parent
    if isinstance(parent, nodes.Arguments):
        name = parameter_of_default(parent, node)
        if name is not None:
            keys.add((parent.parent, name))
    if isinstance(parent, nodes.Call) and len(parent.args) > 1 and parent.args[-1] is node \
            and _getter_key(parent) is not None:
        keys.add((None, _getter_key(parent)))
    if isinstance(parent, nodes.Assign):
        keys.update(_target_key(target) for target in parent.targets)
    while isinstance(parent, _COLLECTIONS):
        parent = parent.parent
    if isinstance(parent, nodes.Compare) and len(parent.ops) == 1:
        keys.update(_selector_key(operand) for operand in (parent.left, parent.ops[0][1]))
    return keys - {None}


def _target_key(target: nodes.NodeNG) -> tuple | None:
    if isinstance(target, nodes.AssignName):
        return target.scope(), target.name
    if isinstance(target, nodes.AssignAttr):
        return None, target.attrname
    return None


def _getter_key(call: nodes.Call) -> str | None:
    """"p2p_backend" of `getattr(stage, "p2p_backend", ...)` and `kwargs.pop("p2p_backend", ...)`."""
    func = call.func
    if isinstance(func, nodes.Name) and func.name == "getattr" and len(call.args) == 3:
        key = call.args[1]
    elif isinstance(func, nodes.Attribute) and func.attrname in ("get", "pop") and len(call.args) == 2:
        key = call.args[0]
    else:
        return None
    return key.value if isinstance(key, nodes.Const) and isinstance(key.value, str) else None


def _selector_key(operand: nodes.NodeNG) -> tuple | None:
    """What a comparison tests: a name of its function, an attribute (`self.p2p_backend`) or a
    `getattr` of one."""
    if isinstance(operand, nodes.Name):
        return operand.scope(), operand.name
    if isinstance(operand, nodes.Attribute):
        return None, operand.attrname
    if isinstance(operand, nodes.Call) and _getter_key(operand) is not None:
        return None, _getter_key(operand)
    return None


def _variant_selectors(module: nodes.Module) -> frozenset[tuple]:
    """What the module compares with a variant of a CUDA or NCCL word (`backend in {"nccl_rma",
    "nccl_rma_ack"}`, OLMo-core's pipeline P2P backends): a name within its function, an attribute
    anywhere. It picks between the project's own implementations, and its "nccl" or "cuda" is the
    name of one, which its configuration (an Enum's values) spells the same. Kept on the module."""
    cached = getattr(module, "_npu_lint_variant_selectors", None)
    if cached is not None:
        return cached
    selectors = set()
    for compare in module.nodes_of_class(nodes.Compare):
        if len(compare.ops) != 1:
            continue
        sides = (compare.left, compare.ops[0][1])
        for selector, value in (sides, sides[::-1]):
            values = value.elts if isinstance(value, _COLLECTIONS) else [value]
            key = _selector_key(selector)
            if key is not None and any(isinstance(elt, nodes.Const) and isinstance(elt.value, str)
                                       and _VARIANT.match(elt.value) for elt in values):
                selectors.add(key)
    module._npu_lint_variant_selectors = frozenset(selectors)
    return module._npu_lint_variant_selectors


def _language_selectors(module: nodes.Module) -> frozenset[tuple]:
    """What the module compares with a kernel language alone (`self.backend == 'triton'`,
    flash-linear-attention's Mamba layers, whose `if self.backend == 'cuda':` takes causal-conv1d's
    output): a name within its function, an attribute anywhere. Its "cuda" is the CUDA C++ kernel
    beside the Triton one, no device. Kept on the module."""
    cached = getattr(module, "_npu_lint_language_selectors", None)
    if cached is not None:
        return cached
    languages = tables().not_values.kernel_languages
    selectors = set()
    for compare in module.nodes_of_class(nodes.Compare):
        if len(compare.ops) != 1 or compare.ops[0][0] not in ("==", "!="):
            continue
        sides = (compare.left, compare.ops[0][1])
        for selector, value in (sides, sides[::-1]):
            key = _selector_key(selector)
            if key is not None and isinstance(value, nodes.Const) and isinstance(value.value, str) \
                    and value.value in languages:
                selectors.add(key)
    module._npu_lint_language_selectors = frozenset(selectors)
    return module._npu_lint_language_selectors


def _assigned_by(call: nodes.Call) -> nodes.NodeNG:
    """The statement a call's value goes to through text methods (`.lower()`, `.strip()`)."""
    expression = call
    while isinstance(expression.parent, nodes.Attribute) and isinstance(expression.parent.parent, nodes.Call) \
            and expression.parent.attrname in _TEXT_METHODS:
        expression = expression.parent.parent
    return expression.parent


def _implementation_selectors(module: nodes.Module) -> frozenset[str]:
    """Names that the module checks against a set of choices holding "cuda" and a word that is no
    device (`assert impl in ['ref', 'cuda']`), and whose every `== "cuda"` test sits in an `and`
    with a test of a tensor's device. Kept on the module: asked once per string."""
    cached = getattr(module, "_npu_lint_implementation_selectors", None)
    if cached is not None:
        return cached
    device_words = tables().not_values.device_types | _DEVICE_WORDS
    with_other_choices: set[str] = set()
    cuda_tests: dict[str, list[nodes.Compare]] = {}
    kernel_choices: set[str] = set()
    for compare in module.nodes_of_class(nodes.Compare):
        if len(compare.ops) != 1 or not isinstance(compare.left, nodes.Name):
            continue
        operator, right = compare.ops[0]
        if operator in ("in", "not in") and isinstance(right, _COLLECTIONS) and _kernel_languages(right):
            kernel_choices.add(compare.left.name)
        elif operator in ("in", "not in") and isinstance(right, _COLLECTIONS):
            words = [elt.value for elt in right.elts if isinstance(elt, nodes.Const) and isinstance(elt.value, str)]
            if "cuda" in words and any(word.split(":")[0] not in device_words for word in words):
                with_other_choices.add(compare.left.name)
        elif operator in ("==", "!=") and isinstance(right, nodes.Const) and right.value == "cuda":
            cuda_tests.setdefault(compare.left.name, []).append(compare)
    selectors = frozenset(kernel_choices) | frozenset(
        name for name in with_other_choices
        if cuda_tests.get(name) and all(_beside_device_test(test) for test in cuda_tests[name]))
    module._npu_lint_implementation_selectors = selectors
    return selectors


def _beside_device_test(test: nodes.Compare) -> bool:
    """`impl == 'cuda' and x.device.type == 'cuda' and ...`: the choice is one operand of an `and`
    whose other operands test a tensor's device."""
    boolop = test.parent
    return (isinstance(boolop, nodes.BoolOp) and boolop.op == "and"
            and any(_tests_device(value) for value in boolop.values if value is not test))


def _tests_device(expression: nodes.NodeNG) -> bool:
    if isinstance(expression, nodes.Attribute) and expression.attrname == "is_cuda":
        return True
    if not (isinstance(expression, nodes.Compare) and len(expression.ops) == 1):
        return False
    operands = (expression.left, expression.ops[0][1])
    return any(isinstance(operand, nodes.Const) and operand.value == "cuda" for operand in operands) and any(
        isinstance(operand, nodes.Attribute) and operand.attrname in ("type", "device") for operand in operands)
