"""The comments that suppress findings: `# noqa`, `# noqa: NPU101`, `# pylint: disable=<rule-name>`.

The engine applies them (engine/suppression.py); a check that folds findings together asks
`may_hide` first, so that a finding a comment hides takes no other along."""
from __future__ import annotations

import re

# flake8's own pattern, so both front ends read a comment the same way.
NOQA = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE)
PYLINT_DISABLE = re.compile(r"#\s*pylint:\s*disable(?P<next>-next)?\s*=\s*(?P<names>[\w\-, ]+)")


def noqa_codes(comment: str) -> frozenset[str] | None | bool:
    """The codes a `# noqa` comment names, None for a bare one (every code), False without one."""
    match = NOQA.search(comment)
    if not match:
        return False
    codes = match.group("codes")
    return frozenset(c.upper() for c in re.split(r"[,\s]+", codes) if c) if codes else None


def may_hide(line: str, code: str, name: str) -> bool:
    """Could a comment on this source line hide a finding of this rule (`disable-next` on the
    line before aside)? Read from the text: a `#` inside a string may say yes, never no."""
    codes = noqa_codes(line)
    if codes is None or (codes and any(code.startswith(c) for c in codes)):
        return True
    return any(match.group("next") is None and {name, code, "all"} & {n.strip() for n in match.group("names").split(",")}
               for match in PYLINT_DISABLE.finditer(line))
