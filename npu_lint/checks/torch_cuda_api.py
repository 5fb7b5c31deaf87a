"""check: torch_cuda_api -- every use of a `torch.cuda` name.

Two rules share the matching: NPU101 reports names torch_npu offers under
`torch.npu` (with a fix), NPU102 the names it lacks in the target release, unless the code
reads them only after `hasattr(torch.cuda, "name")` (the guard NPU102 asks for; its
`torch.cuda` is reported by NPU101).

A name an import binds from torch.cuda (`from torch.cuda.amp import GradScaler`) is said once,
at the import: its uses (`GradScaler(...)`, `class S(GradScaler)`, `scaler: GradScaler`) are
related locations of the import's finding when the import's fix is theirs too. A use whose fix
is not (another spelling, no fix where the import has one) stays a finding of its own.
"""
from __future__ import annotations

import dataclasses

from astroid import nodes

from npu_lint.analysis import device_neutral, edits
from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.cuda_library_guards import argument_of_library_call, guards_cuda_library
from npu_lint.analysis.cuda_objects import object_uses
from npu_lint.analysis.failing_on_npu import fails_on_npu, rule_of
from npu_lint.analysis.guards import guarded_by, guarded_by_hasattr
from npu_lint.analysis.legacy_fallbacks import legacy_amp_fallback
from npu_lint.analysis.names import (
    ATTRIBUTE_NODES, chain_parts, imported_name, in_annotation, is_chain_top, qualified_name, sole_import
)
from npu_lint.analysis.none_uses import none_crash, none_guarded
from npu_lint.analysis.patched_program import imports_transfer_to_npu
from npu_lint.analysis.restore_location import restored_where_saved
from npu_lint.analysis.result_fields import fields_read
from npu_lint.checks.base import Check
from npu_lint.checks.device_choice import DEVICE_STRING_RULES, NO_NPU_NAME_RULES, absorb, fold_device_strings
from npu_lint.core.findings import Applicability, Edit, Finding, Position
from npu_lint.knowledge.device_api import accelerator_name, device_type_call, takes_device_type_first, type_reference
from npu_lint.knowledge.cuda_surface import (
    first_release_with_equivalent, hint_for, is_cuda_name, is_plain_rename, neutral_name, note_for, npu_equivalent,
    patched_by_transfer_to_npu, result_stand_in_notes, stand_in_note
)


class _CudaUse:
    """One place that names torch.cuda: where, which name, which edit fixes it.

    `rename_edit` makes the edit for a replacement that renames more than the
    `cuda` segment (CUDAGraph -> NPUGraph); None where that cannot be done.
    """

    def __init__(self, node, qname: str, edit: Edit | None, start=None, end=None, rename_edit=None, binding=None):
        self.node, self.qname, self.edit, self.start, self.end = node, qname, edit, start, end
        self.rename_edit = rename_edit or (lambda replacement: None)
        # The import whose `cuda` this use reaches through (`GradScaler` -> its from-import); None
        # for the import itself and for a chain that spells `cuda` out (`torch.cuda.x`).
        self.binding = binding

    def edit_for(self, replacement: str) -> Edit | None:
        if is_plain_rename(self.qname, replacement):
            return self.edit
        return self.rename_edit(replacement)


_SHIM = "_npu_lint_npu_shim"
# The namespaces a shim points torch.cuda at: the NPU's, and those of the other accelerators
# whose torch extensions answer under torch.<device> (torch_musa's torch.musa, torch_mlu's
# torch.mlu, Intel's torch.xpu, Habana's torch.hpu, Apple's torch.mps).
_SHIM_TARGETS = ("torch.npu.", "torch_npu.", "torch.musa.", "torch.mlu.", "torch.xpu.", "torch.hpu.", "torch.mps.",
                 "torch.sdaa.")


def _npu_shim(scope: nodes.NodeNG) -> bool:
    """Does `scope` (a function, or the module) assign a torch.cuda name a torch.npu or torch_npu
    one? Such code patches torch.cuda for the NPU, and its other assignments to torch.cuda names
    (placeholders, restores) belong to the patch; so does a scope that applies transfer_to_npu.
    A shim for another accelerator (DLRover's musa_patch: `torch.cuda.is_available =
    torch.musa.is_available`, `torch.cuda.is_bf16_supported = lambda: False`) patches nothing
    CUDA has either, and `torch.npu.is_available = torch.musa.is_available` would be no port.
    A test that swaps `torch.cuda.current_device` for a stub and back (torchao's
    test_lean_import.py) ports with the name it saves. Computed once."""
    found = getattr(scope, _SHIM, None)
    if found is None:
        found = _applies_transfer_to_npu(scope)
        for assign in () if found else scope.nodes_of_class(nodes.Assign):
            if any(isinstance(target, nodes.AssignAttr) and _names_torch_cuda(target.expr) for target in assign.targets) \
                    and (qualified_name(assign.value) or "").startswith(_SHIM_TARGETS):
                found = True
                break
        setattr(scope, _SHIM, found)
    return found


def _applies_transfer_to_npu(scope: nodes.NodeNG) -> bool:
    """Does `scope` import torch_npu's transfer_to_npu patch itself? What it then assigns to a
    torch.cuda name amends the patch (SGLang's NPU backend: `torch.cuda.is_available = lambda:
    False` right after `from torch_npu.contrib import transfer_to_npu`)."""
    return imports_transfer_to_npu(scope, own_only=True)


def _names_torch_cuda(node: nodes.NodeNG) -> bool:
    name = qualified_name(node) or ""
    return name == "torch.cuda" or name.startswith("torch.cuda.")


class TorchCudaApi(Check):
    node_types = (*ATTRIBUTE_NODES, nodes.Name, nodes.Import, nodes.ImportFrom)
    with_equivalent = True

    def triggers(self) -> frozenset[str]:
        return frozenset({"cuda"})

    @property
    def release(self) -> str:
        return self.settings.release

    def visit(self, node, ctx: ModuleContext) -> None:
        if isinstance(node, nodes.ImportFrom):
            if legacy_amp_fallback(node, self.release):
                return  # `except ImportError: from torch.cuda.amp import GradScaler`: the target never gets here
            uses = _from_import_uses(node, ctx, self.release)
        elif isinstance(node, nodes.Import):
            uses = _import_uses(node, ctx, self.release)
        elif isinstance(node, (nodes.AssignAttr, nodes.DelAttr)) and _npu_shim(node.scope()):
            # `torch.cuda.Stream = torch.npu.Stream` (vllm-ascend's torch_cuda_wrapper, DeepLink's
            # ditorch): code that points torch.cuda at the NPU's own names (or another
            # accelerator's); a rename would make it assign torch.npu to itself. What reads a
            # torch.cuda name is reported.
            return
        else:
            use = _expression_use(node, ctx, self.release)
            if use is not None and use.binding is None and in_annotation(node) \
                    and type_reference(use.qname, self.release) is None:
                # `target: Union[torch.LongTensor, torch.cuda.LongTensor]` (mmcv's focal_loss): a type
                # named for the reader, which runs nothing; what makes the value is reported where it
                # is made. A name an import binds (`scaler: GradScaler`) is said at the import, and a
                # type torch names for every device (`torch.amp.GradScaler`, which the fixed
                # constructor makes) is still given that name.
                return
            uses = [use] if use else []
        auto = self.settings.strategy == "auto"
        for use in uses:
            replacement = npu_equivalent(use.qname, self.release)
            # On the transfer_to_npu route only what the patch itself maps works.
            works = patched_by_transfer_to_npu(use.qname, self.release) if auto else replacement is not None
            if works != self.with_equivalent:
                continue
            if not works and guarded_by_hasattr(use.node, use.qname):
                continue  # already guarded; the `hasattr(torch.cuda, ...)` itself is reported
            if not isinstance(use.node, (nodes.Import, nodes.ImportFrom)) and (
                    guards_cuda_library(use.node) or argument_of_library_call(use.node)):
                # `if not torch.cuda.is_available(): raise ...` before xformers code: the test keeps
                # a CUDA-only library's path off the NPU; NPU401/NPU403 report the library.
                continue
            hint = hint_for(use.qname)
            unpatched = ""
            if auto and replacement is not None:  # renamed by torch_npu, not by the patch
                hint = hint or f"use `{replacement}`"
                unpatched = " under this name" + (
                    " (transfer_to_npu copies only the names of torch.npu's `__all__` into torch.cuda)"
                    if is_plain_rename(use.qname, replacement) else "")
                replacement = None
            edits = (use.edit_for(replacement),) if replacement else ()
            exposed = _guards_unfixed_use(use, ctx, self.release) if edits else None
            outer = _argument_of_unfixed_call(use, ctx, self.release) if edits and exposed is None else None
            if outer is not None:
                # `torch.cuda.get_device_capability(torch.cuda.device(i))`: the call is ported by
                # hand; renaming its argument alone leaves a line half CUDA, half NPU
                edits = ()
            held = exposed is not None and rule_of(exposed, ctx) is not None
            if exposed is not None and not held:
                # `torch.cuda.is_available() and torch.cuda.nccl.version() >= (2, 10)`: renaming the
                # test alone would run the other name on the NPU, where the test kept it off
                edits = ()
            restored = restored_where_saved(use.node) \
                if edits and all(edits) and self.settings.strategy == "manual" else None
            if restored is not None:
                # `map_location=None if torch.cuda.is_available() else "cpu"`: None would put the
                # checkpoint's CUDA tensors back on CUDA, which the NPU host has not
                edits += (Edit(ctx.start(restored), ctx.end(restored), _quoted_like(ctx, restored.parent, "npu")),)
            amp = _device_type_call(use, ctx, self.release) if replacement and outer is None else None
            if amp is not None and self.settings.strategy == "manual":
                replacement, edits = amp  # torch's own spelling, `torch.amp.X("npu")`
            neutral = _device_neutral(use, ctx, self.release) \
                if self.settings.strategy == "agnostic" and exposed is None and outer is None else None
            added = "" if works else first_release_with_equivalent(use.qname, patched=auto)
            stand_in = _stand_in(use, ctx) if works else ""
            note = stand_in or note_for(use.qname)
            if exposed is not None:
                note = f"port `{exposed}`, which it guards, first: renamed alone, the test lets it run on the NPU"
            elif outer is not None:
                note = f"port it with `{outer}`, whose argument it is and which has no fix"
            elif restored is not None:
                note = ("port the load place it picks with it, `None` to \"npu\": `None` puts a checkpoint's CUDA "
                        "tensors back on CUDA, which the NPU host has not")
            count = len(ctx.findings)
            ctx.report(
                self.rule, use.node, start=use.start, end=use.end,
                edits=edits if all(edits) else (),
                # a stand-in runs but answers wrongly: show the rename, never apply it
                # a test that keeps a name failing on the NPU off it (`nn.DataParallel`): the rename is
                # shown with the device strings of the same test, and applied with the name's own port
                applicability=Applicability.DISPLAY_ONLY if stand_in or held else None,
                agnostic_edits=neutral[1] if neutral else (), agnostic=neutral[0] if neutral else "",
                qname=use.qname, replacement=replacement or "", release=self.release,
                added=f" (torch_npu {added} has it)" if added else unpatched,
                note=f" ({note})" if note else "",
                hint=hint or "remove it or guard it",
                related=_later_uses(use.node, ctx),
            )
            if len(ctx.findings) > count:
                ctx.scratch.setdefault(self, []).append((use, ctx.findings[-1]))

    def leave_module(self, ctx: ModuleContext) -> None:
        speaker = _fold_uses_into_imports(ctx, ctx.scratch.get(self, ()))
        if self.settings.strategy == "manual":
            # `from torch.cuda import is_available`, `"cuda" if is_available() else "cpu"`: the
            # import's finding speaks for the use, so the device string joins the import's port
            fold_device_strings(ctx, [(use.node, speaker.get(id(finding), finding))
                                      for use, finding in ctx.scratch.get(self, ())])
            _fold_into_cuda_method_calls(ctx, ctx.scratch.get(self, ()))
            kept = {id(finding) for finding in ctx.findings}
            reported = [(use, finding) for use, finding in ctx.scratch.get(self, ()) if id(finding) in kept]
            _no_safer_than_guarded_devices(ctx, reported)


def _quoted_like(ctx: ModuleContext, choice: nodes.IfExp, text: str) -> str:
    """`text` as a string literal in the quotes of the choice's other arm (`'cpu'` -> `'npu'`)."""
    host = choice.body if not (isinstance(choice.body, nodes.Const) and choice.body.value is None) else choice.orelse
    if isinstance(host, nodes.Call) and host.args:
        host = host.args[0]
    quote = "'" if isinstance(host, nodes.Const) and ctx.node_text(host).startswith("'") else '"'
    return quote + text + quote


def _guards_unfixed_use(use: _CudaUse, ctx: ModuleContext, release: str) -> str | None:
    """The first torch.cuda name that the test `use` is part of keeps off non-CUDA devices and
    that gets no fix of its own (no NPU name, a stand-in, no edit), else None. `torch.version.cuda`
    read where None raises counts too (DeepSpeed's op builders: `if torch.cuda.is_available():
    int(torch.version.cuda.split(".")[0])`): it is None on the NPU's build of torch."""
    for guarded in guarded_by(use.node, ctx):
        for node in guarded.nodes_of_class((*ATTRIBUTE_NODES, nodes.Name)):
            if _cuda_version_raises(node):
                return _CUDA_VERSION
            failing = fails_on_npu(node, ctx)
            if failing is not None:
                return failing
            other = _expression_use(node, ctx, release)
            if other is None or guarded_by_hasattr(other.node, other.qname):
                continue
            replacement = npu_equivalent(other.qname, release)
            if replacement is None or _stand_in(other, ctx) or other.edit_for(replacement) is None:
                return other.qname
    return None


_CUDA_VERSION = "torch.version.cuda"


def _cuda_version_raises(node) -> bool:
    """Is `node` a `torch.version.cuda` used where None raises, with no None test deciding it?"""
    if not (isinstance(node, nodes.Attribute) and node.attrname == "cuda" and none_crash(node) is not None):
        return False
    return qualified_name(node) == _CUDA_VERSION and not none_guarded(
        node, lambda e: isinstance(e, nodes.Attribute) and e.attrname == "cuda" and qualified_name(e) == _CUDA_VERSION)


def _argument_of_unfixed_call(use: _CudaUse, ctx: ModuleContext, release: str) -> str | None:
    """The torch.cuda name called with `use` in its arguments when that call gets no fix (no NPU name,
    a stand-in that answers wrongly, a chain no edit reaches), else None."""
    child, parent = use.node, use.node.parent
    while parent is not None and not parent.is_statement and not isinstance(parent, nodes.Lambda):
        if isinstance(parent, nodes.Call) and child is not parent.func:
            outer = _expression_use(parent.func, ctx, release)
            if outer is not None and not guarded_by_hasattr(outer.node, outer.qname):
                replacement = npu_equivalent(outer.qname, release)
                if replacement is None or _stand_in(outer, ctx) or outer.edit_for(replacement) is None:
                    return outer.qname
        child, parent = parent, parent.parent
    return None


def _stand_in(use: _CudaUse, ctx: ModuleContext) -> str:
    """Why the torch.npu counterpart of `use` runs but answers wrongly ("" where it answers): a
    stand-in name, or a call read for a field the NPU leaves empty (`get_device_properties(0).major`)."""
    note = stand_in_note(use.qname)
    fields = result_stand_in_notes(use.qname)
    call = use.node.parent
    if note or not fields or not isinstance(call, nodes.Call) or call.func is not use.node:
        return note
    read = sorted(fields_read(call, ctx) & fields.keys())
    return fields[read[0]] if read else ""


def _fold_uses_into_imports(ctx: ModuleContext, reported: list) -> dict[int, Finding]:
    """Move the findings of uses of an imported torch.cuda name into the import's finding; answer
    which finding now speaks for each use's (by the id of the use's finding)."""
    at_import: dict = {}
    for use, finding in reported:
        if isinstance(use.node, (nodes.Import, nodes.ImportFrom)):
            at_import.setdefault(use.node, []).append((use.qname, finding))
    if not at_import:
        return {}
    related: dict[Finding, list] = {}
    folded: dict[int, Finding] = {}
    for use, finding in reported:
        target = _import_finding(at_import.get(use.binding, ()), use.qname)
        if target is not None and _fix_covers(target, finding):
            folded[id(finding)] = target
            related.setdefault(target, []).append(ctx.related(use.node, f"`{use.qname}` is used here"))
    if not folded:
        return {}
    merged = {id(target): dataclasses.replace(target, related=tuple(sorted((*target.related, *more))))
              for target, more in related.items()}
    ctx.findings[:] = [merged.get(id(f), f) for f in ctx.findings if id(f) not in folded]
    return {use: merged[id(target)] for use, target in folded.items()}


# The device strings that a test of CUDA's availability guards, and the names it picks that have no NPU
# counterpart (Lightning's "gpu", a CPU-or-CUDA library's device), and the `.cuda()` moves it guards
# (Merlion's `if use_cuda: x, y = x.cuda(), y.cuda()`): left as they are, each asks CUDA on the NPU
# host that the renamed test now lets in.
_DEVICE_CHOICE_RULES = DEVICE_STRING_RULES | NO_NPU_NAME_RULES | {"NPU103"}


def _fold_into_cuda_method_calls(ctx: ModuleContext, reported: list) -> None:
    """`model.cuda(torch.cuda.current_device())`: one port, `model.npu(torch.npu.current_device())`.
    The argument's finding becomes part of the `.cuda()` call's (NPU103), whose fix then renames
    both, no safer than the least safe of them: renamed alone, either half still asks CUDA."""
    method_findings = [f for f in ctx.findings if f.code == "NPU103" and f.fix is not None and f.fix.edits]
    if not method_findings:
        return
    merged: dict[int, Finding] = {}
    dropped = set()
    for use, finding in reported:
        outer = _cuda_method_call_of_argument(use.node)
        if outer is None or finding.fix is None or not finding.fix.edits:
            continue
        span = (ctx.start(outer), ctx.end(outer))
        for method in method_findings:
            current = merged.get(id(method), method)
            if (method.start, method.end) != span or _overlapping(current.fix.edits, finding.fix.edits):
                continue
            merged[id(method)] = absorb(current, finding)
            dropped.add(id(finding))
            break
    if merged:
        ctx.findings[:] = [merged.get(id(f), f) for f in ctx.findings if id(f) not in dropped]


def _cuda_method_call_of_argument(node) -> nodes.Call | None:
    """The `x.cuda(...)` call whose argument is the call that `node` names, else None."""
    call = node.parent
    if not (isinstance(call, nodes.Call) and call.func is node):
        return None
    holder = call.parent.parent if isinstance(call.parent, nodes.Keyword) else call.parent
    if isinstance(holder, nodes.Call) and isinstance(holder.func, nodes.Attribute) and holder.func.attrname == "cuda" \
            and (call in holder.args or any(k.value is call for k in holder.keywords or ())):
        return holder
    return None


def _overlapping(edits, others) -> bool:
    return any(a.start < b.end and b.start < a.end for a in edits for b in others)


def _no_safer_than_guarded_devices(ctx: ModuleContext, reported: list) -> None:
    """`if torch.cuda.is_available(): device = "cuda"`: the test's rename is applied no sooner than
    the device string's (or the guarded `.cuda()` move's: `if use_cuda: x = x.cuda()`), and only
    shown when the device choice has no fix (Lightning's "gpu"): renamed alone, the test would
    pick the CUDA device on the NPU."""
    changed: dict[int, Finding] = {}
    for use, finding in reported:
        if finding.fix is None or not finding.fix.edits or finding.fix.applicability is Applicability.DISPLAY_ONLY:
            continue
        spans = [(ctx.start(part), ctx.end(part)) for part in guarded_by(use.node, ctx)]
        applicability = finding.fix.applicability
        for other in ctx.findings:
            if other.code in _DEVICE_CHOICE_RULES and any(s <= other.start and other.end <= e for s, e in spans):
                guarded = other.fix.applicability if other.fix and other.fix.edits else Applicability.DISPLAY_ONLY
                applicability = Applicability.least_safe(applicability, guarded)
        if applicability is not finding.fix.applicability:
            changed[id(finding)] = dataclasses.replace(
                finding, fix=dataclasses.replace(finding.fix, applicability=applicability))
    if changed:
        ctx.findings[:] = [changed.get(id(f), f) for f in ctx.findings]


def _import_finding(imported: list, qname: str) -> Finding | None:
    """The finding of the imported name that `qname` is reached through (the longest match)."""
    best = None
    for name, finding in imported:
        if (qname == name or qname.startswith(name + ".")) and (best is None or len(name) > len(best[0])):
            best = (name, finding)
    return best[1] if best else None


def _fix_covers(at_import: Finding, at_use: Finding) -> bool:
    """Applying the import's fix makes every edit of the use's fix: the use needs nothing more."""
    mine, theirs = at_use.fix, at_import.fix
    if mine is None or theirs is None:
        return mine is theirs
    return mine.applicability == theirs.applicability and set(mine.edits) <= set(theirs.edits)


def _later_uses(node, ctx: ModuleContext) -> tuple:
    """For a constructor (`ev = torch.cuda.Event()`), the method calls on what it made."""
    call = node.parent
    if not isinstance(call, nodes.Call) or call.func is not node or not isinstance(call.parent, nodes.Assign):
        return ()  # only an assigned object can be used later; the others spare the module walk
    return tuple(
        ctx.related(use, f"`{ctx.node_text(use.func)}()` uses the object made here")
        for use in object_uses(ctx).get(call, ())
    )


class TorchCudaApiWithoutEquivalent(TorchCudaApi):
    with_equivalent = False


def _device_type_call(use: _CudaUse, ctx: ModuleContext, release: str) -> tuple[str, tuple[Edit, ...]] | None:
    """`torch.amp.X(<device type>, ...)` for a `torch.cuda.amp.X` the target's torch has in torch.amp:
    (what the message shows, the edits); None where the use is not a plain call or import."""
    stmt = use.node if isinstance(use.node, nodes.ImportFrom) else _from_import_binding(use)
    if device_neutral.names_a_type(use.node) and stmt is None:
        # `isinstance(s, torch.cuda.amp.GradScaler)`: torch.amp's class matches the fixed calls' objects
        base = type_reference(use.qname, release)
        rename = use.rename_edit(base) if base else None
        return (base, (rename,)) if rename else None
    target = device_type_call(use.qname, release)
    text = device_neutral.device_type_text(ctx)
    if target is None or text is None:
        return None
    shown = f"{target}({text}, ...)"
    if stmt is not None:
        # `scaler: GradScaler` of `from torch.cuda.amp import GradScaler`: the import's move to
        # torch.amp is its fix too, as for the calls, and the import's finding speaks for it
        bundle = device_neutral.amp_import_bundle(ctx, stmt, release)
        return (shown, bundle) if bundle else None
    call = device_neutral.called(use.node)
    if call is not None and not takes_device_type_first(use.qname, call):
        return None  # `torch.cuda.amp.autocast(False)`: False would become torch.amp's dtype
    rename = use.rename_edit(target)
    insert = device_neutral.insert_first_argument(ctx, call, text) if call is not None else None
    return (shown, (rename, insert)) if rename and insert else None


def _device_neutral(use: _CudaUse, ctx: ModuleContext, release: str) -> tuple[str, tuple[Edit, ...]] | None:
    """The agnostic route's fix: a torch.accelerator name, torch's own neutral name
    (`torch.OutOfMemoryError`), or torch.amp with the device type."""
    target = accelerator_name(use.qname, release) or neutral_name(use.qname, release)
    if target is not None:
        edit = use.rename_edit(target)
        return (target, (edit,)) if edit else None
    return _device_type_call(use, ctx, release)


def _from_import_binding(use: _CudaUse) -> nodes.ImportFrom | None:
    """The from-import that binds a bare name such as `autocast`, if that is all that binds it."""
    if isinstance(use.node, nodes.Name) and isinstance(use.binding, nodes.ImportFrom):
        return use.binding
    return None


_USES = "torch-cuda-api:uses"


def _expression_use(node, ctx: ModuleContext, release: str) -> _CudaUse | None:
    """The torch.cuda name a chain top uses, worked out once per node: NPU101 and NPU102 visit
    the same nodes, and a use's guards ask about their neighbours again."""
    uses = ctx.scratch.setdefault(_USES, {})
    key = (id(node), release)
    if key not in uses:
        uses[key] = _expression_use_of(node, ctx, release)
    return uses[key]


def _expression_use_of(node, ctx: ModuleContext, release: str) -> _CudaUse | None:
    if not is_chain_top(node):
        return None
    parts = chain_parts(node)
    if not parts or not is_cuda_name(parts[0][1]):
        return None
    qname = parts[0][1]
    # The edit: the `cuda` attribute in the chain, else the import that bound the root.
    for part, part_qname in parts:
        if part_qname == "torch.cuda" and isinstance(part, ATTRIBUTE_NODES):
            return _CudaUse(node, qname, edits.attribute_name_edit(ctx, part, "npu"),
                            rename_edit=lambda replacement: _chain_rename_edit(ctx, node, part, qname, replacement))
    root = parts[-1][0]
    binding = sole_import(root)
    return _CudaUse(node, qname, _binding_edit(binding, root.name, ctx, release), binding=binding)


def _chain_rename_edit(ctx: ModuleContext, top, cuda_part, qname: str, replacement: str) -> Edit | None:
    """Rewrite `<root>.cuda.CUDAGraph` to `<root>.npu.NPUGraph` when the chain is written plainly."""
    cuda_end = ctx.end(cuda_part)
    start = Position(cuda_end.line, cuda_end.column - len("cuda"))
    end = ctx.end(top)
    expected = "cuda" + qname[len("torch.cuda"):]
    if ctx.index.segment((start.line, start.column), (end.line, end.column)) != expected:
        return None  # spaces, comments or line breaks inside the chain: leave it to the user
    return Edit(start, end, replacement[len("torch."):])


def _binding_edit(stmt, name: str, ctx: ModuleContext, release: str) -> Edit | None:
    if isinstance(stmt, nodes.ImportFrom):
        return _from_import_edit(stmt, ctx, release)
    if isinstance(stmt, nodes.Import):
        bound = imported_name(stmt, name)
        if bound and is_cuda_name(bound) and bound != "torch":
            return edits.module_path_edit(ctx, stmt, bound, 1, "npu")
    return None


def _from_import_edit(stmt: nodes.ImportFrom, ctx: ModuleContext, release: str) -> Edit | None:
    """One edit that moves a whole from-import to torch.npu, if every name has one."""
    qnames = [f"{stmt.modname}.{name}" for name, _ in stmt.names]
    cuda_names = [q for q in qnames if is_cuda_name(q)]
    replacements = [npu_equivalent(q, release) for q in cuda_names]
    if any(r is None or not is_plain_rename(q, r) for q, r in zip(cuda_names, replacements)):
        return None
    if any(stand_in_note(q) for q in cuda_names):
        return None  # the move would rename the stand-in too, under another name's safe fix
    if is_cuda_name(stmt.modname):
        return edits.module_path_edit(ctx, stmt, stmt.modname, 1, "npu")
    if stmt.modname == "torch":  # from torch import cuda [as alias]
        for name, alias in stmt.names:
            if name == "cuda":
                where = edits.imported_name_position(ctx, stmt, "cuda")
                if where:
                    return Edit(where[0], where[1], "npu" if alias else "npu as cuda")
    return None


def _from_import_uses(stmt: nodes.ImportFrom, ctx: ModuleContext, release: str) -> list[_CudaUse]:
    if stmt.level or not (stmt.modname == "torch" or is_cuda_name(stmt.modname)):
        return []
    edit = _from_import_edit(stmt, ctx, release)
    uses = []
    for name, _alias in stmt.names:
        qname = f"{stmt.modname}.{name}"
        if not is_cuda_name(qname):
            continue
        where = edits.imported_name_position(ctx, stmt, name) or (None, None)
        uses.append(_CudaUse(stmt, qname, edit, *where))
    return uses


def _import_uses(stmt: nodes.Import, ctx: ModuleContext, release: str) -> list[_CudaUse]:
    """`import torch.cuda.amp as amp` binds a CUDA name, and its uses reach it through the import.
    A bare `import torch.cuda.amp` binds `torch` only: the module loads on an NPU host too (every
    torch build has torch.cuda), and each `torch.cuda.x` it serves is a finding of its own."""
    return [
        _CudaUse(stmt, name, edits.module_path_edit(ctx, stmt, name, 1, "npu"))
        for name, alias in stmt.names
        if alias and is_cuda_name(name)
    ]
