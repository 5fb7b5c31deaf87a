"""Report formats of `npu-lint check`: each turns file results into text."""
from __future__ import annotations

import importlib
from typing import Callable, Iterable, Mapping

# name -> (module of this package, function): a run imports only the format it prints.
_FORMATS = {
    "text": ("full", "format_full"),
    "concise": ("concise", "format_concise"),
    "json": ("json_format", "format_json"),
    "sarif": ("sarif", "format_sarif"),
    "github": ("github", "format_github"),
    "junit": ("junit", "format_junit"),
}


class _Formats(Mapping):
    """`FORMATS[name]` -> the function that turns file results into the report's text."""

    def __getitem__(self, name: str) -> Callable[[Iterable], str]:
        module, function = _FORMATS[name]
        return getattr(importlib.import_module(f"{__name__}.{module}"), function)

    def __iter__(self):
        return iter(_FORMATS)

    def __len__(self) -> int:
        return len(_FORMATS)


FORMATS: Mapping[str, Callable[[Iterable], str]] = _Formats()
