"""What a bare integer device index means per torch_npu release (data/integer_devices.yaml).

The facts are hand-written from torch's and torch_npu's sources and binaries; this module only
reads and validates them. A form is reported by NPU112 where its meaning is `cuda`.
"""
from __future__ import annotations

from typing import Mapping, Optional, Tuple

from npu_lint.core.kept import kept
from npu_lint.knowledge import release_data
from npu_lint.knowledge.loader import RuleDataError
from npu_lint.knowledge.location import data_file
from npu_lint.knowledge.yaml_data import load_yaml
from npu_lint.core.records import record

DATA_FILE = "integer_devices.yaml"
CUDA = "cuda"


@record(frozen=True)
class DeviceForm:
    name: str                      # "factory"
    written: str                   # how the docs show it
    label: str                     # how a message names it
    callables: Tuple[str, ...]     # qualified names that take the integer
    keyword: Optional[str]         # the argument's keyword, None when positional only
    position: Optional[int]        # its position, None when keyword only
    sources: Tuple[str, ...]


@record(frozen=True)
class ReleaseMeanings:
    release: str
    torch: str
    meanings: Mapping[str, str]    # form name -> meaning ("npu", "cuda", ...)
    note: str

    def cuda_forms(self) -> Tuple[str, ...]:
        return tuple(form for form, meaning in self.meanings.items() if meaning == CUDA)


@record(frozen=True)
class IntegerDeviceFacts:
    meanings: Mapping[str, str]    # meaning -> its explanation
    forms: Mapping[str, DeviceForm]
    releases: Mapping[str, ReleaseMeanings]
    integer_results: frozenset     # calls documented to return an int device index

    def release(self, target: str) -> ReleaseMeanings:
        return self.releases[release_data.normalize_release(target)]


def _error(field: str, problem: str) -> RuleDataError:
    return RuleDataError(DATA_FILE, None, field, problem)


def parse(text: str) -> IntegerDeviceFacts:
    data = load_yaml(text) or {}
    meanings = data.get("meanings")
    if not isinstance(meanings, dict) or CUDA not in meanings:
        raise _error("meanings", "expected a mapping that explains at least `cuda`")
    forms = {}
    for name, raw in (data.get("forms") or {}).items():
        argument = raw.get("argument") or {}
        if not all(raw.get(field) for field in ("written", "label", "callables", "sources")):
            raise _error(f"forms.{name}", "needs `written`, `label`, `callables` and `sources`")
        if argument.get("keyword") is None and argument.get("position") is None:
            raise _error(f"forms.{name}.argument", "needs a keyword or a position")
        forms[name] = DeviceForm(name, raw["written"], raw["label"], tuple(raw["callables"]), argument.get("keyword"),
                                 argument.get("position"), tuple(raw["sources"]))
    if not forms:
        raise _error("forms", "missing")
    releases = {}
    for release, raw in (data.get("releases") or {}).items():
        release = str(release)
        row = {form: raw.get(form) for form in forms}
        for form, meaning in row.items():
            if meaning not in meanings:
                raise _error(f"releases.{release}.{form}", f"expected one of {', '.join(meanings)}, got {meaning!r}")
        releases[release] = ReleaseMeanings(release, str(raw.get("torch")), row, str(raw.get("note", "")))
    missing = [r for r in release_data.releases() if r not in releases]
    if missing or len(releases) != len(release_data.releases()):
        raise _error("releases", f"expected one row per torch_npu release; missing {missing or 'none'}, "
                                 f"unknown {sorted(set(releases) - set(release_data.releases())) or 'none'}")
    results = data.get("integer_results") or []
    if not isinstance(results, list) or not all(isinstance(name, str) for name in results):
        raise _error("integer_results", "expected a list of qualified names")
    return IntegerDeviceFacts(dict(meanings), forms, releases, frozenset(results))


@kept
def integer_device_facts() -> IntegerDeviceFacts:
    return parse(data_file(DATA_FILE))
