"""Per-release torch_npu facts, read from the shipped `torch_npu_releases.yaml` (no network).

The file stores the oldest release in full under `base` and, for every later release, only what
changed under `changes` (see the comment at the top of the file and docs/generating-rule-data.md).
This module rebuilds each release, validates it and hands out frozen `ReleaseFacts`.
"""
from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path
from types import MappingProxyType
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple


from npu_lint.core.kept import kept
from npu_lint.knowledge.yaml_data import YAMLError, load_yaml
from npu_lint.core import records

DATA_FILE = "torch_npu_releases.yaml"
SCHEMA_VERSION = 1
PATH_SEPARATOR = "/"
PAIR_SEPARATOR = " -> "


@records.record(frozen=True)
class LibraryApis:
    """Functions and methods of one library that transfer_to_npu runs with the real
    `torch.cuda.is_available` (from library version `min_version` on)."""
    min_version: str
    functions: frozenset
    methods: frozenset


@records.record(frozen=True)
class ReleaseFacts:
    release: str                       # exact torch-npu version, e.g. "2.1.0.post17"
    torch_version: str                 # the torch it pairs with, e.g. "2.1.0"
    wheel: str
    sha256: str
    npu_all: frozenset                 # torch_npu.npu.__all__ == what torch.npu.X offers
    npu_unlisted: frozenset            # other module-level names of torch_npu.npu (_lazy_call, ...)
    npu_submodules: Mapping[str, frozenset]   # "amp", "memory", ... -> public names
    torch_fn_white_list: frozenset     # transfer_to_npu: torch.X whose device argument is rewritten
    torch_tensor_fn_white_list: frozenset
    torch_module_fn_white_list: frozenset
    torch_cuda_fn_white_list: frozenset
    device_kwargs: frozenset           # keyword arguments rewritten from cuda to npu
    transfer_lists: Mapping[str, frozenset]   # every module-level string list of transfer_to_npu
    module_patches: Mapping[str, str]  # "torch.cuda" -> "torch_npu.npu" (merges the patch's __all__)
    aliases: Mapping[str, str]         # "torch.Tensor.cuda" -> "torch.Tensor.npu"
    wrapped: Mapping[str, frozenset]   # wrapper function -> callables it wraps (lists expanded)
    string_replacements: Mapping[str, Mapping[str, str]]  # wrapper -> {"cuda": "npu", ...}
    apis_config: Mapping[str, LibraryApis]    # library -> APIs keeping the real is_available
    npu_ops: frozenset                 # public torch_npu.npu_* operators (exposed_api.py)
    has_npu_extension: bool            # torch_npu.utils.cpp_extension.NpuExtension exists
    autoload_entry_point: Optional[str] = None  # "[torch.backends]" entry of the wheel, "torch_npu:_autoload"

    @property
    def torch_loads_torch_npu(self) -> bool:
        """Does `import torch` alone import torch_npu (TORCH_DEVICE_BACKEND_AUTOLOAD left at "1")?"""
        return self.autoload_entry_point is not None and torch_autoloads_backends(self.torch_version)

    @property
    def device_rewritten(self) -> frozenset:
        """Callables whose device arguments transfer_to_npu rewrites from cuda to npu."""
        return frozenset().union(*(
            targets for wrapper, targets in self.wrapped.items()
            if self.string_replacements.get(wrapper, {}).get("cuda") == "npu"))


# torch imports the `torch.backends` entry points of installed packages at the end of
# `import torch` from 2.5.0 on (`_import_device_backends()` in torch/__init__.py, RFC
# pytorch/pytorch#122468), unless the environment variable is set to anything but "1".
# Read in the torch wheels 2.1.0 to 2.14.0: absent up to 2.4.0, present from 2.5.0.
TORCH_AUTOLOAD_SINCE = (2, 5)
AUTOLOAD_SWITCH = "TORCH_DEVICE_BACKEND_AUTOLOAD"


def torch_autoloads_backends(torch_version: str) -> bool:
    major_minor = tuple(int(part) for part in torch_version.split(".")[:2])
    return major_minor >= TORCH_AUTOLOAD_SINCE


# -- file location and caching ----------------------------------------------------------------

def data_resource():
    """The shipped YAML (a Traversable)."""
    from npu_lint.knowledge.location import data_resource as shipped

    return shipped(DATA_FILE)


@kept
def _default_data() -> "ReleaseData":
    resource = data_resource()
    try:
        text = resource.read_text(encoding="utf-8")
    except OSError as error:
        raise ValueError(f"{resource}: cannot read: {error}") from error
    return parse_release_data(text, str(resource))


def releases() -> Tuple[str, ...]:
    """Supported torch-npu versions, oldest to newest."""
    return _default_data().releases


def default_release() -> str:
    return _default_data().releases[-1]


def normalize_release(text: str) -> str:
    return _default_data().normalize_release(text)


def facts(release: str) -> ReleaseFacts:
    return _default_data().facts(release)


def first_release_with(attribute: str, name: str) -> Optional[str]:
    return _default_data().first_release_with(attribute, name)


def releases_with(attribute: str, name: str) -> Tuple[str, ...]:
    return _default_data().releases_with(attribute, name)


# -- the loaded data ---------------------------------------------------------------------------

class ReleaseData:
    def __init__(self, source: str, by_release: Dict[str, ReleaseFacts]):
        self.source = source
        self.releases: Tuple[str, ...] = tuple(by_release)
        self._facts = by_release

    def normalize_release(self, text: str) -> str:
        """Exact torch-npu version for "2.13", "2.13.0" or "2.13.0.postN"."""
        wanted = str(text).strip()
        for release, item in self._facts.items():
            if wanted in (release, item.torch_version, _major_minor(item.torch_version)):
                return release
        raise ValueError(f"unsupported torch_npu release {text!r}; supported: "
                         f"{', '.join(self.releases)} (or their X.Y / X.Y.Z torch versions)")

    def facts(self, release: str) -> ReleaseFacts:
        return self._facts[self.normalize_release(release)]

    def releases_with(self, attribute: str, name: str) -> Tuple[str, ...]:
        """Releases whose set `attribute` (a ReleaseFacts field, or "npu_submodules.amp",
        "transfer_lists.X", "wrapped.X") contains `name`; mappings are searched by key."""
        return tuple(r for r in self.releases if name in _lookup(self._facts[r], attribute))

    def first_release_with(self, attribute: str, name: str) -> Optional[str]:
        found = self.releases_with(attribute, name)
        return found[0] if found else None


def _major_minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


_FIELD_NAMES = {f.name for f in fields(ReleaseFacts)}


def _lookup(item: ReleaseFacts, attribute: str):
    head, _, key = attribute.partition(".")
    if head not in _FIELD_NAMES:
        raise ValueError(f"unknown release fact {attribute!r}; known: {', '.join(sorted(_FIELD_NAMES))}")
    value = getattr(item, head)
    if key:
        if not isinstance(value, Mapping):
            raise ValueError(f"release fact {head!r} has no parts, so {attribute!r} means nothing")
        value = value.get(key, frozenset())
    if not isinstance(value, (frozenset, Mapping)):
        raise ValueError(f"release fact {attribute!r} is not a set of names")
    return value


# -- reading and validating ---------------------------------------------------------------------

class _Invalid(ValueError):
    pass


def load_release_data(path) -> ReleaseData:
    """Read, rebuild and validate one data file; any problem is a ValueError naming file and field."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise ValueError(f"{path}: cannot read: {error}") from error
    return parse_release_data(text, str(path))


def parse_release_data(text: str, source: str) -> ReleaseData:
    """`load_release_data` for text already read; `source` names the file in error messages."""
    try:
        document = load_yaml(text)
    except YAMLError as error:
        raise ValueError(f"{source}: not valid YAML: {error}") from error
    try:
        return ReleaseData(source, _build(document))
    except _Invalid as error:
        raise ValueError(f"{source}: {error}") from None


def _build(document: Any) -> Dict[str, ReleaseFacts]:
    _expect(document, dict, "top level")
    schema = _field(document, "schema", int, "")
    if schema != SCHEMA_VERSION:
        raise _Invalid(f"field schema: version {schema}, this npu-lint reads {SCHEMA_VERSION}")
    provenance = _field(document, "releases", list, "")
    if not provenance:
        raise _Invalid("field releases: empty")
    records = []
    for index, record in enumerate(provenance):
        where = f"releases[{index}]"
        _expect(record, dict, where)
        records.append({key: _field(record, key, str, where + ".")
                        for key in ("torch_npu", "torch", "wheel", "sha256")})
    names = [r["torch_npu"] for r in records]
    if len(set(names)) != len(names):
        raise _Invalid("field releases: a torch_npu version is listed twice")
    base = _field(document, "base", dict, "")
    changes = _field(document, "changes", dict, "")
    if set(map(str, changes)) != set(names[1:]):
        raise _Invalid(f"field changes: keys must be the releases after the first ({', '.join(names[1:])})")
    flat = flatten_facts(base)
    result = {}
    for record in records:
        name = record["torch_npu"]
        if name != names[0]:
            change = changes.get(name)
            _expect(change, dict, f"changes[{name}]")
            flat = apply_changes(flat, change, f"changes[{name}]")
        try:
            result[name] = _release_facts(record, unflatten_facts(flat))
        except _Invalid as error:
            raise _Invalid(f"release {name}: {error}") from None
    return result


def _expect(value: Any, kind, where: str) -> Any:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise _Invalid(f"field {where}: expected {_KIND_NAMES.get(kind, kind.__name__)}, "
                       f"got {type(value).__name__}")
    return value


_KIND_NAMES = {dict: "a mapping", list: "a list", str: "a string", bool: "true or false", int: "an integer"}


def _field(container: dict, key: str, kind, prefix: str) -> Any:
    if key not in container:
        raise _Invalid(f"field {prefix}{key}: missing")
    return _expect(container[key], kind, prefix + key)


# -- the change scheme: flat paths, sets as sorted lists ----------------------------------------

def flatten_facts(nested: dict, prefix: str = "") -> Dict[str, Any]:
    """{"a/b": leaf}: mappings are walked, lists (sets of strings) and scalars are leaves."""
    flat: Dict[str, Any] = {}
    for key, value in nested.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            flat.update(flatten_facts(value, path + PATH_SEPARATOR))
        else:
            flat[path] = value
    return flat


def unflatten_facts(flat: Mapping[str, Any]) -> dict:
    nested: dict = {}
    for path, value in flat.items():
        *parents, leaf = path.split(PATH_SEPARATOR)
        node = nested
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return nested


def apply_changes(flat: Mapping[str, Any], change: Mapping[str, Any], where: str) -> Dict[str, Any]:
    """The next release from the previous one: per path `value:` (new or replaced), `deleted: true`,
    or for a set `added:` / `removed:`."""
    result = dict(flat)
    for path, edit in change.items():
        field_where = f"{where}[{path}]"
        _expect(edit, dict, field_where)
        unknown = set(edit) - {"value", "deleted", "added", "removed"}
        if unknown:
            raise _Invalid(f"field {field_where}: unknown keys {sorted(unknown)}")
        if "value" in edit:
            result[path] = edit["value"]
        elif edit.get("deleted") is True:
            if path not in result:
                raise _Invalid(f"field {field_where}: deletes a path that does not exist")
            del result[path]
        else:
            current = result.get(path)
            if not isinstance(current, list):
                raise _Invalid(f"field {field_where}: added/removed on a path that is not a set")
            added = _string_list(edit.get("added", []), field_where + ".added")
            removed = set(_string_list(edit.get("removed", []), field_where + ".removed"))
            result[path] = sorted((set(current) - removed) | set(added))
    return result


def _string_list(value: Any, where: str) -> List[str]:
    _expect(value, list, where)
    if not all(isinstance(item, str) for item in value):  # the message is built only for an error
        index = next(i for i, item in enumerate(value) if not isinstance(item, str))
        _expect(value[index], str, f"{where}[{index}]")
    return value


# -- one release's facts --------------------------------------------------------------------------

_KNOWN_FACTS = {"npu_all", "npu_unlisted", "npu_submodules", "transfer_to_npu", "apis_config", "npu_ops",
                "has_npu_extension", "autoload_entry_point"}
_KNOWN_TRANSFER = {"lists", "module_patches", "aliases", "wrapped", "string_replacements"}
_LIST_REFERENCE = re.compile(r"^(.*)\.\{(\w+)\}$")


def _release_facts(record: Dict[str, str], data: dict) -> ReleaseFacts:
    where = ""  # field paths below are those of the flat change scheme ("transfer_to_npu/lists/x")
    _no_unknown(data, _KNOWN_FACTS, where)
    transfer = _optional(data, "transfer_to_npu", dict, where)
    _no_unknown(transfer, _KNOWN_TRANSFER, where + "transfer_to_npu/")
    lists = {name: frozenset(_string_list(values, f"{where}transfer_to_npu/lists/{name}"))
             for name, values in _optional(transfer, "lists", dict, where + "transfer_to_npu/").items()}
    wrapped = {}
    for wrapper, targets in _optional(transfer, "wrapped", dict, where + "transfer_to_npu/").items():
        field_where = f"{where}transfer_to_npu/wrapped/{wrapper}"
        wrapped[wrapper] = frozenset(_expand_list_references(_string_list(targets, field_where), lists,
                                                             field_where))
    replacements = {
        wrapper: MappingProxyType(_pairs(values, f"{where}transfer_to_npu/string_replacements/{wrapper}"))
        for wrapper, values in _optional(transfer, "string_replacements", dict,
                                         where + "transfer_to_npu/").items()}
    return ReleaseFacts(
        release=record["torch_npu"],
        torch_version=record["torch"],
        wheel=record["wheel"],
        sha256=record["sha256"],
        npu_all=frozenset(_string_list(_required(data, "npu_all", where), where + "npu_all")),
        npu_unlisted=frozenset(_string_list(data.get("npu_unlisted", []), where + "npu_unlisted")),
        npu_submodules=MappingProxyType({
            name: frozenset(_string_list(values, f"{where}npu_submodules/{name}"))
            for name, values in _optional(data, "npu_submodules", dict, where).items()}),
        torch_fn_white_list=lists.get("torch_fn_white_list", frozenset()),
        torch_tensor_fn_white_list=lists.get("torch_tensor_fn_white_list", frozenset()),
        torch_module_fn_white_list=lists.get("torch_module_fn_white_list", frozenset()),
        torch_cuda_fn_white_list=lists.get("torch_cuda_fn_white_list", frozenset()),
        device_kwargs=lists.get("device_kwargs_list", frozenset()),
        transfer_lists=MappingProxyType(lists),
        module_patches=MappingProxyType(_pairs(_required(transfer, "module_patches", where + "transfer_to_npu/"),
                                               where + "transfer_to_npu/module_patches")),
        aliases=MappingProxyType(_pairs(_required(transfer, "aliases", where + "transfer_to_npu/"),
                                        where + "transfer_to_npu/aliases")),
        wrapped=MappingProxyType(wrapped),
        string_replacements=MappingProxyType(replacements),
        apis_config=MappingProxyType({
            library: _library_apis(entry, f"{where}apis_config/{library}")
            for library, entry in _optional(data, "apis_config", dict, where).items()}),
        npu_ops=frozenset(_string_list(_required(data, "npu_ops", where), where + "npu_ops")),
        has_npu_extension=_expect(_required(data, "has_npu_extension", where), bool,
                                  where + "has_npu_extension"),
        autoload_entry_point=_expect(data["autoload_entry_point"], str, where + "autoload_entry_point")
        if "autoload_entry_point" in data else None,
    )


def _required(data: dict, key: str, where: str) -> Any:
    if key not in data:
        raise _Invalid(f"field {where}{key}: missing")
    return data[key]


def _optional(data: dict, key: str, kind, where: str) -> Any:
    """Empty mappings vanish when flattened, so a missing mapping means an empty one."""
    return _expect(data.get(key, kind()), kind, where + key)


def _no_unknown(data: dict, known: set, where: str) -> None:
    unknown = sorted(set(data) - known)
    if unknown:
        raise _Invalid(f"field {where}{unknown[0]}: unknown (known: {', '.join(sorted(known))})")


def _pairs(values: Any, where: str) -> Dict[str, str]:
    result = {}
    for index, item in enumerate(_string_list(values, where)):
        left, separator, right = item.partition(PAIR_SEPARATOR)
        if not separator or not left or not right:
            raise _Invalid(f"field {where}[{index}]: expected 'name{PAIR_SEPARATOR}replacement', got {item!r}")
        result[left] = right
    return result


def _expand_list_references(targets: Iterable[str], lists: Mapping[str, frozenset], where: str) -> List[str]:
    """`torch.{torch_fn_white_list}` stands for `torch.X` for each X of that list."""
    expanded = []
    for target in targets:
        match = _LIST_REFERENCE.match(target)
        if not match:
            expanded.append(target)
            continue
        prefix, list_name = match.groups()
        if list_name not in lists:
            raise _Invalid(f"field {where}: {target!r} names no list of transfer_to_npu/lists")
        expanded.extend(f"{prefix}.{name}" for name in lists[list_name])
    return expanded


def _library_apis(entry: Any, where: str) -> LibraryApis:
    _expect(entry, dict, where)
    _no_unknown(entry, {"version", "function", "method"}, where + "/")
    return LibraryApis(
        min_version=_expect(_required(entry, "version", where + "/"), str, where + "/version"),
        functions=frozenset(_string_list(entry.get("function", []), where + "/function")),
        methods=frozenset(_string_list(entry.get("method", []), where + "/method")),
    )
