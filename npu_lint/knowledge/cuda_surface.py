"""Which `torch.cuda` names torch_npu offers as `torch.npu` names, per release.

The name lists come from the torch-npu wheels (release_data); renames, notes
and hints are data in data/cuda_names.yaml.
"""
from __future__ import annotations

import functools

from npu_lint.core.kept import kept
from npu_lint.knowledge import release_data, torch_model
from npu_lint.knowledge.loader import RuleDataError
from npu_lint.knowledge.location import data_file
from npu_lint.knowledge.yaml_data import load_yaml
from npu_lint.core.records import record

CUDA = "torch.cuda"
NPU = "torch.npu"
NAMES_FILE = "cuda_names.yaml"


@record(frozen=True)
class CudaNames:
    renames: dict[str, str]
    notes: dict[str, str]
    hints: dict[str, str]
    stand_ins: dict[str, str]
    result_stand_ins: dict[str, str]
    # torch.cuda name -> (torch's device-neutral name, first torch_npu release where it works)
    neutral: dict[str, tuple[str, str]]


@kept
def cuda_names() -> CudaNames:
    data = load_yaml(data_file(NAMES_FILE)) or {}
    tables = {}
    for key in ("renames", "notes", "hints", "stand_ins", "result_stand_ins"):
        table = data.get(key, {})
        if not isinstance(table, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in table.items()):
            raise RuleDataError(NAMES_FILE, None, key, "expected a mapping of names to strings")
        tables[key] = table
    return CudaNames(**tables, neutral=_neutral_table(data.get("neutral", {})))


def _neutral_table(table) -> dict[str, tuple[str, str]]:
    if not isinstance(table, dict):
        raise RuleDataError(NAMES_FILE, None, "neutral", "expected a mapping of names to {name, since}")
    neutral = {}
    for qname, entry in table.items():
        name = entry.get("name") if isinstance(entry, dict) else None
        try:
            since = release_data.normalize_release(entry.get("since", "") if isinstance(entry, dict) else "")
        except ValueError as error:
            raise RuleDataError(NAMES_FILE, None, f"neutral.{qname}.since", str(error)) from error
        if not isinstance(qname, str) or not isinstance(name, str):
            raise RuleDataError(NAMES_FILE, None, f"neutral.{qname}", "expected {name: <torch name>, since: <release>}")
        neutral[qname] = (name, since)
    return neutral


def neutral_name(qname: str, release: str) -> str | None:
    """torch's device-neutral name for qname where the release makes it work on the NPU."""
    entry = cuda_names().neutral.get(qname)
    if entry is None:
        return None
    order = release_data.releases()
    name, since = entry
    return name if release in order and order.index(release) >= order.index(since) else None


def is_cuda_name(qname: str) -> bool:
    return qname == CUDA or qname.startswith(CUDA + ".")


def _longest_prefix(qname: str, table: dict[str, str]) -> str | None:
    parts = qname.split(".")
    for end in range(len(parts), 2, -1):
        candidate = ".".join(parts[:end])
        if candidate in table:
            return candidate
    return None


def note_for(qname: str) -> str:
    key = _longest_prefix(qname, cuda_names().notes)
    return cuda_names().notes[key] if key else ""


def stand_in_note(qname: str) -> str:
    """Why the torch.npu counterpart of qname only stands in for it ("" for a real counterpart)."""
    key = _longest_prefix(qname, cuda_names().stand_ins)
    return cuda_names().stand_ins[key] if key else ""


def result_stand_in_notes(qname: str) -> dict[str, str]:
    """Field -> why it does not answer on the NPU, for the fields of what the call `qname`
    returns that its torch.npu counterpart leaves empty (`get_device_properties(0).major`)."""
    prefix = qname + "."
    return {key[len(prefix):]: note for key, note in cuda_names().result_stand_ins.items() if key.startswith(prefix)}


def hint_for(qname: str) -> str:
    key = _longest_prefix(qname, cuda_names().hints)
    return cuda_names().hints[key] if key else ""


def _npu_has(parts: list[str], facts, unlisted: bool = True) -> bool:
    """Does torch_npu have `torch.npu.<parts>`? Submodules are checked a level deep. Without
    `unlisted`, only the names of torch_npu.npu's `__all__` count at its top."""
    if not parts:
        return True
    for end in range(len(parts), 0, -1):  # the longest submodule prefix, e.g. amp.autocast_mode
        names = facts.npu_submodules.get(".".join(parts[:end]))
        if names is not None and torch_model.has_module(".".join([CUDA, *parts[:end]])):
            return end == len(parts) or parts[end] in names
    # torch.npu is the module torch_npu.npu itself: every name it binds works, not only __all__.
    return parts[0] in facts.npu_all or (unlisted and parts[0] in facts.npu_unlisted)


@functools.lru_cache(maxsize=4096)
def npu_equivalent(qname: str, release: str) -> str | None:
    """`torch.npu...` for a `torch.cuda...` name, or None when torch_npu lacks it."""
    facts = release_data.facts(release)
    neutral = neutral_name(qname, release)
    if neutral is not None:
        return neutral
    renamed = cuda_names().renames.get(qname)
    if renamed is not None:
        return renamed if _npu_has(renamed.split(".")[2:], facts) else None
    parts = qname.split(".")[2:]
    if _npu_has(parts, facts):
        return ".".join([NPU, *parts])
    # transfer_to_npu binds torch.cuda's name to this torch.npu one, so it exists, though the
    # public names read from the wheel leave it out (`torch.npu.memory._record_memory_history`)
    alias = facts.aliases.get(qname)
    return alias if alias is not None and is_plain_rename(qname, alias) else None


def patched_by_transfer_to_npu(qname: str, release: str) -> bool:
    """Does transfer_to_npu make `torch.cuda...` work? Its __all__ copy and its aliases only."""
    facts = release_data.facts(release)
    if qname in facts.aliases or qname in facts.module_patches or neutral_name(qname, release):
        return True  # the patch leaves torch's own objects under torch.cuda where they are
    # torch_npu's _apply_patches copies only `__all__` of torch_npu.npu into torch.cuda: a name
    # outside it (`_initialized`, `default_generators`, `_lazy_init`) stays torch.cuda's own,
    # False, empty or failing on an Ascend host.
    parts = qname.split(".")[2:]
    return not parts or _npu_has(parts, facts, unlisted=False)


def first_release_with_equivalent(qname: str, patched: bool = False) -> str | None:
    """The oldest supported release that has an NPU equivalent for qname
    (with `patched`, one that transfer_to_npu maps)."""
    for release in release_data.releases():
        if (patched_by_transfer_to_npu(qname, release) if patched else npu_equivalent(qname, release) is not None):
            return release
    return None


def is_plain_rename(qname: str, replacement: str) -> bool:
    """True when only `cuda` becomes `npu` (no other segment changes)."""
    return replacement == NPU + qname[len(CUDA):]
