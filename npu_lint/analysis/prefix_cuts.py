"""The slices that cut a tested prefix off a string: `if device.startswith("cuda:"): index =
int(device[5:])` (TotalSegmentator's python_api.py takes the index after `startswith("cuda")` with
`device[5:]`). Renamed alone to "npu:", the test holds but `[5:]` cuts one character too many:
`int("")` stops, and "npu:12" becomes index 2. The cut takes the new prefix's length with the rename.
"""
from __future__ import annotations

from typing import Iterator, Optional

from astroid import nodes

_EXITS = (nodes.Raise, nodes.Return, nodes.Continue, nodes.Break)


def prefix_cut_bounds(test: nodes.Call, prefix: str) -> list[nodes.Const]:
    """The literal starts `k` of `x[k:]` in code that runs only while `x.startswith(prefix)` holds,
    where `k` is the prefix's length or, for a prefix without its colon ("cuda"), one more: the
    cut that leaves the device index."""
    if not (isinstance(test.func, nodes.Attribute) and test.func.attrname == "startswith"):
        return []
    subject = test.func.expr
    if not isinstance(subject, (nodes.Name, nodes.Attribute)):
        return []
    lengths = {len(prefix)} | (set() if prefix.endswith(":") else {len(prefix) + 1})
    text = subject.as_string()
    found = {id(bound): bound for region in _held_regions(test) for bound in _cut_starts(region, text)
             if bound.value in lengths}
    return list(found.values())


def _held_regions(test: nodes.NodeNG) -> Iterator[nodes.NodeNG]:
    """The nodes that run only where `test` is true: what an `and` evaluates after it, the body of
    the `if` it decides, and the statements after an `if not test:` whose body always leaves."""
    node, positive = test, True
    while True:
        parent = node.parent
        if isinstance(parent, nodes.UnaryOp) and parent.op == "not":
            positive = not positive
        elif isinstance(parent, nodes.BoolOp) and parent.op == ("and" if positive else "or"):
            yield from parent.values[parent.values.index(node) + 1:]
        elif isinstance(parent, (nodes.If, nodes.IfExp)) and parent.test is node:
            yield from _branch_taken(parent, positive)
            return
        else:
            return
        node = parent


def _branch_taken(branching: nodes.If | nodes.IfExp, positive: bool) -> Iterator[nodes.NodeNG]:
    if isinstance(branching, nodes.IfExp):
        yield branching.body if positive else branching.orelse
        return
    yield from branching.body if positive else branching.orelse
    if not positive and branching.body and isinstance(branching.body[-1], _EXITS):
        yield from _statements_after(branching)


def _statements_after(statement: nodes.NodeNG) -> list[nodes.NodeNG]:
    block = _block_of(statement)
    return block[block.index(statement) + 1:] if block is not None else []


def _block_of(statement: nodes.NodeNG) -> Optional[list[nodes.NodeNG]]:
    parent = statement.parent
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and statement in block:
            return block
    return None


def _cut_starts(region: nodes.NodeNG, subject: str) -> Iterator[nodes.Const]:
    """The literal starts of `subject[k:]` in `region` (the region itself included)."""
    for subscript in region.nodes_of_class(nodes.Subscript):
        piece = subscript.slice
        if isinstance(piece, nodes.Slice) and piece.step is None and isinstance(piece.lower, nodes.Const) \
                and type(piece.lower.value) is int and subscript.value.as_string() == subject:
            yield piece.lower
