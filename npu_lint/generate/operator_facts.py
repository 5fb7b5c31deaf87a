"""One release's operator facts: read the wheels, classify, map to Python, merge Ascend's lists.

`ReleaseOperators` keeps everything the docs page lists; `facts()` is the compact part that goes
into data/operator_support.yaml (only what the rules need).
"""
from __future__ import annotations

import dataclasses
from typing import Dict, FrozenSet, List, Optional, Tuple

from npu_lint.generate.ascend_lists import CHIP_IDS, AscendEntry, AscendList
from npu_lint.generate.aten_ops import NativeFunctions, read_native_functions
from npu_lint.generate.npu_kernels import NpuKernels, read_npu_kernels
from npu_lint.generate.op_classes import classify, counts
from npu_lint.generate.operator_extras import (
    FAST_PATH_MODULES, FAST_PATH_SWITCH, FUSED_OPERATORS, GENERIC_INSTEAD, HAND_LISTED, HAND_LISTED_WORKAROUND,
    NPU_WIDE_DTYPES
)
from npu_lint.generate.python_apis import Ambiguous, ApiPath, all_paths, python_api_names
from npu_lint.generate.torch_sources import TorchSources, read_torch_sources

# The dtypes the dtype rule checks against the per-operator allowlists.
CHECKED_DTYPES = ("fp64", "complex128")


@dataclasses.dataclass
class ReleaseOperators:
    torch_npu: str
    torch: str
    native: NativeFunctions
    kernels: NpuKernels
    classes: Dict[str, str]           # overload -> class
    paths: Dict[str, ApiPath]         # Python API -> path (ATen, F, nn, hand-listed)
    ambiguous: List[Ambiguous]
    known_names: FrozenSet[str]       # public Python names mapped from the torch wheel
    ascend: Optional[AscendList]
    mha_fastpath_switch: bool
    npu_ops: FrozenSet[str]

    @property
    def counts(self) -> Dict[str, int]:
        result = counts(self.classes)
        result["total"] = len(self.classes)
        return result

    def facts(self) -> dict:
        facts = {
            "counts": self.counts,
            "apis": {name: self._api_record(path) for name, path in self.paths.items()},
            "dtypes": {
                "unsupported": sorted(self.kernels.unsupported_dtypes),
                "no_arithmetic": sorted(NPU_WIDE_DTYPES),
            },
        }
        if self.ascend is not None:
            facts["ascend"] = ascend_facts(self.ascend)
            facts["unverified"] = sorted(self.known_names - set(self.ascend.entries))
        return facts

    def _api_record(self, path: ApiPath) -> dict:
        record: dict = {"class": path.cls}
        for key in ("overloads", "out", "when", "out_when"):
            value = getattr(path, key)
            if value:
                record[key] = list(value)
        if path.via:
            record["via"] = path.via
        fused = FUSED_OPERATORS.get(path.name) or _hand_listed_npu_op(path.name)
        if fused and fused.split(".")[-1] in self.npu_ops:
            record["npu_op"] = fused
        if path.name in GENERIC_INSTEAD:
            record["use"] = GENERIC_INSTEAD[path.name]
        if path.name in FAST_PATH_MODULES and self.mha_fastpath_switch:
            record["workaround"] = f"turn the inference fast path off with `{FAST_PATH_SWITCH}`"
        if path.name.startswith("torchvision."):
            record["workaround"] = HAND_LISTED_WORKAROUND
            record["reference"] = next(h.reference for h in HAND_LISTED if h.name == path.name)
        ascend = self.ascend.entries.get(path.name) if self.ascend else None
        if ascend is not None and ascend.falls_back:
            record["ascend"] = "falls back" if ascend.falls_back == "yes" else "may fall back"
        return record


def _hand_listed_npu_op(name: str) -> str:
    return next((h.npu_op for h in HAND_LISTED if h.name == name), "")


def _excludes_checked(allowed: Tuple[str, ...]) -> bool:
    return any(dtype not in allowed for dtype in CHECKED_DTYPES)


def matchable(name: str) -> bool:
    """Names a rule can match: module-level functions and classes (by import), Tensor methods (by
    inference); not methods of other classes (`torch.optim.Adam.step` is called on an instance)."""
    parts = name.split(".")
    if name.startswith("torch.Tensor."):
        return len(parts) == 3
    return not any(part[:1].isupper() for part in parts[1:-1])


def allowlist_items(entry: AscendEntry) -> List[str]:
    """`api:arg=d,d` (every chip), `api@chip:arg=d,d` (one chip), `api@chip:-d,d` (denied on a chip),
    for the allowlists that exclude a checked dtype."""
    items = []
    kept = {arg for arg, allowed in entry.dtypes.items() if _excludes_checked(allowed)}
    for arg in sorted(kept):
        items.append(f"{entry.name}:{arg}=" + ",".join(sorted(entry.dtypes[arg])))
    for chip, per_chip in sorted(entry.chip_dtypes.items()):
        for arg, allowed in sorted(per_chip.items()):
            if arg in kept or _excludes_checked(allowed):
                items.append(f"{entry.name}@{chip}:{arg}=" + ",".join(sorted(allowed)))
    for chip, denied in sorted(entry.denied.items()):
        checked = sorted(d for d in denied if d in CHECKED_DTYPES)
        if checked:
            items.append(f"{entry.name}@{chip}:-" + ",".join(checked))
    return items


def ascend_facts(ascend: AscendList) -> dict:
    entries = [e for name, e in sorted(ascend.entries.items()) if matchable(name)]
    facts: dict = {
        "unsupported_on": {chip: sorted(e.name for e in entries if chip in e.unsupported_on)
                           for chip in CHIP_IDS},
        "allowlists": sorted(item for e in entries for item in allowlist_items(e)),
        "falls_back": {kind: sorted(e.name for e in entries if e.falls_back == kind) for kind in ("may", "yes")},
    }
    return facts


def hand_listed_paths() -> Dict[str, ApiPath]:
    from npu_lint.generate.op_classes import CPU_FALLBACK

    return {h.name: ApiPath(h.name, CPU_FALLBACK, h.overloads) for h in HAND_LISTED}


def ascend_paths(ascend: Optional[AscendList], known: Dict[str, ApiPath]) -> Dict[str, ApiPath]:
    """APIs that Ascend's list says do fall back ("回退至CPU执行"), which the ATen data misses."""
    from npu_lint.generate.op_classes import CPU_FALLBACK

    if ascend is None:
        return {}
    return {name: ApiPath(name, CPU_FALLBACK, (name.rsplit(".", 1)[-1],), via="Ascend's support list")
            for name, entry in ascend.entries.items()
            if entry.falls_back == "yes" and name not in known}


def read_release(torch_npu: str, torch: str, torch_wheel: str, npu_wheel: str,
                 ascend: Optional[AscendList], npu_ops: FrozenSet[str]) -> ReleaseOperators:
    sources: TorchSources = read_torch_sources(torch_wheel)
    native = read_native_functions(sources.native_functions)
    kernels = read_npu_kernels(npu_wheel)
    classes = classify(native.overloads, kernels.overloads)
    paths, ambiguous = all_paths(native.overloads, classes, sources)
    paths.update(hand_listed_paths())
    paths.update(ascend_paths(ascend, paths))
    return ReleaseOperators(
        torch_npu=torch_npu, torch=torch, native=native, kernels=kernels, classes=classes,
        paths=dict(sorted(paths.items())), ambiguous=ambiguous,
        known_names=python_api_names(native.overloads, sources), ascend=ascend,
        mha_fastpath_switch=sources.mha_fastpath_switch, npu_ops=npu_ops)
