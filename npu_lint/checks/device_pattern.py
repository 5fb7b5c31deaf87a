"""check: device_pattern_without_npu (NPU122) -- a regular expression that lists the devices a
program accepts, CUDA's among them, and not the NPU.

InvokeAI validates its `device` setting with `Field(pattern=r"^(auto|cpu|mps|xpu(:\\d+)?|cuda(:\\d+)?)$")`
and its `generation_devices` with `re.compile(...)` of the same list: once the program runs on the
NPU, "npu:1" is refused where "cuda:1" was taken. A pattern is a string given to `re`'s compiling
and matching functions or a `pattern=`/`regex=` argument; it lists devices when "cuda" is one
alternative of a group (`|cuda(`, `|cuda)`) beside another device type (`cpu`, `mps`, `xpu`).
The fix adds the NPU as one more alternative, with CUDA's index suffix: `cuda(:\\d+)?|npu(:\\d+)?`.
"""
from __future__ import annotations

import re

from astroid import nodes

from npu_lint.analysis.arguments import tables
from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.names import qualified_name
from npu_lint.checks.base import Check
from npu_lint.core.findings import Edit, Position

_RE_CALLS = frozenset({"re.compile", "re.match", "re.fullmatch", "re.search"})
_PATTERN_KEYWORDS = frozenset({"pattern", "regex"})
# "cuda" as a whole alternative: after `(`, `|` or `^`, before `(`, `|`, `)`, `$` or the end
_CUDA_ALTERNATIVE = re.compile(r"(?<=[(|^])cuda(?=[(|)$]|\Z)")
_RAW_STRING = re.compile(r"[rR][bB]?|[bB][rR]")


class DevicePatternWithoutNpu(Check):
    node_types = (nodes.Const,)

    def triggers(self) -> frozenset:
        return frozenset()

    def string_triggers(self) -> frozenset[str]:
        return frozenset({"|cuda"})

    def visit(self, node, ctx: ModuleContext) -> None:
        value = node.value
        if not isinstance(value, str) or "npu" in value or not _is_pattern(node):
            return
        match = _CUDA_ALTERNATIVE.search(value)
        if match is None or not _lists_other_devices(value):
            return
        suffix = _group_after(value, match.end())
        edit = _insert_edit(ctx, node, value, match.end() + len(suffix), "|npu" + suffix)
        ctx.report(self.rule, node, edits=(edit,) if edit else (), alternative="npu" + suffix)


def _is_pattern(node: nodes.Const) -> bool:
    parent = node.parent
    if isinstance(parent, nodes.Keyword):
        return parent.arg in _PATTERN_KEYWORDS
    return isinstance(parent, nodes.Call) and bool(parent.args) and parent.args[0] is node \
        and qualified_name(parent.func) in _RE_CALLS


def _lists_other_devices(value: str) -> bool:
    names = set(re.findall(r"[a-z]+", value))
    return bool(names & tables().not_values.device_types)


def _group_after(value: str, index: int) -> str:
    """The group and quantifier that follow "cuda" (`(:\\d+)?`), or nothing."""
    if index >= len(value) or value[index] != "(":
        return ""
    depth = 0
    for position in range(index, len(value)):
        depth += {"(": 1, ")": -1}.get(value[position], 0)
        if depth == 0:
            end = position + 1
            if end < len(value) and value[end] in "?*+":
                end += 1
            return value[index:end]
    return ""


def _insert_edit(ctx: ModuleContext, node: nodes.Const, value: str, offset: int, text: str) -> Edit | None:
    """Insert `text` at `offset` of the literal's value; only a one-line raw string (or one without
    backslashes) spells its value as written."""
    start, end = ctx.start(node), ctx.end(node)
    if start.line != end.line:
        return None
    source = ctx.index.line(start.line)[start.column:end.column]
    quote = re.match(r"([a-zA-Z]*)('''|\"\"\"|'|\")", source)
    if quote is None or source[quote.end():len(source) - len(quote.group(2))] != value:
        return None
    if "\\" in value and not _RAW_STRING.fullmatch(quote.group(1)):
        return None
    column = start.column + quote.end() + offset
    return Edit(Position(start.line, column), Position(start.line, column), text)
