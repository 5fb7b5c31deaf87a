"""Statements after a `raise`, `return`, `continue` or `break` of the same block never run.

muse-maskgit-pytorch 0.3.5's attend.py sends every call to its fallback with a raise left in
front of the SDPA path:

    try:
        raise Exception()
        with torch.backends.cuda.sdp_kernel(**self.cuda_config._asdict()):
            out = F.scaled_dot_product_attention(q, k, v, ...)
    except:
        out = FlashAttentionFunction.apply(q, k, v, mask, False, 512, 512)

No device runs the `with`, so a port has nothing to change in it (`ModuleContext.report` drops
findings there, for every rule). The handler runs and keeps its findings, and so does what follows
a jump that only a branch takes (`if x: return`).
"""
from __future__ import annotations

from astroid import nodes

_JUMPS = (nodes.Raise, nodes.Return, nodes.Continue, nodes.Break)


def after_jump(node: nodes.NodeNG) -> bool:
    """Does a statement around `node` follow a `raise`/`return`/`continue`/`break` in its block?
    Asked only for a finding: it climbs to the module's own statements (a module-level `raise`
    stops the import, and its block is the longest to read) and reads each block up to `node`'s."""
    child, parent = node, node.parent
    while parent is not None and not isinstance(parent, nodes.Module):
        if child.is_statement:
            try:
                block = parent.child_sequence(child)
            except Exception:  # astroid raises when the child sits in no list of its parent
                block = None
            if isinstance(block, list):
                for statement in block:
                    if statement is child:
                        break
                    if isinstance(statement, _JUMPS):
                        return True
        child, parent = parent, parent.parent
    return False

