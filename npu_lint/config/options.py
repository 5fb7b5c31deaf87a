"""The settings every front end takes as an option, declared once.

The CLI, pylint and flake8 generate their own option declarations from this list, and every
value goes through the same parsers as the configuration file's keys (config/files.py), so a
bad value reads the same whichever front end was given it.
"""
from __future__ import annotations

from typing import Any, Mapping

from npu_lint.core.rule import STRATEGIES
from npu_lint.core.records import record


@record(frozen=True)
class Option:
    key: str  # the flag (`--key`) and the configuration key
    metavar: str
    help: str
    choices: tuple[str, ...] | None = None

    @property
    def dest(self) -> str:
        return self.key.replace("-", "_")


FRONT_END_OPTIONS = (
    Option("target-torch-npu", "VERSION", "torch_npu release to check against (default: the newest)"),
    Option("npu-chip", "CHIP", "Ascend chip to check against (default: Atlas A2)"),
    Option("library-versions", "LIB=VER,...",
           "third-party library versions to assume where not installed, e.g. timm=0.9.16 "
           "(default: the newest summarised)"),
    Option("strategy", "ROUTE",
           "migration route: manual rewrite (default), transfer_to_npu (auto), or code that runs on CUDA "
           "and the NPU alike (agnostic, torch 2.6 and later)", STRATEGIES),
)


def overrides(values: Mapping[str, Any], where: str) -> dict[str, Any]:
    """Settings fields from a front end's option values (None or "" when not given), validated
    like a configuration file's keys; a bad value is a ConfigError that names `where`."""
    from npu_lint.config.files import parse_table

    given = {option.key: values[option.dest] for option in FRONT_END_OPTIONS
             if values.get(option.dest) not in (None, "")}
    return parse_table(given, where)
