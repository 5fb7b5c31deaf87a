"""What a run is asked to do: which rules, for which torch_npu release."""
from __future__ import annotations

import dataclasses

from .rule import Rule


@dataclasses.dataclass(frozen=True)
class Settings:
    select: tuple[str, ...] = ()  # code prefixes; empty means the default set
    ignore: tuple[str, ...] = ()
    target_torch_npu: str | None = None  # None means the newest release

    def enables(self, rule: Rule) -> bool:
        if any(rule.code.startswith(prefix) for prefix in self.ignore):
            return _longest(rule.code, self.select) > _longest(rule.code, self.ignore)
        if self.select:
            return _longest(rule.code, self.select) > 0 and (
                rule.default_enabled or _longest(rule.code, self.select) > 3
            )
        return rule.default_enabled


def _longest(code: str, prefixes: tuple[str, ...]) -> int:
    """Length of the most specific prefix matching code (0 when none)."""
    return max((len(p) for p in prefixes if code.startswith(p)), default=0)


def split_codes(value: str | None) -> tuple[str, ...]:
    """'NPU1, NPU201' -> ('NPU1', 'NPU201')."""
    if not value:
        return ()
    return tuple(part.strip().upper() for part in value.replace(",", " ").split() if part.strip())
