"""The values every front end shows: a Finding, and the Fix it may carry.

Positions are 1-based lines and 0-based character columns (not UTF-8 byte
offsets as in Python's ast), so that they can be used to edit text directly.
Front ends convert them to their own convention.
"""
from __future__ import annotations

import enum
from npu_lint.core.records import record


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Confidence(str, enum.Enum):
    """How the engine knows: the same three levels pylint uses."""

    HIGH = "HIGH"  # resolved through import statements
    INFERENCE = "INFERENCE"  # astroid inferred the receiver
    INFERENCE_FAILURE = "INFERENCE_FAILURE"  # receiver unknown, reported anyway


class Applicability(str, enum.Enum):
    """Ruff's vocabulary: which fixes `npu-lint fix` may apply."""

    SAFE = "safe"
    UNSAFE = "unsafe"
    DISPLAY_ONLY = "display-only"

    @staticmethod
    def least_safe(*levels: "Applicability") -> "Applicability":
        """The strictest of these levels: a fix made of parts is no safer than its least safe part."""
        return max(levels, key=_APPLICABILITY_ORDER.index)


_APPLICABILITY_ORDER = (Applicability.SAFE, Applicability.UNSAFE, Applicability.DISPLAY_ONLY)


@record(frozen=True, order=True)
class Position:
    line: int  # 1-based
    column: int  # 0-based, in characters


@record(frozen=True, order=True)
class Edit:
    """Replace the text between start and end with content."""

    start: Position
    end: Position
    content: str


@record(frozen=True)
class Fix:
    applicability: Applicability
    message: str
    edits: tuple[Edit, ...] = ()


@record(frozen=True, order=True)
class Related:
    """Another place that belongs to a finding: a later use of what it reports, the line inside
    a library that makes the call CUDA-bound, or the finding of another rule that this one speaks
    for (`folded`: its code; the device string of `"cuda" if torch.cuda.is_available() else
    "cpu"`, whose edit is part of the test's fix). `path` is None for the finding's own file."""

    start: Position
    end: Position
    message: str
    path: str | None = None
    folded: str = ""


@record(frozen=True)
class Finding:
    code: str
    name: str
    message: str
    start: Position
    end: Position
    severity: Severity
    confidence: Confidence
    fix: Fix | None = None
    related: tuple[Related, ...] = ()

    @property
    def message_with_folded(self) -> str:
        """The message, followed by the findings folded into this one: for the front ends that
        show no related places (flake8, pylint, one-line reports). Someone porting by hand from
        `torch.cuda.is_available` alone would keep the `"cuda"` it picks."""
        folded = [f"also at {r.start.line}:{r.start.column + 1}" + (
            "" if r.message == f"{self.code}: {self.message}" else f", {r.message}")  # the same thing again
            for r in self.related if r.folded]
        return f"{self.message} ({'; '.join(folded)})" if folded else self.message

    @property
    def sort_key(self) -> tuple:
        return (self.start, self.end, self.code, self.message)
