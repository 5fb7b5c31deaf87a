"""Report formats of `npu-lint check`: each turns file results into text."""
from __future__ import annotations

from typing import Callable, Iterable

from npu_lint.frontends.reports.concise import format_concise
from npu_lint.frontends.reports.full import format_full
from npu_lint.frontends.reports.github import format_github
from npu_lint.frontends.reports.json_format import format_json
from npu_lint.frontends.reports.junit import format_junit
from npu_lint.frontends.reports.sarif import format_sarif
from npu_lint.run.runner import FileResult

FORMATS: dict[str, Callable[[Iterable[FileResult]], str]] = {
    "text": format_full,
    "concise": format_concise,
    "json": format_json,
    "sarif": format_sarif,
    "github": format_github,
    "junit": format_junit,
}
