"""One finding per call per concern: where several operator rules speak about one call, the
rule that says most owns it.

`torch.lgamma(x)` has no NPU kernel (NPU301) and is missing from Ascend's support list
(NPU930); `torch.heaviside` falls back to the CPU (NPU301) and the list marks it unsupported on
the chip (NPU303, which read beside NPU301 contradicts it); `torch.eye(n, dtype=torch.float64)`
is an operator the list denies float64 (NPU304) and asks for float64 (NPU606);
`x.double()` asks for float64 (NPU606) and may fall back (NPU931); `torch.optim.Adam` may fall
back (NPU931) and has a fused NPU class (NPU510); `torch.unique_consecutive` is
unsupported on Atlas A2 (NPU303) and sized by its values (NPU610). Each is one thing to change.

The rules report as usual, through `report_about`, which notes the nodes a finding speaks
about: its own node and, for NPU304, where the float64 is written (`dtype=...`, `.double()`;
for a collective, which works in place, also in the statement that made the tensor it is given).
After the walk a rule that gives way (`give_way`, from its check's `leave_module`) drops its
findings about a node an owner spoke about, or folds them into the owner's as related
information. No rule on by default gives way to an opt-in one, so a default run never loses a
finding because an opt-in rule is off; and a rule whose owner is off (or stays quiet on that
call) still reports.
"""
from __future__ import annotations

import dataclasses

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.core.findings import Finding, Related
from npu_lint.core.rule import Rule
from npu_lint.core.records import record

# The rule that gives way -> (the rules that own a call they share, in order of preference;
# whether its own fact stays with the owner's finding as related information: always, or only
# with the owners named).
OWNERS: dict[str, tuple[tuple[str, ...], bool | frozenset[str]]] = {
    # NPU301/NPU302 say what happens on the NPU (it falls back, or it fails): "not verified"
    # adds nothing, "unsupported on the chip" is the list's view of the same gap.
    "NPU930": (("NPU301", "NPU302"), False),
    "NPU303": (("NPU301", "NPU302"), True),
    # NPU304 names the operator that gets the float64; NPU606 marks where it is asked for.
    "NPU606": (("NPU304",), True),
    "NPU931": (("NPU304", "NPU606", "NPU510"), frozenset({"NPU510"})),
    # `torch.optim.Adam(...)` may fall back to the CPU (NPU931) and has a fused NPU class (NPU510):
    # the fused class replaces the call, so the note goes with that advice, still read where the
    # fused class cannot serve (bfloat16 parameters).
    # A call the NPU lacks is one thing to replace; that its result's size depends on the values
    # (FastVideo's `torch.unique_consecutive(cu_window_seqlens)`) goes with it.
    "NPU610": (("NPU301", "NPU302", "NPU303"), True),
}
_KEY = "call_owners"


@record(eq=False)
class Said:
    """A finding reported through `report_about` and the nodes it speaks about; `finding` follows
    the finding when related places are added to it (findings are immutable)."""

    finding: Finding
    about: tuple[nodes.NodeNG, ...]
    dropped: bool = False


def _all(ctx: ModuleContext) -> list[Said]:
    return ctx.scratch.setdefault(_KEY, [])


def report_about(ctx: ModuleContext, rule: Rule, node: nodes.NodeNG, about: tuple[nodes.NodeNG, ...] = (),
                 **kwargs) -> Said | None:
    """`ctx.report`, noting that the finding (if one is kept) speaks about `node` and `about`."""
    count = len(ctx.findings)
    ctx.report(rule, node, **kwargs)
    if len(ctx.findings) == count:
        return None
    said = Said(ctx.findings[-1], (node, *about))
    _all(ctx).append(said)
    return said


def report_once_per_statement(ctx: ModuleContext, check: object, rule: Rule, node: nodes.NodeNG, api: str,
                              **kwargs) -> Said | None:
    """`report_about`, once per statement and API: a statement that calls `api` again (`torch.lgamma(a)
    + torch.lgamma(b)`, pyro; `fft.irfft(fft.rfft(s) * fft.rfft(k))`) is one computation to change,
    so the later calls become related places of the first call's finding, and count as spoken
    about by it (a rule that gives way finds them owned too)."""
    said_in_statement = ctx.scratch.setdefault(check, {})
    key = (node.statement(), api)
    earlier = said_in_statement.get(key)
    if earlier is not None and not earlier.dropped:
        earlier.about = (*earlier.about, node)
        add_related(ctx, earlier, (ctx.related(node, f"`{api}` here too"),))
        return earlier
    said = report_about(ctx, rule, node, api=api, **kwargs)
    if said is not None:
        said_in_statement[key] = said
    return said


def add_related(ctx: ModuleContext, said: Said, related: tuple[Related, ...]) -> None:
    """Give the finding more related places."""
    old = said.finding
    said.finding = dataclasses.replace(old, related=tuple(sorted((*old.related, *related))))
    ctx.findings[:] = [said.finding if f is old else f for f in ctx.findings]


def drop(ctx: ModuleContext, said: Said) -> None:
    ctx.findings[:] = [f for f in ctx.findings if f is not said.finding]
    said.dropped = True


def give_way(ctx: ModuleContext, code: str) -> None:
    """Drop (or fold into the owner's) each finding of `code` about a node an owner spoke about."""
    if code not in OWNERS:
        return
    owners, keep = OWNERS[code]
    everything = _all(ctx)
    for said in [s for s in everything if s.finding.code == code and not s.dropped]:
        owner = _owner(everything, said.about, owners)
        if owner is None:
            continue
        drop(ctx, said)
        if keep is True or (keep and owner.finding.code in keep):
            finding = said.finding
            add_related(ctx, owner, (Related(finding.start, finding.end, f"{finding.code}: {finding.message}",
                                             folded=finding.code),))


def _owner(everything: list[Said], about: tuple[nodes.NodeNG, ...], owners: tuple[str, ...]) -> Said | None:
    for code in owners:
        for said in everything:
            if said.finding.code == code and not said.dropped and any(n in said.about for n in about):
                return said
    return None
