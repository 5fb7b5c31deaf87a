"""Find the rule data: package data when installed, rules/ in a checkout."""
from __future__ import annotations

import importlib.resources
from pathlib import Path
from typing import Iterator

_CHECKOUT_RULES = Path(__file__).resolve().parent.parent / "rules"
# Files under rules/ that hold facts the rules read, not rules.
DATA_FILES = frozenset({"arguments.yaml", "cuda_names.yaml", "torch_npu_releases.yaml", "transfer_to_npu.yaml",
                        "operator_support.yaml"})


def rules_dir():
    """The folder holding rules/*.yaml, as a Traversable."""
    try:
        packaged = importlib.resources.files("npu_lint._rules")
        if packaged.is_dir() and any(p.name.endswith(".yaml") for p in packaged.iterdir()):
            return packaged
    except ModuleNotFoundError:
        pass
    return _CHECKOUT_RULES


def rule_files() -> Iterator[tuple[str, str]]:
    """(file name, text) for every rule file under rules/, sorted by name."""
    folder = rules_dir()
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if entry.name.endswith(".yaml") and entry.name not in DATA_FILES:
            yield entry.name, entry.read_text(encoding="utf-8")


def data_file(name: str) -> str:
    """Text of one data file under rules/ (e.g. the torch_npu release facts)."""
    return (rules_dir() / name).read_text(encoding="utf-8")
