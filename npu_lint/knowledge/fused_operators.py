"""The fused-operator facts the NPU5xx rules print (data/fused_operators.yaml)."""
from __future__ import annotations

import functools
from typing import Dict, Optional, Tuple

from npu_lint.knowledge import release_data
from npu_lint.knowledge.operator_data import CHIPS
from npu_lint.knowledge.yaml_data import load_yaml
from npu_lint.core.records import record

DATA_FILE = "fused_operators.yaml"


@record(frozen=True)
class FusedOperator:
    key: str
    api: str
    signature: str
    since: str
    chips: Tuple[str, ...]
    dtypes: str
    layouts: str
    sources: Tuple[str, ...]
    other_chips: str = ""
    until: Optional[str] = None

    def available(self, release: str, chip: str) -> bool:
        """Whether the target torch_npu release has it and the docs list the target chip."""
        order = release_data.releases()
        position = order.index(release)
        if position < order.index(self.since) or (self.until and position > order.index(self.until)):
            return False
        return chip in self.chips

    def releases_text(self) -> str:
        last = self.until or release_data.releases()[-1]
        return f"torch_npu {_short(self.since)} to {_short(last)}"

    def chips_text(self) -> str:
        names = ", ".join(CHIPS.get(chip, chip) for chip in self.chips)
        return f"{names}, {self.other_chips}" if self.other_chips else names

    def facts(self) -> str:
        """One sentence for a message: where it runs and what it takes."""
        return f"{self.releases_text()}, on {self.chips_text()}; dtypes: {self.dtypes}; {self.layouts}"


@record(frozen=True)
class OptimizerCounterpart:
    torch_api: str
    fused: str
    parameters: Tuple[str, ...]
    required: Tuple[str, ...]


def _short(release: str) -> str:
    return release.split(".post")[0]


@functools.lru_cache(maxsize=1)
def _data() -> Tuple[Dict[str, FusedOperator], Dict[str, OptimizerCounterpart], Dict[str, Tuple[str, ...]]]:
    from npu_lint.knowledge.location import data_file

    document = load_yaml(data_file(DATA_FILE))
    operators = {}
    for key, raw in document["operators"].items():
        fields = dict(raw)
        for field in ("since", "until"):
            if fields.get(field) is not None:
                fields[field] = release_data.normalize_release(str(fields[field]))
        fields["chips"] = tuple(fields["chips"])
        fields["sources"] = tuple(fields["sources"])
        unknown = set(fields["chips"]) - set(CHIPS)
        if unknown:
            raise ValueError(f"{DATA_FILE}: {key}: unknown chips {sorted(unknown)}")
        operators[key] = FusedOperator(key=key, **fields)
    optimizers = {
        name: OptimizerCounterpart(name, raw["fused"], tuple(raw["parameters"]), tuple(raw.get("required", ())))
        for name, raw in document["optimizers"].items()
    }
    by_rule = {code: tuple(keys) for code, keys in document.get("rules", {}).items()}
    for code, keys in by_rule.items():
        missing = set(keys) - set(operators)
        if missing:
            raise ValueError(f"{DATA_FILE}: rules: {code} names unknown operators {sorted(missing)}")
    return operators, optimizers, by_rule


def operator(key: str) -> FusedOperator:
    return _data()[0][key]


def optimizers() -> Dict[str, OptimizerCounterpart]:
    return _data()[1]


def for_rule(code: str) -> Tuple[FusedOperator, ...]:
    """The operators a rule suggests (empty for other rules)."""
    return tuple(operator(key) for key in _data()[2].get(code, ()))
