"""What a method is called on: a Tensor, an nn.Module, a CUDA object, or unknown.

Inference runs only here, and only for nodes a rule already matched by name,
because inferring every call is what makes linters slow (DESIGN.md section 3).
"""
from __future__ import annotations

import enum

import astroid
from astroid import nodes, util

from npu_lint.analysis.names import qualified_name

TENSOR_CLASS = "torch.Tensor"
MODULE_CLASS = "torch.nn.Module"
CUDA_PREFIX = "torch.cuda."
MAX_INFERRED = 8  # a receiver with more candidates than this is "unknown"


class ReceiverKind(str, enum.Enum):
    TENSOR = "tensor"
    MODULE = "module"
    CUDA_OBJECT = "cuda-object"
    OTHER = "other"  # inferred to something that is not torch's
    UNKNOWN = "unknown"


def _class_kind(cls: nodes.ClassDef, method: str | None) -> ReceiverKind:
    try:
        ancestors = list(cls.ancestors())
        lineage = [cls.qname()] + [base.qname() for base in ancestors]
    except Exception:
        return ReceiverKind.UNKNOWN
    if TENSOR_CLASS in lineage:
        return ReceiverKind.TENSOR
    if MODULE_CLASS in lineage:
        return ReceiverKind.MODULE
    if any(name.startswith(CUDA_PREFIX) for name in lineage):
        return ReceiverKind.CUDA_OBJECT
    if method is not None and _may_inherit(method, [cls, *ancestors]):
        return ReceiverKind.UNKNOWN
    return ReceiverKind.OTHER


def class_kind(cls: nodes.ClassDef) -> ReceiverKind:
    """What instances of a class are: a Tensor, a Module, a CUDA object, or another class
    (OTHER, also where a base astroid cannot see would decide it)."""
    return _class_kind(cls, None)


def _may_inherit(method: str, classes: list[nodes.ClassDef]) -> bool:
    """Can `method` come from a base astroid cannot see? `class Lit(pl.LightningModule)` with
    Lightning not installed: `Lit().cuda()` is a Module's, not a method of the user's own."""
    if any(method in cls.locals for cls in classes):
        return False  # the class (or a base astroid sees) defines it: the user's own method
    return any(_has_unseen_base(cls) for cls in classes)


def _has_unseen_base(cls: nodes.ClassDef) -> bool:
    for base in cls.bases:
        try:
            inferred = list(base.infer())
        except Exception:  # astroid raises assorted errors on bases it cannot infer
            return True
        if not inferred or any(value is util.Uninferable for value in inferred):
            return True
    return False


def _value_kind(value, method: str | None) -> ReceiverKind:
    if value is util.Uninferable:
        return ReceiverKind.UNKNOWN
    if isinstance(value, astroid.bases.Instance) and not isinstance(value, nodes.Const):
        proxied = getattr(value, "_proxied", None)
        if isinstance(proxied, nodes.ClassDef):
            return _class_kind(proxied, method)
    return ReceiverKind.OTHER


_BUILTIN_LITERALS = ((nodes.List, list), (nodes.Tuple, tuple), (nodes.Dict, dict), (nodes.Set, set))


def _builtin_without(value, method: str) -> bool:
    """A literal or builtin container that has no attribute `method`: never the receiver."""
    if isinstance(value, nodes.Const):
        return not hasattr(type(value.value), method)
    return any(isinstance(value, node_type) and not hasattr(python_type, method)
               for node_type, python_type in _BUILTIN_LITERALS)


# Kinds in order of precedence when a receiver has several candidates.
_PRECEDENCE = (ReceiverKind.TENSOR, ReceiverKind.MODULE, ReceiverKind.CUDA_OBJECT)


def receiver_kind(node: nodes.NodeNG, method: str | None = None) -> ReceiverKind:
    """Classify the value of an expression; never raises. With `method` (the one called on it),
    an instance of the user's own class whose bases astroid cannot all see is unknown, unless
    the class defines `method` itself."""
    kinds = set()
    try:
        for count, value in enumerate(node.infer()):
            if count >= MAX_INFERRED:
                return ReceiverKind.UNKNOWN
            if isinstance(value, nodes.Const) and value.value is None:
                # `self.model = None` in `__init__`, set later: a call on None fails, so the
                # call reaches only the other values
                continue
            if method is not None and _builtin_without(value, method):
                # `model = []`, appended to, then `for model_module in model: model_module.cuda()`
                # (NeMo's build_model): astroid offers the list itself, which has no `.cuda()`
                continue
            kinds.add(_value_kind(value, method))
    except Exception:
        # Inference can fail in many ways on half-written code; an
        # unknown receiver is still reported, at lower confidence.
        kinds.add(ReceiverKind.UNKNOWN)
    for kind in _PRECEDENCE:
        if kind in kinds:
            return kind
    if ReceiverKind.OTHER in kinds:
        return ReceiverKind.OTHER  # the user's own class: stay quiet
    return _narrowed_by_isinstance(node) or ReceiverKind.UNKNOWN


# What `isinstance(x, <class>)` makes `x` in the branch it guards.
_NARROWING_CLASSES = {TENSOR_CLASS: ReceiverKind.TENSOR, MODULE_CLASS: ReceiverKind.MODULE}
# Tests of one argument that prove it a Tensor: `torch.is_tensor(x)`.
_NARROWING_TESTS = {"torch.is_tensor": ReceiverKind.TENSOR}


def _narrowed_by_isinstance(node: nodes.NodeNG) -> ReceiverKind | None:
    """`if isinstance(tensors, torch.Tensor): return tensors.cuda()` (asteroid's to_cuda, FunASR's
    export_utils), `v.cuda() if isinstance(v, torch.Tensor) else v`, `if torch.is_tensor(inputs[key]):
    inputs[key].cuda()` (pythae's trainer): a value inference cannot follow (a parameter, an item
    of one, an attribute) is a Tensor (or a Module) in the branch that `isinstance` with torch's
    class or `torch.is_tensor` guards, unless the branch binds it again before the use."""
    if not _narrowable(node):
        return None
    child, parent = node, node.parent
    while parent is not None and not isinstance(parent, (nodes.FunctionDef, nodes.ClassDef, nodes.Module)):
        if isinstance(parent, nodes.If) and any(child is statement for statement in parent.body) \
                or isinstance(parent, nodes.IfExp) and child is parent.body:
            kind = _isinstance_kind(parent.test, node)
            if kind is not None and not _rebound_before(parent, node):
                return kind
        child, parent = parent, parent.parent
    return None


def _narrowable(node: nodes.NodeNG) -> bool:
    """A name, or an item or attribute path over names and constants (`inputs[key]`, `self.x`):
    the same text names the same value until the branch binds one of its names again."""
    if isinstance(node, nodes.Name):
        return True
    if isinstance(node, nodes.Attribute):
        return _narrowable(node.expr)
    if isinstance(node, nodes.Subscript):
        return _narrowable(node.value) and (isinstance(node.slice, nodes.Const) or _narrowable(node.slice))
    return False


def _isinstance_kind(test: nodes.NodeNG, node: nodes.NodeNG) -> ReceiverKind | None:
    """The kind `test` (or a part of its `and`) proves `node` to be: `isinstance(name, torch.Tensor)`,
    `torch.is_tensor(name)`."""
    if isinstance(test, nodes.BoolOp) and test.op == "and":
        return next(filter(None, (_isinstance_kind(part, node) for part in test.values)), None)
    if not isinstance(test, nodes.Call) or test.keywords:
        return None
    if isinstance(test.func, nodes.Name) and test.func.name == "isinstance" and len(test.args) == 2:
        subject, cls = test.args
        kind = _NARROWING_CLASSES.get(qualified_name(cls) or "")
    elif len(test.args) == 1:
        subject, kind = test.args[0], _NARROWING_TESTS.get(qualified_name(test.func) or "")
    else:
        return None
    if kind is None or type(subject) is not type(node) or subject.as_string() != node.as_string():
        return None
    return kind


def _rebound_before(branching: nodes.If | nodes.IfExp, node: nodes.NodeNG) -> bool:
    """Does the guarded branch bind a name `node` reads before `node` is read (`x = x.tolist()`
    first), or store into the same item or attribute (`inputs[key] = ...`)?"""
    if isinstance(branching, nodes.IfExp):
        return False
    read = {name.name for name in _names_in(node)}
    text = node.as_string()
    for statement in branching.body:
        for bound in statement.nodes_of_class((nodes.AssignName, nodes.AssignAttr, nodes.Subscript)):
            if bound.lineno >= node.lineno:
                continue
            if isinstance(bound, nodes.AssignName) and bound.name in read:
                return True
            if not isinstance(bound, nodes.AssignName) and _is_store(bound) and bound.as_string() == text:
                return True
    return False


def _names_in(node: nodes.NodeNG):
    if isinstance(node, nodes.Name):
        yield node
    else:
        yield from node.nodes_of_class(nodes.Name)


def _is_store(node: nodes.NodeNG) -> bool:
    """An attribute or item a statement writes: `self.x = ...`, `inputs[key] = ...`."""
    if isinstance(node, nodes.AssignAttr):
        return True
    parent = node.parent
    return isinstance(parent, (nodes.Assign, nodes.AugAssign, nodes.AnnAssign)) and node in (
        getattr(parent, "targets", None) or [getattr(parent, "target", None)])
