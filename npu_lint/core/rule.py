"""A rule as the rule data describes it, after validation."""
from __future__ import annotations

from typing import Any

from npu_lint.core.findings import Applicability, Severity
from npu_lint.core.records import record

# pylint message ids: one checker per rule family, checker digits 51-59
# (pylint reserves 51-99 for plugins), message digits from the rule code.
_PYLINT_LETTER = {Severity.ERROR: "E", Severity.WARNING: "W", Severity.INFO: "C"}


# The migration routes (`--strategy`): Ascend's manual rewrite, the transfer_to_npu patch, and
# code that runs on CUDA and the NPU alike. Here, so front ends can name them without loading rules.
STRATEGIES = ("manual", "auto", "agnostic")


@record(frozen=True)
class RuleDoc:
    what: str
    why: str
    example: str
    use_instead: str
    fix_safety: str
    target: str | None = None  # the torch_npu release the examples are checked against


@record(frozen=True)
class FixSpec:
    applicability: Applicability
    message: str


@record(frozen=True)
class Rule:
    code: str
    name: str
    kind: str
    severity: Severity
    message: str
    doc: RuleDoc
    source_file: str
    fix: FixSpec | None = None
    references: tuple[str, ...] = ()
    device_use: bool = False
    default_enabled: bool = True
    strategies: tuple[str, ...] = STRATEGIES  # migration routes the rule serves
    # What the agnostic route writes instead of the NPU fix ({message, method, expression}); None: no
    # device-neutral form, so the route shows the NPU fix without applying it.
    agnostic: Any = None
    step: str = "interfaces"  # the migration step it checks (see rules_loader.STEPS)
    since: str | None = None  # first torch_npu release the rule applies to
    until: str | None = None  # last one
    # Kind-specific match data, kept as plain values from the YAML.
    match: Any = None

    def applies_to(self, release: str, releases: tuple[str, ...]) -> bool:
        position = releases.index(release)
        return (self.since is None or releases.index(self.since) <= position) and (
            self.until is None or position <= releases.index(self.until))

    @property
    def family(self) -> str:
        return self.code[:4] + "xx"

    @property
    def pylint_checker_digits(self) -> str:
        return "5" + self.code[3]

    @property
    def pylint_msgid(self) -> str:
        return _PYLINT_LETTER[self.severity] + self.pylint_checker_digits + self.code[4:]

    @property
    def doc_path(self) -> str:
        """The rule's generated doc page, relative to the repository."""
        return f"docs/rules/{self.code}.md"

    def format_message(self, **fields: str) -> str:
        return self.message.format(**fields)

    def format_agnostic_finding(self, **fields: str) -> str:
        """The finding's message on the agnostic route, where the use has a device-neutral form."""
        template = (self.agnostic or {}).get("finding")
        return template.format(**fields) if template else self.format_message(**fields)

    def format_fix_message(self, **fields: str) -> str:
        assert self.fix is not None
        return self.fix.message.format(**fields)

    def format_agnostic_message(self, **fields: str) -> str:
        return self.agnostic["message"].format(**fields)
