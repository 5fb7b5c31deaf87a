"""Report formats of `npu-lint check`: each turns file results into text."""
from __future__ import annotations

from typing import Callable, Iterable

from ..runner import FileResult
from .concise import format_concise
from .full import format_full
from .github import format_github
from .json_format import format_json
from .junit import format_junit
from .sarif import format_sarif

FORMATS: dict[str, Callable[[Iterable[FileResult]], str]] = {
    "text": format_full,
    "concise": format_concise,
    "json": format_json,
    "sarif": format_sarif,
    "github": format_github,
    "junit": format_junit,
}
