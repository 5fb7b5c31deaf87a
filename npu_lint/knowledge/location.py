"""Where the shipped knowledge is: package data when installed, rules/ and data/ in a checkout.

rules/ holds rule records only; data/ holds the tables the checks read and the generated facts.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Iterator

_CHECKOUT = Path(__file__).resolve().parents[2]


def _folder(package: str, checkout_name: str):
    """A shipped folder as a Traversable: the installed package data, else the checkout's folder."""
    try:
        spec = importlib.util.find_spec(package)
    except ModuleNotFoundError:
        spec = None
    if spec is None:
        return _CHECKOUT / checkout_name
    # An installed folder is read as it is: importlib.resources, with the tempfile, shutil and
    # zip modules it imports, is only needed for an install that is not plain files (a zip).
    folders = [Path(location) for location in spec.submodule_search_locations or ()]
    packaged = next((folder for folder in folders if folder.is_dir()), None)
    if packaged is None:
        from importlib import resources  # pylint: disable=import-outside-toplevel

        packaged = resources.files(package)
    return packaged if packaged.is_dir() and _has_yaml(packaged) else _CHECKOUT / checkout_name


def _has_yaml(folder) -> bool:
    return any(p.name.endswith(".yaml") for p in folder.iterdir())


def rules_dir():
    """The folder holding the rule records (rules/*.yaml)."""
    return _folder("npu_lint._rules", "rules")


def data_dir():
    """The folder holding the tables and generated facts (data/*.yaml)."""
    return _folder("npu_lint._data", "data")


def rule_files() -> Iterator[tuple[str, str]]:
    """(file name, text) for every rule file under rules/, sorted by name."""
    for entry in sorted(rules_dir().iterdir(), key=lambda p: p.name):
        if entry.name.endswith(".yaml"):
            yield entry.name, entry.read_text(encoding="utf-8")


def data_resource(name: str):
    """One data file (a Traversable), e.g. the torch_npu release facts."""
    return data_dir() / name


def data_file(name: str) -> str:
    """Text of one data file under data/."""
    return data_resource(name).read_text(encoding="utf-8")
