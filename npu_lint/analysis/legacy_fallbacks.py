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
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.knowledge.torch_surface import torch_has

_CUDA_AMP = "torch.cuda.amp"


def legacy_amp_fallback(stmt: nodes.ImportFrom, release: str | None) -> bool:
    """Is `stmt` a `from torch.cuda.amp import ...` whose every name the other branch of its `if`, or
    the `try` its `except` handles, imports from torch.amp, which the target's torch has?"""
    if stmt.level or stmt.modname != _CUDA_AMP:
        return False
    neutral = {name for other in _other_branch(stmt) if isinstance(other, nodes.ImportFrom)
               and not other.level and other.modname == "torch.amp" for name, _alias in other.names}
    return all(name in neutral and torch_has(f"torch.amp.{name}", release) for name, _alias in stmt.names)


def _other_branch(stmt: nodes.ImportFrom) -> list:
    parent = stmt.parent
    if isinstance(parent, nodes.If):
        return parent.body if stmt in parent.orelse else parent.orelse
    if isinstance(parent, nodes.ExceptHandler) and isinstance(parent.parent, nodes.Try):
        return parent.parent.body
    return []
