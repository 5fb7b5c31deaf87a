"""kind: string -- device and backend strings such as "cuda:0" and "nccl".

`argument: device` matches strings in device positions (safe to rewrite);
`outside_argument: device` matches the same strings anywhere else but prose
(an argparse default, a comparison), where a rewrite may change meaning.
"""
from __future__ import annotations

import re

from astroid import nodes

from npu_lint.analysis import device_neutral, edits
from npu_lint.analysis.arguments import argument_role, is_docstring
from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.transfer import call_is_wrapped, enclosing_call
from npu_lint.checks.base import Check


def string_template(node: nodes.NodeNG) -> str | None:
    """The value of a str literal; f-strings with `{}` for each placeholder."""
    if isinstance(node, nodes.Const):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, nodes.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, nodes.Const) and isinstance(value.value, str):
                parts.append(value.value)
            else:
                parts.append("{}")
        return "".join(parts)
    return None


def value_expression(node: nodes.NodeNG) -> nodes.NodeNG:
    """The expression whose role counts: `"cuda:{}".format(r)` is one value."""
    while True:
        parent = node.parent
        if isinstance(parent, nodes.Attribute) and parent.attrname == "format" and isinstance(
            parent.parent, nodes.Call
        ) and parent.parent.func is parent:
            node = parent.parent
        elif isinstance(parent, nodes.BinOp) and parent.op == "%" and parent.left is node:
            node = parent
        elif isinstance(parent, nodes.IfExp) and node is not parent.test:
            node = parent
        else:
            return node


def is_compared(node: nodes.NodeNG) -> bool:
    """`x == "cuda"`, `"cuda" in s`, `s.startswith("cuda")`."""
    parent = node.parent
    if isinstance(parent, nodes.Compare):
        return True
    return (
        isinstance(parent, nodes.Call) and isinstance(parent.func, nodes.Attribute)
        and parent.func.attrname in ("startswith", "endswith") and node in parent.args
    )


class StringCheck(Check):
    node_types = (nodes.Const, nodes.JoinedStr)

    def __init__(self, rule, settings):
        super().__init__(rule, settings)
        self.pattern = re.compile(rule.match["pattern"])
        self.inside = rule.match.get("argument")
        self.outside = rule.match.get("outside_argument")
        self.replace = dict(rule.match.get("replace", {}))
        self.outside_wrapper = rule.match.get("outside_wrapper")  # auto: what transfer_to_npu misses
        self.only_in = rule.match.get("only_in")

    def triggers(self) -> frozenset:
        return frozenset()

    def string_triggers(self) -> frozenset[str]:
        # `replace` keys are what the string starts with; `triggers` are given as written.
        return frozenset(self.rule.match.get("triggers", ())) | frozenset("^" + key for key in self.replace)

    def visit(self, node, ctx: ModuleContext) -> None:
        if isinstance(node.parent, nodes.JoinedStr):
            return  # a part of an f-string: the f-string is matched as a whole
        value = string_template(node)
        if value is None or not self.pattern.search(value):
            return
        if is_docstring(node):
            return
        expression = value_expression(node)
        role = argument_role(expression)
        if role == "prose":
            return
        if self.inside is not None and role != self.inside:
            return
        if self.outside is not None and role == self.outside:
            return
        if self.only_in == "comparison" and not is_compared(expression):
            return
        if self.outside_wrapper is not None:
            call = enclosing_call(expression)
            release = self.settings.release
            if call is not None and call_is_wrapped(call, self.outside_wrapper, release):
                return  # transfer_to_npu rewrites this argument at run time
        edit = None
        for old, new in self.replace.items():
            edit = edits.string_prefix_edit(ctx, node, old, new)
            if edit:
                break
        neutral = None
        if self.settings.strategy == "agnostic" and self.rule.agnostic:
            neutral = device_neutral.string_edit(ctx, node, self.rule.agnostic.get("expression", "device"))
        ctx.report(self.rule, node, edits=(edit,) if edit else (), value=value,
                   replacement=_replaced(value, self.replace),
                   agnostic_edits=neutral[1] if neutral else (), agnostic=neutral[0] if neutral else "")


def _replaced(value: str, replace: dict[str, str]) -> str:
    for old, new in replace.items():
        if value.startswith(old):
            return new + value[len(old):]
    return value
