"""kind: argument -- a call judged by one of its arguments, as written in the source.

    calls:    callees (qualified through the imports) whose `argument` is judged
    argument: keyword name; `position`: its 0-based positional index, when it has one
    missing:  report a call that does not pass it (the default applies)
    values:   report a call that passes it written as one of these texts ("False", "0")
    any_call: callees reported whatever their arguments
    unless_called: stay quiet in a module that calls one of these (a setting that answers the advice);
                   such advice is said once per module, at its first call, the others related
                   (one setting answers them all: transformers' layoutlm made 8 NPU702 findings)
    insert:   "device_type": the fix of a missing argument passes the route's device type (`"npu"`,
              or the accelerator's on the agnostic route): first, where the missing argument is the
              device type (position 0) or the second one of a call written for the overload without
              it (`torch.set_autocast_enabled(True)`, position 1); elsewhere last, by keyword
              (`torch.random.fork_rng(devices=ids, device_type="npu")`)
    quiet_with: keyword -> texts: a call that passes one of them is left alone
              (`GradScaler(enabled=False)` scales nothing on any device)
    quiet_positions: keyword -> position: where a quiet_with argument sits when passed by position
              (`fork_rng([])`)
    outside_tests: stay quiet inside a test function (analysis/test_code.py): advice for training
                   code that a test does on purpose (gradcheck); and where what the call makes is
                   read for its first item only (`next(iter(DataLoader(ds)))`, a sample batch for
                   a plot): no training loop runs on it

A call that passes `*args` or `**kwargs` where the argument could hide is never judged missing.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.device_neutral import expression, insert_first_argument
from npu_lint.analysis.edits import append_keyword_argument
from npu_lint.analysis.names import name_trigger, qualified_name
from npu_lint.analysis.test_code import in_test_function
from npu_lint.checks.base import Check

_MODULE_CALLS = "argument:module-calls"


def argument_value(call: nodes.Call, keyword: str, position: int | None) -> tuple[nodes.NodeNG | None, bool]:
    """(the expression passed, whether the call could pass it unseen through *args / **kwargs)."""
    for item in call.keywords or ():
        if item.arg == keyword:
            return item, False
    hidden = any(item.arg is None for item in call.keywords or ())
    args = call.args or []
    starred = [i for i, arg in enumerate(args) if isinstance(arg, nodes.Starred)]
    if position is not None:
        if starred and starred[0] <= position:
            return None, True
        if len(args) > position:
            return args[position], False
    return None, hidden or bool(starred)


def module_calls(ctx: ModuleContext) -> frozenset[str]:
    """Qualified names of every call in the module (computed once, only when a rule asks)."""
    if _MODULE_CALLS not in ctx.scratch:
        ctx.scratch[_MODULE_CALLS] = frozenset(
            name for call in ctx.module.nodes_of_class(nodes.Call) if (name := qualified_name(call.func)))
    return ctx.scratch[_MODULE_CALLS]


def _read_once(call: nodes.Call) -> bool:
    """`next(iter(DataLoader(dataset)))` (deepinv's examples take one batch to show): the object
    the call makes is iterated for its first item and dropped."""
    inner = call.parent
    if not (isinstance(inner, nodes.Call) and isinstance(inner.func, nodes.Name) and inner.func.name == "iter"
            and inner.args == [call] and not inner.keywords):
        return False
    outer = inner.parent
    return isinstance(outer, nodes.Call) and isinstance(outer.func, nodes.Name) and outer.func.name == "next" \
        and bool(outer.args) and outer.args[0] is inner


class ArgumentCheck(Check):
    node_types = (nodes.Call,)

    def __init__(self, rule, settings):
        super().__init__(rule, settings)
        match = rule.match
        self.calls = frozenset(match.get("calls", ()))
        self.any_call = frozenset(match.get("any_call", ()))
        self.argument = match.get("argument", "")
        self.position = match.get("position")
        self.missing = match.get("missing", False)
        self.values = frozenset(match.get("values", ()))
        self.unless_called = frozenset(match.get("unless_called", ()))
        self.insert = match.get("insert")
        self.quiet_with = {name: frozenset(texts) for name, texts in match.get("quiet_with", {}).items()}
        self.quiet_positions = match.get("quiet_positions", {})
        self.outside_tests = match.get("outside_tests", False)

    def triggers(self) -> frozenset:
        return frozenset(name_trigger(name) for name in self.calls | self.any_call)

    def visit(self, node: nodes.Call, ctx: ModuleContext) -> None:
        qname = qualified_name(node.func)
        if qname is None or (qname not in self.calls and qname not in self.any_call):
            return
        if self._quiet(node, ctx):
            return
        if self.outside_tests and (in_test_function(node) or _read_once(node)):
            return
        target, value, edits, agnostic_edits = node, "", (), ()
        if qname not in self.any_call:
            passed, hidden = argument_value(node, self.argument, self.position)
            if passed is None:
                if hidden or not self.missing:
                    return
                value = "not given"
                if self.insert:
                    edits, agnostic_edits = self._inserted(ctx, node)
            else:
                expression = passed.value if isinstance(passed, nodes.Keyword) else passed
                value = ctx.node_text(expression)
                if value not in self.values:
                    return
                target = passed
        if self.unless_called:
            if not module_calls(ctx) & self.unless_called:
                ctx.scratch.setdefault(self, []).append((target, qname, value))
            return
        ctx.report(self.rule, target, edits=edits, agnostic_edits=agnostic_edits, qname=qname,
                   argument=self.argument, value=value)

    def _quiet(self, call: nodes.Call, ctx: ModuleContext) -> bool:
        for name, texts in self.quiet_with.items():
            passed, _hidden = argument_value(call, name, self.quiet_positions.get(name))
            if passed is not None:
                expression_node = passed.value if isinstance(passed, nodes.Keyword) else passed
                if ctx.node_text(expression_node) in texts:
                    return True
        return False

    def _inserted(self, ctx: ModuleContext, call: nodes.Call) -> tuple[tuple, tuple]:
        """The edits that pass the device type: (NPU route, agnostic route)."""
        def edit(text: str):
            if self.position in (0, 1):
                return insert_first_argument(ctx, call, text)
            return append_keyword_argument(ctx, call, f"{self.argument}={text}")
        npu = edit('"npu"')
        neutral_text = expression(ctx, self.insert)
        neutral = edit(neutral_text) if neutral_text else None
        return (npu,) if npu else (), (neutral,) if neutral else ()

    def leave_module(self, ctx: ModuleContext) -> None:
        pending = ctx.scratch.get(self, [])
        for index, (target, qname, value) in enumerate(pending):
            said = len(ctx.findings)
            others = tuple(ctx.related(node, f"`{name}` here too") for node, name, _ in pending[index + 1:])
            ctx.report(self.rule, target, related=others, qname=qname, argument=self.argument, value=value)
            if len(ctx.findings) > said:
                return  # said; a call on a path the NPU never takes (dropped) hands on to the next
