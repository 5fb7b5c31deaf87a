"""One port said once: a test that picks a device or backend name, and the name it picks.

    "cuda" if torch.cuda.is_available() else "cpu"     a torch.cuda test (checks/torch_cuda_api.py)
    "nccl" if dist.is_nccl_available() else "gloo"     a symbol rule's test (NPU203 over NPU201)
    "nccl" if device == "cuda" else "gloo"             a device comparison or search (NPU111 over NPU204;
    "nccl" if "cuda" in device else "gloo"             timm 0.9's utils/distributed.py)
    torch.device("cuda", torch.cuda.current_device())  the device a torch.cuda call indexes
    [f"cuda:{i}" for i in range(torch.cuda.device_count())]  the devices a torch.cuda call counts
    device == "cuda" and not torch.cuda.is_available() the device a torch.cuda test is asked beside
    torch.autocast("cuda", enabled=x.is_cuda)         the device of the call a test switches on (kornia)
    {"cuda": torch.cuda.empty_cache, "xpu": ...}      the device a dispatch table's entry is for
    {"cuda": "nccl", "cpu": "gloo", "xpu": "xccl"}    the backend a device's entry names

The picked name's finding becomes part of the test's: its edit joins the test's fix, which is then
no safer than the least safe of them (renamed alone, the test would pick NCCL on the NPU, where the
program ran with gloo before), and its message a related location.
"""
from __future__ import annotations

import dataclasses
import re
from typing import Iterable

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.cuda_library_guards import STRING_TESTS, test_expression
from npu_lint.analysis.flags import flag_reads
from npu_lint.analysis.names import compared_operands, qualified_name
from npu_lint.analysis.not_values import keyed_by_device_type
from npu_lint.core.findings import Applicability, Edit, Finding, Fix, Position, Related

# The device-string rules (rules/device-strings.yaml) and the backend strings (rules/distributed.yaml)
# whose finding is part of the port of the test or call that takes or picks the string.
# ONNX Runtime's CUDA provider (NPU404) is one too: `["CUDAExecutionProvider"] if device.type ==
# "cuda" else ["CPUExecutionProvider"]` (InvokeAI's DW pose) is one port, test and provider.
DEVICE_STRING_RULES = frozenset({"NPU110", "NPU111", "NPU201", "NPU204", "NPU404"})
# The `.cuda()` moves a test picks as a branch of a conditional expression (tacotron2's stft.py, in
# tortoise-tts 3.0's utils/stft.py and fairseq 0.12's gslm unit2speech: `window_sum = window_sum.cuda()
# if magnitude.is_cuda else window_sum`; `model.cuda() if torch.cuda.is_available() else model`):
# the move renamed alone is never taken on the NPU, and the test renamed alone takes the CUDA move
# there. Only a picked branch, not a call's argument (`torch.cuda.comm.broadcast(x.cuda(), ...)`).
PICKED_MOVE_RULES = frozenset({"NPU103"})
# Names that have no NPU counterpart to rename to: Lightning's "gpu" accelerator (NPU113), a
# CPU-or-CUDA library's own device (NPU406). A test that picks one is renamed only with it.
NO_NPU_NAME_RULES = frozenset({"NPU113", "NPU406"})


def device_parts(node: nodes.NodeNG, ctx: ModuleContext | None = None) -> list:
    """The arguments of the call `node` names, or the branch of the conditional expression whose
    test it is (`"cuda" if torch.cuda.is_available() else "cpu"`, `"nccl" if device == "cuda" else
    "gloo"`), also through a flag the test is stored in (with `ctx`), or for a test that is no
    string (`torch.cuda.is_available()`, `dist.is_nccl_available()`) the device and backend strings
    compared beside it."""
    beside = [] if isinstance(node, nodes.Const) else _compared_beside(node)
    return _taken_or_picked(node) + beside + (_picked_through_flag(node, ctx) if ctx is not None else [])


def _compared_beside(node: nodes.NodeNG) -> list:
    """`device == "cuda" and not torch.cuda.is_available()` (a test's skip), `dist.is_nccl_available()
    and backend == "nccl"`, `device.startswith("cuda") and not torch.cuda.is_available()` (funasr's
    auto_model.py; TabPFN's AMP switch without the `not`): the strings compared in the same
    `and`/`or`. Renamed alone, the test would no longer skip "cuda" on the NPU, where "cuda" then
    fails."""
    _test, siblings = test_expression(node)
    return [operand for sibling in siblings for operand in _compared_operands(sibling)
            if isinstance(operand, nodes.Const) and isinstance(operand.value, str)]


def _compared_operands(test: nodes.NodeNG) -> list:
    """The operands `test` compares: both sides of a comparison, or the prefixes a string test asks
    for (`device.startswith("cuda")`), also under a `not`."""
    while isinstance(test, nodes.UnaryOp) and test.op == "not":
        test = test.operand
    if isinstance(test, nodes.Compare):
        return compared_operands(test)
    if isinstance(test, nodes.Call) and isinstance(test.func, nodes.Attribute) \
            and test.func.attrname in STRING_TESTS:
        return list(test.args)
    return []


def _picked_through_flag(node: nodes.NodeNG, ctx: ModuleContext) -> list:
    """`use_cuda = torch.cuda.is_available()` (or `not args.no_cuda and torch.cuda.is_available()`),
    then `device = torch.device("cuda" if use_cuda else "cpu")` (pytorch/examples' mnist, advertorch's
    examples/tutorial_train_mnist.py, torch-optimizer's examples): the branch each conditional
    expression that tests the flag picks, as if the test were written there. Renamed alone, the
    stored test would pick "cuda" on the NPU, where the program ran on the CPU before. Only a flag
    the module stores once (analysis/flags.py), and only the choices made by its reads, not a
    comparison beside one (`available and device == "cuda"` stays its own finding)."""
    call = node.parent
    test, positive = _climbed(call if isinstance(call, nodes.Call) and call.func is node else node, True)
    assign = test.parent
    if not (isinstance(assign, nodes.Assign) and assign.value is test):
        return []
    picked = []
    for read in flag_reads(assign, ctx):
        read_test, read_positive = _climbed(read, positive)
        choice = read_test.parent
        if isinstance(choice, nodes.IfExp) and choice.test is read_test:
            picked.append(choice.body if read_positive else choice.orelse)
    return picked


def _taken_or_picked(node: nodes.NodeNG) -> list:
    call = node.parent
    if isinstance(call, nodes.Call) and call.func is node:
        parts = [*call.args, *(k.value for k in call.keywords or ())]
        if parts:
            return parts
        node = call
    built = _string_built_around(node)
    if built is not None:
        return [built]  # f"cuda:{torch.cuda.current_device()}": the string it builds
    elements = _elements_per_item(node)
    if elements:
        return elements
    key = _dispatch_key(node)
    if key is not None:
        return [key]
    argument = node.parent if isinstance(node.parent, nodes.Keyword) else node
    device = argument.parent
    if isinstance(device, nodes.Call) and argument is not device.func and qualified_name(device.func) == "torch.device":
        # torch.device("cuda", torch.cuda.current_device()): the device type it indexes
        return [part for part in device.args if part is not node]
    # `positive`: `node` true means CUDA is there (False: `node` false does).
    positive = True
    comparison = node.parent
    operator = comparison.ops[0][0] if isinstance(comparison, nodes.Compare) and len(comparison.ops) == 1 else None
    if isinstance(node, nodes.Const) and (operator in ("==", "!=") or (
            operator in ("in", "not in") and comparison.left is node)):
        node, positive = comparison, operator in ("==", "in")  # `device == "cuda"`, `"cuda" in device`
    node, positive = _climbed(node, positive)
    choice = node.parent
    if isinstance(choice, nodes.IfExp) and choice.test is node:
        return [choice.body if positive else choice.orelse]
    if isinstance(choice, nodes.Keyword) and isinstance(choice.parent, nodes.Call):
        # torch.autocast("cuda", enabled=x.is_cuda): the device of the call the test switches on
        call = choice.parent
        return [*call.args, *(k.value for k in call.keywords or () if k is not choice)]
    return []


def _climbed(node: nodes.NodeNG, positive: bool) -> tuple[nodes.NodeNG, bool]:
    """The test that `node` (true where CUDA is there when `positive`, false where it is when not)
    is part of, and whether that test is true where CUDA is there. An `and` is true only where its
    operand is, an `or` false only where its operand is: either way a choice made by the whole
    test still follows this one (`"cuda" if torch.cuda.is_available() and not args.no_cuda else
    "cpu"`)."""
    while True:
        parent = node.parent
        if isinstance(parent, nodes.UnaryOp) and parent.op == "not":
            positive = not positive
        elif not (isinstance(parent, nodes.BoolOp) and parent.op == ("and" if positive else "or")):
            return node, positive
        node = parent


def _dispatch_key(value: nodes.NodeNG) -> nodes.Const | None:
    """`{"cuda": torch.cuda.empty_cache, "xpu": torch.xpu.empty_cache}` (the backend tables of
    transformers', diffusers' and verl's testing and checkpoint code): the string key of the entry
    `value` is. The program looks the entry up by its device type, so renamed alone, the NPU's
    "npu" would find no entry, or "cuda" would find the NPU's function."""
    table = value.parent
    if isinstance(table, nodes.Dict):
        for key, item in table.items:
            if item is value and isinstance(key, nodes.Const) and isinstance(key.value, str):
                return key
    return None


def _string_built_around(node: nodes.NodeNG):
    """The f-string whose placeholder computes from `node`: f"cuda:{torch.cuda.current_device()}",
    f"cuda:{rank % torch.cuda.device_count()}" (nemo_toolkit)."""
    value = node
    while isinstance(value.parent, nodes.BinOp):
        value = value.parent
    placeholder = value.parent
    if isinstance(placeholder, nodes.FormattedValue) and placeholder.value is value \
            and isinstance(placeholder.parent, nodes.JoinedStr):
        return placeholder.parent
    return None


def _elements_per_item(node: nodes.NodeNG) -> list:
    """`[torch.device(f"cuda:{i}") for i in range(torch.cuda.device_count())]` (monai, mmpretrain):
    what a comprehension builds for each item of the `node` it iterates over, directly or through
    the call that takes it (`range`). Renamed alone, the NPU's count would index CUDA devices."""
    iterated = node
    while isinstance(iterated.parent, nodes.Call) and iterated in iterated.parent.args:
        iterated = iterated.parent
    generator = iterated.parent
    if not (isinstance(generator, nodes.Comprehension) and generator.iter is iterated):
        return []
    comprehension = generator.parent
    if isinstance(comprehension, nodes.DictComp):
        return [comprehension.key, comprehension.value]
    return [comprehension.elt]


def fold_device_strings(ctx: ModuleContext, reported: Iterable[tuple[nodes.NodeNG, Finding]]) -> None:
    """Fold the device-string findings in what each reported test or call takes or picks into its
    finding (`reported`: the node each finding is about, and the finding)."""
    folded: dict[int, Finding] = {}
    dropped = set()
    present = {id(finding) for finding in ctx.findings}
    for node, finding in reported:
        if id(finding) not in present or id(finding) in dropped or finding.fix is None or not finding.fix.edits:
            continue  # already folded into another finding
        parts = device_parts(node, ctx)
        moves = [(ctx.start(move), ctx.end(move)) for move in _moves_only_branch(node)]
        spans = [(ctx.start(part), ctx.end(part)) for part in parts] + moves
        if not spans:
            continue
        branches = [(ctx.start(part), ctx.end(part)) for part in parts if _picked_branch(part)] + moves
        merged = folded.get(id(finding), finding)  # an import's finding may speak for several uses
        for other in ctx.findings:
            if other is finding or id(other) in dropped \
                    or not any(s <= other.start and other.end <= e for s, e in spans):
                continue
            if other.fix is not None and other.fix.edits and (other.code in DEVICE_STRING_RULES or (
                    other.code in PICKED_MOVE_RULES
                    and any(s <= other.start and other.end <= e for s, e in branches))):
                merged = absorb(merged, other)
            elif other.code in NO_NPU_NAME_RULES:
                merged = _held_back(merged, other)
            else:
                continue
            dropped.add(id(other))
        if merged is not finding:
            folded[id(finding)] = _entry_beside(ctx, node, merged) or merged
    if folded:
        ctx.findings[:] = [folded.get(id(f), f) for f in ctx.findings if id(f) not in dropped]


def _moves_only_branch(node: nodes.NodeNG) -> list:
    """The statements of the branch an `if` statement whose test `node` is takes where CUDA is
    there, when each of them is only a `.cuda()` move (`if next(model.parameters()).is_cuda: input
    = input.cuda()`, torchreid's model_complexity.py; `if torch.cuda.is_available(): model =
    model.cuda()`): the statement form of `input.cuda() if p.is_cuda else input`. The move renamed
    alone is never taken on the NPU, and the test renamed alone takes the CUDA move there, so
    they are one port. A branch that does more stays with its own findings."""
    call = node.parent
    if isinstance(call, nodes.Call) and call.func is node:
        node = call
    node, positive = _climbed(node, True)
    choice = node.parent
    if not (isinstance(choice, nodes.If) and choice.test is node):
        return []
    branch = choice.body if positive else choice.orelse
    return list(branch) if branch and all(_is_move(statement) for statement in branch) else []


def _is_move(statement: nodes.NodeNG) -> bool:
    """`x = x.cuda()`, `x.cuda()`, `self.x = x.cuda(non_blocking=True)`."""
    if isinstance(statement, (nodes.Assign, nodes.Expr)):
        value = statement.value
        return isinstance(value, nodes.Call) and isinstance(value.func, nodes.Attribute) \
            and value.func.attrname == "cuda"
    return False


def _picked_branch(part: nodes.NodeNG) -> bool:
    """Whether `part` is a branch that a conditional expression's test picks."""
    choice = part.parent
    return isinstance(choice, nodes.IfExp) and part is not choice.test


def _entry_beside(ctx: ModuleContext, node: nodes.NodeNG, finding: Finding) -> Finding | None:
    """`{"cuda": torch.cuda.empty_cache, "cpu": None}`: the NPU's entry added after CUDA's, as a
    membership test gets "npu" beside "cuda" (checks/string.py), so the table serves both. None
    unless `node` is an entry's value."""
    value = node.parent if isinstance(node.parent, nodes.Call) and node.parent.func is node else node
    key = _dispatch_key(value)
    return added_entry(ctx, key, value, finding) if key is not None else None


def fold_table_entries(ctx: ModuleContext, reported: Iterable[tuple[nodes.Const, Finding]]) -> None:
    """`{"cuda": "nccl", "cpu": "gloo", "xpu": "xccl"}` (transformers 5's and timm 1.0's backend
    tables), `{"cuda": True, "mps": False}`: in a table per device type, CUDA's key and the device
    or backend its value names are one port, and the NPU's entry goes beside CUDA's (`"npu":
    "hccl"`) instead of replacing it (`reported`: each key and its finding)."""
    present = {id(finding) for finding in ctx.findings}
    replaced: dict[int, Finding] = {}
    dropped = set()
    for key, finding in reported:
        table = key.parent
        if id(finding) not in present or finding.fix is None or not finding.fix.edits \
                or not isinstance(table, nodes.Dict) or not keyed_by_device_type(table):
            continue
        value = next((value for item, value in table.items if item is key), None)
        if value is None:
            continue
        merged = finding
        span = (ctx.start(value), ctx.end(value))
        for other in ctx.findings:
            if other.code in DEVICE_STRING_RULES and other is not finding and other.fix is not None \
                    and other.fix.edits and span[0] <= other.start and other.end <= span[1]:
                merged = absorb(merged, other)
                dropped.add(id(other))
        replaced[id(finding)] = added_entry(ctx, key, value, merged) or merged
    if replaced:
        ctx.findings[:] = [replaced.get(id(f), f) for f in ctx.findings if id(f) not in dropped]


_NAMES_CUDA = re.compile(r"cuda", re.IGNORECASE)


def added_entry(ctx: ModuleContext, key: nodes.NodeNG, value: nodes.NodeNG, finding: Finding) -> Finding | None:
    """`finding`'s fix rewritten to add the entry `key: value` as its edits inside the entry make
    it, after the entry; None when the entry spans lines."""
    start, end = ctx.start(key), ctx.end(value)
    inside = [e for e in finding.fix.edits if start <= e.start and e.end <= end]
    if start.line != end.line or any(e.start.line != start.line or e.end.line != start.line for e in inside):
        return None
    entry = ctx.index.segment((start.line, start.column), (end.line, end.column))
    for edit in sorted(inside, reverse=True):  # from the right, so earlier columns stay put
        entry = entry[:edit.start.column - start.column] + edit.content + entry[edit.end.column - start.column:]
    if _NAMES_CUDA.search(entry):
        # `{"cuda": "CUDAGraph", "xpu": "XPUGraph"}` (transformers 5): CUDA's value, copied, would
        # still name CUDA for the NPU; what the NPU's is, is for the port to say
        return dataclasses.replace(finding, fix=Fix(
            Applicability.DISPLAY_ONLY, "Add the NPU's entry beside CUDA's; CUDA's value does not carry over"))
    outside = tuple(e for e in finding.fix.edits if e not in inside)  # `import torch_npu`
    raw = ctx.index.line(start.line)
    line = raw.rstrip("\r\n")
    if not line[:start.column].strip() and line[end.column:].strip() == ",":
        # an entry on a line of its own: the NPU's goes on the next line, indented alike
        after = Position(end.line, end.column + line[end.column:].index(",") + 1)
        addition = Edit(after, after, f"{raw[len(line):]}{line[:start.column]}{entry},")
    else:
        addition = Edit(end, end, ", " + entry)
    fix = Fix(finding.fix.applicability, f"Add `{entry}` beside the CUDA entry",
              tuple(sorted((*outside, addition))))
    return dataclasses.replace(finding, fix=fix)


def _held_back(finding: Finding, other: Finding) -> Finding:
    """`Trainer(accelerator="gpu" if torch.cuda.is_available() else "cpu")`: renamed alone, the test
    would pick "gpu" on the NPU, which Lightning cannot run there, where the program ran on the CPU
    before. The test's port waits for the picked value's (`other`, a related location); its fix
    is shown, not applied."""
    related = Related(other.start, other.end, f"{other.code}: {other.message}", folded=other.code)
    fix = finding.fix and dataclasses.replace(
        finding.fix, applicability=Applicability.DISPLAY_ONLY,
        message=f"{finding.fix.message} together with the value it picks, which has no NPU name (see {other.code})")
    return dataclasses.replace(finding, fix=fix, related=tuple(sorted((*finding.related, related))))


def absorb(finding: Finding, other: Finding) -> Finding:
    """`finding` speaking for `other` too: `other`'s edits join the fix, which is no safer than the
    less safe of the two, and its message becomes a related location. Both must have fixes."""
    applicability = Applicability.least_safe(finding.fix.applicability, other.fix.applicability)
    message = finding.fix.message
    if other.fix.message != message:
        message = f"{message}; {other.fix.message[:1].lower()}{other.fix.message[1:]}"
    fix = Fix(applicability, message, tuple(sorted(set(finding.fix.edits) | set(other.fix.edits))))
    related = Related(other.start, other.end, f"{other.code}: {other.message}", folded=other.code)
    return dataclasses.replace(finding, fix=fix, related=tuple(sorted((*finding.related, related))))
