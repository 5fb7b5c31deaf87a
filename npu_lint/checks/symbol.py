"""kind: symbol -- a qualified name (or prefix) such as torch.distributed.Backend.NCCL.

Fixes, when the rule gives one: `replace_last` renames the last segment in
place (`Backend.NCCL` -> `Backend.HCCL`); `replace_prefix` rewrites a name
written out in full (`torch.profiler.profile` -> `torch_npu.profiler.profile`).

A rule without such a fix says a decorated function once: stacked decorators it matches
(`@triton.autotune(...)`, `@triton.heuristics(...)`, `@triton.jit` on one kernel) are one
finding, on the outermost, with the others as related locations. It says a class once too:
a subclass's own uses of its flagged base (`DataParallel.__init__(self, ...)` in
`class MultiDeviceKernel(DataParallel)`, gpytorch) are part of being one, said at the base. And
a setting once: a name read in the value assigned to it (`cudnn.enabled = cfg.get("cudnn_enabled",
cudnn.enabled)`, funasr) is said at the target, and so is one that is saved and put back around
it (k-diffusion's `tf32_mode`: `old = cudnn.allow_tf32; cudnn.allow_tf32 = new; ...
cudnn.allow_tf32 = old`): the save and the restore go with the setting.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis import edits
from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.cpu_device import in_cpu_call
from npu_lint.analysis.names import (ATTRIBUTE_NODES, chain_parts, in_annotation, in_type_test, is_chain_top,
                                     name_trigger, outermost_attribute, qualified_name)
from npu_lint.analysis.arguments import tables
from npu_lint.analysis.not_values import comparison_of
from npu_lint.analysis.npu_modules import uses_npu_build
from npu_lint.analysis.probes import probed
from npu_lint.checks.base import Check
from npu_lint.checks.device_choice import absorb, fold_device_strings
from npu_lint.core.findings import Edit
from npu_lint.core.suppression_comments import may_hide


class SymbolCheck(Check):
    node_types = (*ATTRIBUTE_NODES, nodes.Name)

    def __init__(self, rule, settings):
        super().__init__(rule, settings)
        self.symbols = frozenset(rule.match.get("symbols", ()))
        self.prefixes = tuple(rule.match.get("prefixes", ()))
        self.replace_last = rule.match.get("replace_last")
        self.replace_prefix = dict(rule.match.get("replace_prefix", {}))
        self.suggestion = rule.match.get("suggestion", "")
        # per name (or prefix of names): what to do instead, where one advice does not fit all
        self.suggestions = dict(rule.match.get("suggestions", {}))
        self.quiet_on_cpu = rule.match.get("quiet_on_cpu", False)
        self.quiet_in_type_tests = rule.match.get("quiet_in_type_tests", False)
        self.quiet_in_queries = rule.match.get("quiet_in_queries", False)
        self.quiet_in_device_tables = rule.match.get("quiet_in_device_tables", False)
        # callables whose arguments must move with them: an argument fixed alone would hand
        # torch_npu's value to torch's callable (torch's profile with torch_npu's schedule)
        self.fix_with_callee = frozenset(rule.match.get("fix_with_callee", ()))

    def triggers(self) -> frozenset:
        return frozenset(name_trigger(name) for name in (*self.symbols, *self.prefixes))

    def matches(self, qname: str) -> bool:
        return qname in self.symbols or any(
            qname == prefix or qname.startswith(prefix + ".") for prefix in self.prefixes
        )

    def visit(self, node, ctx: ModuleContext) -> None:
        if not is_chain_top(node) or in_annotation(node):
            return
        # One finding per chain, at its longest matching part: a prefix rule
        # flags all of `torch.backends.cudnn.benchmark`, a symbol rule flags
        # `dist.Backend.NCCL` inside `dist.Backend.NCCL.value`.
        parts = chain_parts(node)
        for index, (node, qname) in enumerate(parts):
            if self.matches(qname):
                break
        else:
            return
        if self.quiet_on_cpu and in_cpu_call(outermost_attribute(node)):
            return  # `device="cpu"` in the same call: not an NPU concern
        if self.quiet_in_type_tests and in_type_test(outermost_attribute(node)):
            return  # `isinstance(model, nn.DataParallel)` asks; the construction is what to port
        if self.quiet_in_device_tables and _device_table_entry(outermost_attribute(node)):
            return  # `{'cuda': MMDataParallel, 'cpu': MMDataParallel}`: built by device elsewhere
        if self.quiet_in_queries and _asked_about(outermost_attribute(node)):
            return  # `x.is_contiguous(memory_format=torch.channels_last)` asks; a conversion is what to port
        if probed(outermost_attribute(node)):
            return  # `hasattr(torch.backends.cudnn, "flags")` asks whether a name exists; it uses nothing
        if uses_npu_build(ctx, qname):
            return  # `@triton.jit` in the project's Ascend kernels: compiled by triton-ascend
        related = ()
        if not (self.replace_last or self.replace_prefix):
            stacked = self._stacked_decorators(outermost_attribute(node))
            if stacked and stacked[0][0] is not node:
                return  # said at the outermost decorator of this function
            related = tuple(ctx.related(other, f"`{other_qname}` decorates the same function")
                            for other, other_qname in stacked[1:])
            if _inside_subclass_of(node, qname):
                return  # said at the class's base
            if _read_for_own_write(outermost_attribute(node), qname):
                return  # said at the write
            if _saved_for_restore(outermost_attribute(node), qname) \
                    or _restores_saved(outermost_attribute(node), qname):
                return  # said at the setting the save and the restore are around
        replacement, edit = self._replacement(qname, parts[index:], ctx)
        if edit is not None and self._callee_stays(outermost_attribute(node), ctx):
            edit = None
        if edit is not None and self._arguments_stay(outermost_attribute(node), qname, ctx):
            edit = None
        count = len(ctx.findings)
        ctx.report(
            self.rule, node, edits=(edit,) if edit else (), related=related,
            qname=qname, replacement=replacement, suggestion=self._suggestion(qname),
        )
        if len(ctx.findings) > count and _called_bare(node):
            ctx.scratch.setdefault(self, []).append((node, ctx.findings[-1]))
        if len(ctx.findings) > count and self.fix_with_callee:
            self._note_callee_part(outermost_attribute(node), qname, ctx.findings[-1], ctx)

    def leave_module(self, ctx: ModuleContext) -> None:
        if self.settings.strategy == "manual" and self in ctx.scratch:
            # `"nccl" if dist.is_nccl_available() else "gloo"`: the backend is part of the test's port
            fold_device_strings(ctx, ctx.scratch[self])
        if (self, "callee parts") in ctx.scratch:
            _fold_into_callees(ctx, *ctx.scratch[(self, "callee parts")])

    def _note_callee_part(self, top, qname: str, finding, ctx: ModuleContext) -> None:
        """Remember a finding on a `fix_with_callee` call (`torch.profiler.profile(...)`), or on an
        argument of one (`torch.profiler.ProfilerActivity.CPU`, `torch.profiler.schedule(...)`)."""
        callees, arguments = ctx.scratch.setdefault((self, "callee parts"), ({}, []))
        if isinstance(top.parent, nodes.Call) and top.parent.func is top and qname in self.fix_with_callee:
            callees[top.parent] = finding
            return
        call = self._callee_call(top)
        if call is not None:
            arguments.append((call, finding))

    def _callee_call(self, top) -> nodes.Call | None:
        """The `fix_with_callee` call whose argument `top` is (directly, or in a list or keyword)."""
        expression = top.parent if isinstance(top.parent, nodes.Call) and top.parent.func is top else top
        while isinstance(expression.parent, (nodes.List, nodes.Tuple, nodes.Set, nodes.Keyword, nodes.Starred)):
            expression = expression.parent
        call = expression.parent
        if not isinstance(call, nodes.Call) or call.func is expression:
            return None
        return call if qualified_name(call.func) in self.fix_with_callee else None

    def _callee_stays(self, top, ctx: ModuleContext) -> bool:
        """Is `top` an argument of a `fix_with_callee` call that no fix rewrites, because the
        callee is not written out in full (`from torch.profiler import profile`)?"""
        if not self.fix_with_callee:
            return False
        call = self._callee_call(top)
        return call is not None and ctx.node_text(call.func) != qualified_name(call.func)

    def _arguments_stay(self, top, qname: str, ctx: ModuleContext) -> bool:
        """Is `top` the callee of a `fix_with_callee` call one of whose arguments names what the
        callee's package holds without writing it out in full, so that no fix renames it?
        `torch.profiler.profile(activities=[ProfilerActivity.CUDA])` after `from torch.profiler
        import ProfilerActivity` (TorchANI's tools/tool_utils.py): torch_npu's profile would get
        torch's activity, which it does not recognise, so the call keeps its name as well."""
        call = top.parent
        if qname not in self.fix_with_callee or not (isinstance(call, nodes.Call) and call.func is top):
            return False
        packages = tuple(old + "." for old in self.replace_prefix)
        arguments = [*call.args, *(keyword.value for keyword in call.keywords or ())]
        return any((qualified_name(part) or "").startswith(packages) and ctx.node_text(part) != qualified_name(part)
                   for argument in arguments for part in argument.nodes_of_class((nodes.Name, nodes.Attribute)))

    def _suggestion(self, qname: str) -> str:
        parts = qname.split(".")
        for end in range(len(parts), 0, -1):  # the longest listed prefix
            text = self.suggestions.get(".".join(parts[:end]))
            if text is not None:
                return text
        return self.suggestion

    def _matched_part(self, top) -> tuple | None:
        """(node, qualified name) of the longest part of a chain this rule matches, else None."""
        return next(((part, qname) for part, qname in chain_parts(top) if self.matches(qname)), None)

    def _stacked_decorators(self, top) -> list:
        """The decorators of the function `top` decorates that this rule matches, outermost first;
        empty when `top` is not a decorator."""
        decorator = top.parent if isinstance(top.parent, nodes.Call) and top.parent.func is top else top
        if not isinstance(decorator.parent, nodes.Decorators):
            return []
        found = []
        for expression in decorator.parent.nodes:
            callee = expression.func if isinstance(expression, nodes.Call) else expression
            matched = self._matched_part(callee)
            if matched is not None:
                found.append(matched)
        return found

    def _replacement(self, qname: str, parts, ctx: ModuleContext) -> tuple[str, Edit | None]:
        node = parts[0][0]
        if self.replace_last:
            replacement = qname.rsplit(".", 1)[0] + "." + self.replace_last
            if isinstance(node, ATTRIBUTE_NODES):
                return replacement, edits.attribute_name_edit(ctx, node, self.replace_last)
            return replacement, None  # a from-imported name: renaming it means editing the import too
        for old, new in self.replace_prefix.items():
            if qname == old or qname.startswith(old + "."):
                replacement = new + qname[len(old):]
                for part, part_qname in parts:
                    # Only a name written out in full: `torch.profiler`, not `prof` or `t.profiler`.
                    if part_qname == old and ctx.node_text(part) == old:
                        return replacement, Edit(ctx.start(part), ctx.end(part), new)
                return replacement, None
        return "", None


def _fold_into_callees(ctx: ModuleContext, callees: dict, arguments: list) -> None:
    """`torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], schedule=
    torch.profiler.schedule(...))`: the arguments this rule reports move with the call (torch_npu's
    profile takes only its own activities and schedule), so they are one port and one finding,
    whose fix renames them all (or, for a `profile` imported by name, which no fix renames, whose
    message lists them). Not when the call's line may hide its finding (`# noqa`)."""
    present = {id(finding) for finding in ctx.findings}
    merged, dropped = {}, set()
    for call, finding in arguments:
        callee = callees.get(call)
        if callee is None or id(callee) not in present or id(finding) not in present \
                or callee.fix is None or finding.fix is None \
                or may_hide(ctx.index.line(callee.start.line), callee.code, callee.name):
            continue
        merged[id(callee)] = absorb(merged.get(id(callee), callee), finding)
        dropped.add(id(finding))
    if merged:
        ctx.findings[:] = [merged.get(id(f), f) for f in ctx.findings if id(f) not in dropped]


def _called_bare(node) -> bool:
    """`dist.is_nccl_available()`: a call without arguments, which a conditional may test."""
    call = node.parent
    return isinstance(call, nodes.Call) and call.func is node and not call.args and not call.keywords


def _read_for_own_write(top, qname: str) -> bool:
    """Is `top` read in the value assigned to that same name (funasr's `torch.backends.cudnn.enabled
    = kwargs.get("cudnn_enabled", torch.backends.cudnn.enabled)`)? The statement is one setting
    to port, said at its target."""
    statement = top.statement()
    return isinstance(statement, nodes.Assign) and statement.value.parent_of(top) and any(
        written == qname for target in statement.targets for _part, written in chain_parts(target))


def _saved_for_restore(top, qname: str) -> bool:
    """`old = torch.backends.cudnn.allow_tf32` where every later read of `old` is the value put
    back into that same name (`torch.backends.cudnn.allow_tf32 = old`)."""
    statement = top.statement()
    if not (isinstance(statement, nodes.Assign) and statement.value is top and len(statement.targets) == 1
            and isinstance(statement.targets[0], nodes.AssignName)):
        return False
    saved = statement.targets[0].name
    reads = [name for name in statement.scope().nodes_of_class(nodes.Name) if name.name == saved]
    return bool(reads) and all(_written_to(name, qname) for name in reads)


def _restores_saved(top, qname: str) -> bool:
    """`torch.backends.cudnn.allow_tf32 = old` where every assignment of `old` saved that name."""
    statement = top.statement()
    if not (isinstance(statement, nodes.Assign) and isinstance(statement.value, nodes.Name)
            and _written_to(statement.value, qname)):
        return False
    try:
        _scope, assignments = statement.value.lookup(statement.value.name)
    except Exception:  # astroid raises assorted errors on odd scopes
        return False
    return bool(assignments) and all(
        isinstance(assigned, nodes.AssignName) and isinstance(assigned.parent, nodes.Assign)
        and assigned.parent.targets == [assigned] and qualified_name(assigned.parent.value) == qname
        for assigned in assignments)


def _written_to(value: nodes.Name, qname: str) -> bool:
    statement = value.parent
    return isinstance(statement, nodes.Assign) and statement.value is value and any(
        written == qname for target in statement.targets for _part, written in chain_parts(target)[:1])


def _inside_subclass_of(node, qname: str) -> bool:
    """Is `node` in the body of a class (or a class around it) one of whose bases is `qname`?
    Its bases and decorators are outside: the base itself is where the class is said."""
    child, parent = node, node.parent
    while parent is not None:
        if isinstance(parent, nodes.ClassDef) and child in parent.body \
                and any(qualified_name(base) == qname for base in parent.bases):
            return True
        child, parent = parent, parent.parent
    return False


def _device_table_entry(node: nodes.NodeNG) -> bool:
    """A value of a dict display keyed by device names (mmdet 2.x's utils/util_distribution.py:
    `dp_factory = {'cuda': MMDataParallel, 'cpu': MMDataParallel}`, which `build_dp` extends with
    `dp_factory['npu'] = NPUDataParallel` and calls as `dp_factory[device](model, ...)`): the
    wrapper is picked by the device the caller names, one entry per device."""
    parent = node.parent
    if not isinstance(parent, nodes.Dict) or not any(node is value for _key, value in parent.items):
        return False
    key = next(key for key, value in parent.items if value is node)
    return isinstance(key, nodes.Const) and isinstance(key.value, str) \
        and key.value.split(":")[0] in tables().not_values.device_types | {"cuda", "npu", "gpu"}


def _asked_about(node: nodes.NodeNG) -> bool:
    """`x.is_contiguous(memory_format=torch.channels_last)`, `fmt == torch.channels_last` (dlinfer's
    get_memory_format, torch's own layout tests): the name is compared or asked about, and no
    tensor is converted to it. Also a key of a mapping, looked up by a format a tensor already has
    (MindStudio Probe's dump names each format: `{torch.channels_last: "channels_last"}`)."""
    if comparison_of(node) is not None:
        return True
    parent = node.parent
    if isinstance(parent, nodes.Dict) and any(node is key for key, _value in parent.items):
        return True
    if isinstance(parent, nodes.Keyword):
        parent = parent.parent
    return isinstance(parent, nodes.Call) and isinstance(parent.func, nodes.Attribute) \
        and parent.func.attrname.startswith("is_") and parent.func is not node
