"""Which torch names exist (and which torch deprecates) in the torch a torch_npu release pairs with.

Read from the generated data/torch_surface.yaml (npu_lint.generate.torch_surface).
"""
from __future__ import annotations


from npu_lint.core.kept import kept
from npu_lint.knowledge import release_data
from npu_lint.knowledge.loader import RuleDataError
from npu_lint.knowledge.location import data_file
from npu_lint.knowledge.yaml_data import load_yaml

SURFACE_FILE = "torch_surface.yaml"


@kept
def _per_torch() -> dict[str, tuple[frozenset, frozenset]]:
    """torch version -> (names, deprecated names), rebuilt from the compact file."""
    data = load_yaml(data_file(SURFACE_FILE)) or {}
    releases = data.get("releases")
    if not isinstance(releases, dict) or not releases:
        raise RuleDataError(SURFACE_FILE, None, "releases", "expected a mapping of torch versions")
    result, names, deprecated = {}, set(), set()
    for version, entry in releases.items():
        if not isinstance(entry, dict):
            raise RuleDataError(SURFACE_FILE, None, f"releases.{version}", "expected a mapping")
        names = (names | set(entry.get("names", ())) | set(entry.get("names_added", ()))) - set(
            entry.get("names_removed", ()))
        deprecated = (deprecated | set(entry.get("deprecated", ())) | set(entry.get("deprecated_added", ()))) - set(
            entry.get("deprecated_removed", ()))
        result[str(version)] = (frozenset(names), frozenset(deprecated))
    return result


def torch_version(release: str | None) -> str:
    """The torch a torch_npu release pairs with (None: the newest release)."""
    return release_data.facts(release or release_data.default_release()).torch_version


def torch_names(release: str | None) -> frozenset:
    return _per_torch()[torch_version(release)][0]


def torch_has(name: str, release: str | None) -> bool:
    """Does the target's torch have `name` (one of the names this table tracks)?"""
    return name in torch_names(release)


def torch_deprecates(name: str, release: str | None) -> bool:
    return name in _per_torch()[torch_version(release)][1]


def version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".")[:3] if part.isdigit())


def first_torch_with(name: str) -> str | None:
    """The oldest paired torch release that has `name`."""
    return next((version for version, (names, _) in _per_torch().items() if name in names), None)
