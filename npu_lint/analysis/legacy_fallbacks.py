"""Imports of a torch.cuda.amp name that only an older torch takes, as the fallback of the same name
from torch.amp:

    if version.parse(torch.__version__) >= version.parse("2.3.0"):   hivemind's optim/grad_scaler.py,
        from torch.amp import GradScaler                                torchrl's trainers/trainers.py
    else:
        from torch.cuda.amp import GradScaler
    try:                                                                espnet2's train/trainer.py
        from torch.amp import GradScaler
    except ImportError:
        from torch.cuda.amp import GradScaler

Where the target's torch has the torch.amp name (data/torch_surface.yaml), the program imports it
from there and never reaches the fallback: the port has nothing to change in it. For an older target
(torch.amp.GradScaler came with torch 2.3) the fallback runs and stays a finding.

The same holds for any code in the branch a torch without some name takes, where the target's
torch has that name (mergekit's common.py):

    return (
        getattr(torch, torch.accelerator.current_accelerator().type)
        if hasattr(torch, "accelerator")
        else torch.cuda
    )

torch.accelerator came with torch 2.6 and answers "npu" on an Ascend host (torch_npu registers its
device with it): the `else` runs only on an older torch, so a finding there is dropped for every
rule (`ModuleContext.report`). A name the table does not track (`hasattr(torch, "xpu")`) says
nothing, and for an older target the fallback runs and stays a finding.

So does the handler that catches a torch.amp call failing on a torch without it (open_clip's
open_clip_train/main.py):

    try:
        scaler = torch.amp.GradScaler(device=device)
    except (AttributeError, TypeError) as e:
        scaler = torch.cuda.amp.GradScaler()

when the `try` holds nothing but calls of torch.amp names the target's torch has, the handler
catches only a missing name or argument, and it calls the torch.cuda.amp twin of one of them.

So does the branch of a test of torch's version that the target's torch does not take
(`if torch_version >= version.parse('2.3'): ... else: torch.backends.cuda.sdp_kernel`, decided in
torch_versions.py).
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.names import qualified_name
from npu_lint.analysis.torch_versions import decided, may_test_torch_version
from npu_lint.knowledge.torch_surface import torch_has

_CUDA_AMP = "torch.cuda.amp"
_MISSING_NAME_ERRORS = frozenset({"AttributeError", "TypeError", "ImportError", "ModuleNotFoundError"})
# torch.amp's names that torch also exports at its top (`from torch.amp import autocast, GradScaler`
# in torch/__init__.py): `from torch import GradScaler` is torch.amp's class (nnU-Net's
# nnUNetTrainer.py: `try: from torch import GradScaler  # torch >= 2.3`)
_TORCH_EXPORTS = frozenset({"GradScaler", "autocast"})


def legacy_amp_fallback(stmt: nodes.ImportFrom, release: str | None) -> bool:
    """Is `stmt` a `from torch.cuda.amp import ...` whose every name the other branch of its `if`, or
    the `try` its `except` handles, imports from torch.amp (or from torch, which exports torch.amp's
    GradScaler and autocast), which the target's torch has?

    An import from a submodule (`from torch.cuda.amp.grad_scaler import OptState`, mirrored by
    `from torch.amp.grad_scaler import OptState`) names nothing the table tracks; it is the fallback
    when it sits in the same branch as such an import of a tracked name (hivemind's
    optim/grad_scaler.py imports GradScaler and then OptState in each branch): the target's torch
    never enters that branch."""
    if stmt.level or not (stmt.modname == _CUDA_AMP or stmt.modname.startswith(_CUDA_AMP + ".")):
        return False
    mirror = "torch.amp" + stmt.modname[len(_CUDA_AMP):]
    neutral = {name for other in _other_branch(stmt) if isinstance(other, nodes.ImportFrom) and not other.level
               for name, _alias in other.names
               if other.modname == mirror or (stmt.modname == _CUDA_AMP and other.modname == "torch"
                                              and name in _TORCH_EXPORTS)}
    if not all(name in neutral for name, _alias in stmt.names):
        return False
    if stmt.modname == _CUDA_AMP:
        return all(torch_has(f"torch.amp.{name}", release) for name, _alias in stmt.names)
    return any(isinstance(sibling, nodes.ImportFrom) and sibling.modname == _CUDA_AMP
               and legacy_amp_fallback(sibling, release) for sibling in _own_branch(stmt))


def _other_branch(stmt: nodes.ImportFrom) -> list:
    parent = stmt.parent
    if isinstance(parent, nodes.If):
        return parent.body if stmt in parent.orelse else parent.orelse
    if isinstance(parent, nodes.ExceptHandler) and isinstance(parent.parent, nodes.Try):
        return parent.parent.body
    return []


def _own_branch(stmt: nodes.ImportFrom) -> list:
    parent = stmt.parent
    if isinstance(parent, nodes.If):
        return parent.orelse if stmt in parent.orelse else parent.body
    if isinstance(parent, nodes.ExceptHandler):
        return parent.body
    return []


def may_test_torch_names(text: str) -> bool:
    """False when the text has no `hasattr(` test nor torch.amp fallback that
    `reached_only_by_older_torch` reads."""
    return "hasattr(" in text or ("except" in text and "cuda.amp" in text) or may_test_torch_version(text)


def reached_only_by_older_torch(node: nodes.NodeNG, release: str | None) -> bool:
    """Is `node` in the branch that `if hasattr(torch, "accelerator")` (or its conditional
    expression) takes where torch lacks that name, while the target's torch has it? Or in the
    handler of a torch.amp call's `try` that falls back to its torch.cuda.amp twin? Or in the branch
    of a test of torch's version that the target's torch does not take?"""
    child, parent = node, node.parent
    while parent is not None:
        if isinstance(parent, nodes.ExceptHandler) and any(child is stmt for stmt in parent.body) \
                and _fallback_of_torch_amp_call(parent, release):
            return True
        if isinstance(parent, (nodes.If, nodes.IfExp)) and child is not parent.test:
            in_else = child is parent.orelse if isinstance(parent, nodes.IfExp) \
                else any(child is stmt for stmt in parent.orelse)
            test = parent.test
            if in_else and _has_torch_name(test, release):
                return True
            if not in_else and isinstance(test, nodes.UnaryOp) and test.op == "not" \
                    and _has_torch_name(test.operand, release):
                return True  # `if not hasattr(torch, "accelerator"): return torch.cuda`
            if decided(test, release) is in_else:
                return True  # `if torch_version >= version.parse("2.3"): ... else: <here>`
        child, parent = parent, parent.parent
    return False


def _has_torch_name(test: nodes.NodeNG, release: str | None) -> bool:
    """`hasattr(torch, "accelerator")` where the target's torch has torch.accelerator."""
    if not (isinstance(test, nodes.Call) and isinstance(test.func, nodes.Name) and test.func.name == "hasattr"
            and len(test.args) == 2 and isinstance(test.args[1], nodes.Const) and isinstance(test.args[1].value, str)):
        return False
    owner = qualified_name(test.args[0])
    return bool(owner) and (owner == "torch" or owner.startswith("torch.")) \
        and torch_has(f"{owner}.{test.args[1].value}", release)


def _fallback_of_torch_amp_call(handler: nodes.ExceptHandler, release: str | None) -> bool:
    trial = handler.parent
    caught = handler.type
    errors = caught.elts if isinstance(caught, nodes.Tuple) else [caught] if caught is not None else []
    if not (isinstance(trial, nodes.Try) and trial.body and errors) or not all(
            isinstance(error, nodes.Name) and error.name in _MISSING_NAME_ERRORS for error in errors):
        return False  # a bare `except` or `Exception` may catch what the call itself raises
    called = [_torch_amp_call(statement) for statement in trial.body]
    if not all(name is not None and torch_has(name, release) for name in called):
        return False
    twins = {_CUDA_AMP + name[len("torch.amp"):] for name in called if name}
    return any(qualified_name(call.func) in twins for call in handler.nodes_of_class(nodes.Call))


def _torch_amp_call(statement: nodes.NodeNG) -> str | None:
    """`torch.amp.GradScaler(...)` of `scaler = torch.amp.GradScaler(...)`, as its name."""
    value = statement.value if isinstance(statement, (nodes.Assign, nodes.Expr)) else None
    name = qualified_name(value.func) if isinstance(value, nodes.Call) else None
    return name if name and name.startswith("torch.amp.") else None
