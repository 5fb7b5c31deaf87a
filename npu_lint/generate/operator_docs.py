"""docs/operators.md: the operators per class and release, written by the operators generator."""
from __future__ import annotations

from collections import Counter
from typing import Dict, List, Sequence, Tuple

from npu_lint.generate.op_classes import (
    _LAYOUT_KEY, CLASSES, COMPOSITE_EXPLICIT, COMPOSITE_IMPLICIT, DESCRIPTIONS, LAYOUT, NO_KERNEL
)
from npu_lint.generate.operator_extras import HAND_LISTED
from npu_lint.generate.operator_facts import CHECKED_DTYPES, ReleaseOperators

GENERATOR = "python -m npu_lint.generate.operators"
REFERENCE_RELEASE = "2.13.0"  # the pairing DESIGN.md section 5 gives numbers for
DESIGN_COUNTS = {"npu": 1081, "delegated": 24, "composite-implicit": 699, "composite-explicit": 836,
                 "cpu-fallback": 299, "no-kernel": 73, "layout": 89, "total": 3101}


def _names(names: Sequence[str]) -> str:
    return ", ".join(f"`{n}`" for n in sorted(names)) if names else "(none)"


def _table(header: Sequence[str], rows: List[Sequence[str]]) -> List[str]:
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return lines


def design_reading(result: ReleaseOperators) -> Tuple[Dict[str, int], Dict[str, List[str]]]:
    """DESIGN.md's counts, reproduced: our classes with its counting choices applied.

    (1) the autogen `out` overloads of composite-implicit parents are not counted, and a name
    listed twice under `autogen:` counts twice; (2) a composite-implicit overload with any
    nested-tensor or MPS key and no CPU kernel counts as layout-specific; (3) a
    composite-explicit overload with a CompositeImplicitAutogradNestedTensor key counts as
    composite-implicit; (4) an overload with only CUDA and MPS kernels counts as layout (mps)."""
    overloads, classes = result.native.overloads, result.classes
    groups: Dict[str, List[str]] = {
        "skipped": sorted(n for n, o in overloads.items()
                          if o.autogen_of and classes[o.autogen_of] == COMPOSITE_IMPLICIT),
        "cia_layout": sorted(n for n, c in classes.items() if c == COMPOSITE_IMPLICIT
                             and "CPU" not in overloads[n].dispatch_keys
                             and any(_LAYOUT_KEY.match(k) or k == "CompositeImplicitAutogradNestedTensor"
                                     for k in overloads[n].dispatch_keys)),
        "cea_cia": sorted(n for n, c in classes.items() if c == COMPOSITE_EXPLICIT
                          and "CompositeImplicitAutogradNestedTensor" in overloads[n].dispatch_keys),
        "cuda_mps": sorted(n for n, c in classes.items() if c == NO_KERNEL
                           and overloads[n].dispatch_keys == {"CUDA", "MPS"}),
    }
    listed_twice = result.native.autogen_listed - sum(1 for o in overloads.values() if o.autogen_of)
    reading = dict(result.counts)
    reading[COMPOSITE_EXPLICIT] += listed_twice - len(groups["skipped"]) - len(groups["cea_cia"])
    reading[COMPOSITE_IMPLICIT] += len(groups["cea_cia"]) - len(groups["cia_layout"])
    reading[LAYOUT] += len(groups["cia_layout"]) + len(groups["cuda_mps"])
    reading[NO_KERNEL] -= len(groups["cuda_mps"])
    reading["total"] = sum(reading[c] for c in CLASSES)
    groups["listed_twice"] = [str(listed_twice)]
    return reading, groups


def _differences(result: ReleaseOperators) -> List[str]:
    """Why the counts of torch 2.13 with torch_npu 2.13 differ from DESIGN.md's, with the overloads."""
    counts = result.counts
    reading, groups = design_reading(result)
    listed_twice = int(groups["listed_twice"][0])
    rows = [[c, f"{DESIGN_COUNTS[c]:,}", f"{reading[c]:,}", f"{counts[c]:,}", f"{counts[c] - DESIGN_COUNTS[c]:+d}"]
            for c in CLASSES + ("total",)]
    same = all(reading[c] == DESIGN_COUNTS[c] for c in DESIGN_COUNTS)
    return [
        f"## The counts for torch {result.torch} with torch_npu {result.torch_npu}, against DESIGN.md",
        "",
        *_table(["class", "DESIGN.md", "DESIGN.md's reading, reproduced", "here", "difference"], rows),
        "",
        "The NPU kernels, the structured delegations and the CPU fallbacks agree. Four counting",
        "choices applied to the classes here reproduce DESIGN.md's numbers"
        + (" exactly" if same else " (not exactly: see the table)") + " (third column);",
        "this page does not make them, for the reasons given with each:",
        "",
        f"1. **Total** ({counts['total'] - DESIGN_COUNTS['total']:+d}). `native_functions.yaml` has "
        f"{result.native.schemas:,} schemas and {result.native.autogen_listed:,} names under",
        f"   `autogen:`, {listed_twice} of them listed twice (`_foreach_lerp.List_out`, `.Scalar_out`,",
        f"   `.ScalarList_out`): {counts['total']:,} distinct overloads. DESIGN.md's {DESIGN_COUNTS['total']:,} "
        f"is these with the {listed_twice} counted twice and",
        f"   without the {len(groups['skipped'])} autogen `out` overloads of composite-implicit parents. They are "
        "real overloads (torchgen",
        "   writes a CompositeExplicitAutograd out wrapper), so they count here, as composite-explicit:",
        f"   {_names(groups['skipped'])}.",
        f"2. **composite-implicit vs layout** ({len(groups['cia_layout'])} overloads). CompositeImplicitAutograd "
        "overloads that also have",
        "   nested-tensor or MPS kernels (and no CPU kernel). DESIGN.md counts them layout-specific; a",
        "   dense NPU tensor takes the decomposition (`linear`, `reshape`, `narrow` run on the NPU), so",
        f"   they are composite-implicit here: {_names(groups['cia_layout'])}.",
        f"3. **composite-explicit vs composite-implicit** ({len(groups['cea_cia'])}). CompositeExplicitAutograd "
        "next to",
        "   CompositeImplicitAutogradNestedTensor (a decomposition for nested tensors only). DESIGN.md",
        "   counts them composite-implicit; a dense tensor runs the explicit kernel:",
        f"   {_names(groups['cea_cia'])}.",
        f"4. **no-kernel vs layout** ({len(groups['cuda_mps'])}). Only CUDA and MPS kernels. DESIGN.md counts "
        "them with the",
        "   MPS-specific ones; on an NPU they fail like any CUDA-only overload, so they are no-kernel",
        f"   here: {_names(groups['cuda_mps'])}.",
        "",
        "None of these choices touches an overload the rules report, or one DESIGN.md names as",
        "running on the NPU (`gelu`, `argmax`, `scatter.src` are delegated here as there).",
        "",
    ]


def _isin_note(results: List[ReleaseOperators]) -> List[str]:
    name = "isin.Tensor_Tensor_out"
    falling = [r.torch_npu for r in results if r.classes.get(name) not in (None, "npu", "delegated")]
    if falling:
        return [f"`aten::{name}` falls back in torch_npu {', '.join(falling)} (DESIGN.md: it fell back in older",
                "releases and has a kernel in 2.13).", ""]
    return [
        f"DESIGN.md says `aten::{name}` fell back in older releases. The newest post-release of every",
        f"supported line, from {results[0].torch_npu} on, lists an NPU kernel for it; the fallback that users",
        "reported (MinerU issue 1695) may come from an older post-release of a line, or from a path inside",
        "the NPU kernel that the kernel list does not show.",
        "",
    ]


def _class_lists(result: ReleaseOperators) -> List[str]:
    by_class: Dict[str, List[str]] = {c: [] for c in CLASSES}
    for name, cls in result.classes.items():
        by_class[cls].append(name)
    lines = [f"## Operators per class, torch_npu {result.torch_npu} (torch {result.torch})", ""]
    for cls in CLASSES:
        lines += [f"### {cls} ({len(by_class[cls]):,})", "", DESCRIPTIONS[cls] + ".", "",
                  _names(by_class[cls]), ""]
    return lines


def _changes(previous: ReleaseOperators, current: ReleaseOperators) -> List[str]:
    lines = [f"### torch_npu {current.torch_npu} (torch {current.torch}) against {previous.torch_npu}", ""]
    added = sorted(set(current.classes) - set(previous.classes))
    removed = sorted(set(previous.classes) - set(current.classes))
    moved: Dict[str, List[str]] = {}
    for name in sorted(set(current.classes) & set(previous.classes)):
        if current.classes[name] != previous.classes[name]:
            moved.setdefault(f"{previous.classes[name]} -> {current.classes[name]}", []).append(name)
    if not (added or removed or moved):
        return lines + ["No overload changed class.", ""]
    if added:
        tally = Counter(current.classes[n] for n in added)
        lines += [f"- new overloads ({len(added)}: " + ", ".join(f"{c} {k}" for k, c in sorted(tally.items()))
                  + "): " + _names(added)]
    if removed:
        lines += [f"- overloads gone ({len(removed)}): " + _names(removed)]
    for key in sorted(moved):
        lines += [f"- {key} ({len(moved[key])}): " + _names(moved[key])]
    return lines + [""]


def _api_rows(result: ReleaseOperators) -> List[Sequence[str]]:
    rows = []
    for name, path in result.paths.items():
        reached = list(path.overloads) + [f"{o} (out=)" for o in path.out]
        when = ", ".join(f"`{w}`" for w in path.when + tuple(f"out= and {w}" for w in path.out_when))
        rows.append([f"`{name}`", path.cls, ", ".join(f"`{o}`" for o in reached), when or "any call",
                     path.via or ""])
    return rows


def render_docs(records: List[dict], results: List[ReleaseOperators]) -> str:
    newest = results[-1]
    reference = next((r for r in results if r.torch_npu == REFERENCE_RELEASE), newest)
    lines = [
        f"<!-- Generated by `{GENERATOR}`. Do not edit: run the generator (`--check` tells when stale). -->",
        "",
        "# ATen operators on the NPU, per torch_npu release",
        "",
        "Every ATen overload of torch's `native_functions.yaml` (in the torch wheel under",
        "`torchgen/packaged/ATen/native/`, `autogen` names expanded) is classified against the NPU",
        "kernel list of the torch-npu wheel (`torch_npu/csrc/aten/npu_native_functions_by_codegen.yaml`,",
        "sections `supported`, `symint`, `quant`, `autograd`; `custom` holds NPU-only operators). The",
        "rules NPU301/NPU302 read the result from `data/operator_support.yaml`; NPU303/NPU304 and the",
        "opt-in NPU930/NPU931 also read what was merged from Ascend's per-API support lists.",
        "",
        f"    {GENERATOR}            # regenerate the data file and this page",
        f"    {GENERATOR} --check    # write nothing; exit 1 if either is stale",
        "",
        "Wheels are read from the cache (`~/.cache/npu-lint/wheels`, or `$NPU_LINT_CACHE`): torch-npu",
        "wheels as for `torch_npu_releases.yaml`, and for each release the torch it pairs with as the",
        "CPython 3.11 manylinux aarch64 CPU wheel (`pip download --no-deps --only-binary=:all:",
        "--platform manylinux_2_28_aarch64 --platform manylinux2014_aarch64 --python-version 3.11",
        "torch==X`), which has the same platform-independent files as the multi-GB x86_64 CUDA builds.",
        "So each release is classified against its own torch's `native_functions.yaml`.",
        "Ascend's lists come from `--ascend-lists` (default `../shared/ascend-api-support` beside the",
        "repository); only the generator reads them.",
        "",
        "## Classes",
        "",
        "In order, the first that applies to an overload:",
        "",
        *_table(["class", "meaning"], [[c, DESCRIPTIONS[c]] for c in CLASSES]),
        "",
        "`_foreach_*` overloads without an NPU kernel are CompositeExplicitAutograd with a",
        "device-generic slow path (a loop over the tensors): composite-explicit. Composite overloads",
        "are as good as the ops they call, which the yaml does not name, so the rules only report",
        "overloads with a definite verdict (cpu-fallback, no-kernel).",
        "",
        "## Counts per release",
        "",
        *_table(["torch_npu", "torch", *CLASSES, "total", "Ascend list"],
                [[r.torch_npu, r.torch, *(f"{r.counts[c]:,}" for c in CLASSES), f"{r.counts['total']:,}",
                  rec["ascend_list"]] for r, rec in zip(results, records)]),
        "",
        "Ascend's list for a release is the one of its torch version, else the newest older one;",
        "releases older than every list have none (the chip, dtype-allowlist and not-verified rules",
        "then stay quiet).",
        "",
        *_differences(reference),
        *_isin_note(results),
        f"## Python APIs that fall back or fail, torch_npu {newest.torch_npu}",
        "",
        "A call reaches the overloads without out arguments, or with `out=` those with them. It is",
        "reported when every overload with a verdict falls back or fails, or, when some run on the",
        "NPU, when it passes an argument only the failing ones take (`reduce=` of `scatter`).",
        "`torch.nn.functional` functions follow their calls in torch/nn/functional.py, with literal",
        "argument conditions (`mode='lanczos'`); `nn` modules follow their `forward`.",
        "",
        *_table(["API", "class", "overloads", "when", "via"], _api_rows(newest)),
        "",
        "### Not reported: the verdict depends on argument types",
        "",
        *[f"- `{a.name}`: falls back as {_names(a.failing)}, runs on the NPU as {_names(a.running)}"
          for a in newest.ambiguous],
        "",
        "### Listed by hand (not ATen operators)",
        "",
        "torch_npu's fallback runs every dispatcher operator without an NPU kernel on the CPU, not only",
        "ATen ones; torchvision registers CPU and CUDA kernels for its operators:",
        "",
        *_table(["API", "operator", "NPU fused operator", "reference"],
                [[f"`{h.name}`", ", ".join(f"`{o}`" for o in h.overloads), f"`{h.npu_op}`" if h.npu_op else "",
                  h.reference] for h in HAND_LISTED]),
        "",
        "## dtypes",
        "",
        f"- torch_npu {newest.torch_npu} declares unsupported (`torch_npu.unsupported_dtype`, read from "
        f"`{newest.kernels.unsupported_dtypes_file}`): " + _names(newest.kernels.unsupported_dtypes) + ".",
        "- uint64 arithmetic has no NPU kernels (DESIGN.md section 5, listed by hand).",
        f"- Ascend's lists give dtype allowlists per argument; NPU304 checks {' and '.join(CHECKED_DTYPES)}",
        "  (literal or inferred) against them, so the data keeps the allowlists that exclude one of them.",
        "",
        *_class_lists(reference),
        "## Changes per release",
        "",
        "Overloads that changed class, appeared or disappeared from one release to the next (each",
        "release against its own torch's `native_functions.yaml`).",
        "",
    ]
    for previous, current in zip(results, results[1:]):
        lines += _changes(previous, current)
    return "\n".join(lines).rstrip() + "\n"
