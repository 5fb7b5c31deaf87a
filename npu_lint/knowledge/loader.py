"""Load and validate the rule data in rules/*.yaml.

Every problem becomes a RuleDataError that names the file, the rule and the
field, so that a broken rule file never ends in a traceback.
"""
from __future__ import annotations

import functools
import re
import string
from typing import Any, Iterable


from npu_lint.core.kept import kept
from npu_lint.core.findings import Applicability, Severity
from npu_lint.core.rule import STRATEGIES, FixSpec, Rule, RuleDoc
from npu_lint.knowledge.location import rule_files
from npu_lint.knowledge.yaml_data import YAMLError, load_yaml

CODE_PATTERN = re.compile(r"^NPU[1-9][0-9]{2}$")
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")

# What each kind needs in its `match` block: field -> expected type.
KIND_FIELDS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "symbol": {"symbols": list, "prefixes": list, "replace_last": str, "replace_prefix": dict, "suggestion": str,
               "suggestions": dict, "quiet_on_cpu": bool, "quiet_in_type_tests": bool, "quiet_in_queries": bool,
               "quiet_in_device_tables": bool, "fix_with_callee": list},
    "method": {"methods": list, "call": bool, "receivers": list, "replacement": str},
    "string": {"pattern": str, "argument": str, "outside_argument": str, "replace": dict, "replace_part": dict,
               "triggers": list,
               "outside_wrapper": str, "only_in": str, "safe_in": str, "given_only": str,
               "in_paths": bool, "quiet_deciding": list, "choice_values": str, "beside_in_lists": bool,
               "shown_beside": list},
    "import": {"modules": list, "suggestions": dict, "runs_on_npu": list, "used_only": bool},
    "check": {"check": str},
    "argument": {"calls": list, "argument": str, "position": int, "missing": bool, "values": list,
                 "any_call": list, "unless_called": list, "insert": str, "quiet_with": dict,
                 "quiet_positions": dict,
                 "outside_tests": bool},
}
KIND_REQUIRED = {
    "symbol": (),
    "method": ("methods", "receivers"),
    "string": ("pattern",),
    "import": ("modules",),
    "check": ("check",),
    "argument": (),
}
# The placeholders each data kind's matcher fills in its messages (checks/symbol.py, method.py,
# string.py, imports.py, argument.py); a `check` rule's named check fills its own.
KIND_PLACEHOLDERS: dict[str, frozenset[str]] = {
    "symbol": frozenset({"qname", "replacement", "suggestion"}),
    "method": frozenset({"method", "replacement", "receiver", "agnostic"}),
    "string": frozenset({"value", "replacement", "fix_message", "agnostic", "not_rewritten"}),
    "import": frozenset({"module", "suggestion"}),
    "argument": frozenset({"qname", "argument", "value"}),
}
RECEIVERS = {"tensor", "module", "unknown"}
# Fields of a rule's `agnostic` block: what the agnostic route writes instead of the NPU fix.
# `finding`: the finding's own message on that route, where the use has a device-neutral form.
AGNOSTIC_FIELDS = {"message": str, "method": str, "expression": str, "finding": str}
AGNOSTIC_EXPRESSIONS = ("device", "device_type", "backend")
# Ascend's migration steps, for the per-route docs: which step a rule checks.
STEPS = ("device", "interfaces", "distributed", "unsupported", "tuning", "transfer-to-npu")
# by the code's family digit; fused operators (NPU5xx) are tuning advice like NPU6xx/NPU7xx
DEFAULT_STEP = {"1": "interfaces", "2": "distributed", "5": "tuning"}
DOC_FIELDS = ("what", "why", "example", "use_instead", "fix_safety")
# `target`: the torch_npu release the examples are checked against (default: the newest).
OPTIONAL_DOC_FIELDS = ("target",)
RULE_FIELDS = {
    "code", "name", "kind", "severity", "message", "fix", "doc", "references",
    "device_use", "default_enabled", "match", "since", "until", "strategies", "step", "agnostic",
}


class RuleDataError(ValueError):
    """A rule file that cannot be used, with where and why."""

    def __init__(self, file: str, rule: str | None, field: str | None, problem: str):
        where = file
        if rule:
            where += f": rule {rule}"
        if field:
            where += f": field '{field}'"
        super().__init__(f"{where}: {problem}")


def _expect(value: Any, kind: type | tuple[type, ...], err) -> Any:
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise err(f"expected {names}, got {type(value).__name__}")
    return value


def _parse_match(kind: str, raw: Any, err) -> dict:
    raw = {} if raw is None else _expect(raw, dict, lambda p: err("match", p))
    allowed = KIND_FIELDS[kind]
    for key, value in raw.items():
        if key not in allowed:
            raise err(f"match.{key}", f"unknown field for kind '{kind}' (allowed: {', '.join(sorted(allowed))})")
        _expect(value, allowed[key], lambda p, key=key: err(f"match.{key}", p))
    for key in KIND_REQUIRED[kind]:
        if key not in raw:
            raise err(f"match.{key}", "missing")
    for key in ("symbols", "prefixes", "methods", "modules", "calls", "values", "any_call", "unless_called",
                "shown_beside"):
        for item in raw.get(key, ()):
            _expect(item, str, lambda p, key=key: err(f"match.{key}", p))
    for keyword, texts in raw.get("quiet_with", {}).items():
        _expect(texts, list, lambda p, keyword=keyword: err(f"match.quiet_with.{keyword}", p))
        for text in texts:
            _expect(text, str, lambda p, keyword=keyword: err(f"match.quiet_with.{keyword}", p))
    for keyword, index in raw.get("quiet_positions", {}).items():
        if keyword not in raw.get("quiet_with", {}) or not isinstance(index, int) or isinstance(index, bool) \
                or index < 0:
            raise err(f"match.quiet_positions.{keyword}",
                      "expected the 0-based position of a keyword that quiet_with names")
    if kind == "method":
        bad = set(raw["receivers"]) - RECEIVERS
        if bad:
            raise err("match.receivers", f"unknown receiver kinds {sorted(bad)} (allowed: {sorted(RECEIVERS)})")
    if kind == "string":
        try:
            re.compile(raw["pattern"])
        except re.error as exc:
            raise err("match.pattern", f"not a valid regular expression: {exc}") from None
        for field in ("given_only", "choice_values"):
            try:
                re.compile(raw.get(field, ""))
            except re.error as exc:
                raise err(f"match.{field}", f"not a valid regular expression: {exc}") from None
    if kind == "string" and not (raw.get("replace") or raw.get("triggers")):
        raise err("match.triggers", "a string rule needs 'replace' or 'triggers' (words the file must contain)")
    if kind == "argument" and not (raw.get("calls") or raw.get("any_call")):
        raise err("match.calls", "an argument rule needs 'calls' (with 'argument') or 'any_call'")
    if kind == "argument" and raw.get("calls") and "argument" not in raw:
        raise err("match.argument", "'calls' judges one argument: name it")
    if kind == "argument" and "insert" in raw and (raw["insert"] != "device_type" or not raw.get("missing")):
        raise err("match.insert", "only 'device_type', for a missing argument (at position 0 or 1 it goes first: "
                                  "the device type, or before an older overload's arguments; elsewhere by keyword)")
    if kind == "symbol" and not (raw.get("symbols") or raw.get("prefixes")):
        raise err("match.symbols", "a symbol rule needs 'symbols' or 'prefixes'")
    return raw


def _check_template(template: str, kind: str, field: str, err) -> None:
    """A message with a placeholder its kind never fills would fail on every finding, at run time."""
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise err(field, f"not a valid template ({exc}); write a literal brace as {{{{ or }}}}") from None
    known = KIND_PLACEHOLDERS.get(kind)
    for _text, name, _spec, _conversion in parts:
        if name is None:
            continue
        base = re.split(r"[.\[]", name, maxsplit=1)[0]
        if not base or base.isdigit():
            raise err(field, "a placeholder needs a name, such as {value}")
        if known is not None and base not in known:
            raise err(field, f"unknown placeholder {{{base}}} (a {kind} rule fills in: {', '.join(sorted(known))})")


def _parse_agnostic(raw: Any, err) -> dict | None:
    """The agnostic route's fix: its message, and what it writes (see docs/routes/agnostic.md)."""
    if raw is None:
        return None
    _expect(raw, dict, lambda p: err("agnostic", p))
    for key, value in raw.items():
        if key not in AGNOSTIC_FIELDS:
            raise err(f"agnostic.{key}", f"unknown field (allowed: {', '.join(sorted(AGNOSTIC_FIELDS))})")
        _expect(value, AGNOSTIC_FIELDS[key], lambda p, key=key: err(f"agnostic.{key}", p))
    if "message" not in raw:
        raise err("agnostic.message", "missing")
    if raw.get("expression", "device") not in AGNOSTIC_EXPRESSIONS:
        raise err("agnostic.expression", f"not one of {', '.join(AGNOSTIC_EXPRESSIONS)}")
    return dict(raw)


def _parse_rule(record: Any, file: str, index: int) -> Rule:
    label = f"#{index + 1}"

    def err(field: str | None, problem: str) -> RuleDataError:
        return RuleDataError(file, label, field, problem)

    _expect(record, dict, lambda p: err(None, p))
    label = str(record.get("code", label))
    unknown = set(record) - RULE_FIELDS
    if unknown:
        raise err(sorted(unknown)[0], f"unknown field (allowed: {', '.join(sorted(RULE_FIELDS))})")
    for field in ("code", "name", "kind", "severity", "message", "doc"):
        if field not in record:
            raise err(field, "missing")
    code = _expect(record["code"], str, lambda p: err("code", p))
    if not CODE_PATTERN.match(code):
        raise err("code", f"'{code}' is not NPU followed by three digits (first digit 1-9)")
    name = _expect(record["name"], str, lambda p: err("name", p))
    if not NAME_PATTERN.match(name):
        raise err("name", f"'{name}' is not kebab-case")
    kind = _expect(record["kind"], str, lambda p: err("kind", p))
    if kind not in KIND_FIELDS:
        raise err("kind", f"'{kind}' is not one of {', '.join(sorted(KIND_FIELDS))}")
    try:
        severity = Severity(record["severity"])
    except ValueError:
        raise err("severity", f"must be one of {', '.join(s.value for s in Severity)}") from None
    message = _expect(record["message"], str, lambda p: err("message", p))
    _check_template(message, kind, "message", err)

    doc_raw = _expect(record["doc"], dict, lambda p: err("doc", p))
    for field in doc_raw:
        if field not in DOC_FIELDS + OPTIONAL_DOC_FIELDS:
            raise err(f"doc.{field}", f"unknown field (allowed: {', '.join(DOC_FIELDS + OPTIONAL_DOC_FIELDS)})")
    for field in DOC_FIELDS:
        if not isinstance(doc_raw.get(field), str) or not doc_raw[field].strip():
            raise err(f"doc.{field}", "missing or empty text")
    target = doc_raw.get("target")
    if target is not None and not isinstance(target, str):
        raise err("doc.target", "expected a torch_npu release as a string, e.g. \"2.1\"")
    doc = RuleDoc(**{field: doc_raw[field] for field in DOC_FIELDS}, target=target)

    fix = None
    if record.get("fix") is not None:
        fix_raw = _expect(record["fix"], dict, lambda p: err("fix", p))
        try:
            applicability = Applicability(fix_raw.get("applicability"))
        except ValueError:
            raise err("fix.applicability", f"must be one of {', '.join(a.value for a in Applicability)}") from None
        fix_message = _expect(fix_raw.get("message"), str, lambda p: err("fix.message", p))
        extra = set(fix_raw) - {"applicability", "message"}
        if extra:
            raise err(f"fix.{sorted(extra)[0]}", "unknown field (allowed: applicability, message)")
        _check_template(fix_message, kind, "fix.message", err)
        fix = FixSpec(applicability, fix_message)

    references = tuple(
        _expect(ref, str, lambda p: err("references", p))
        for ref in _expect(record.get("references", []), list, lambda p: err("references", p))
    )
    strategies = _expect(record.get("strategies", list(STRATEGIES)), list, lambda p: err("strategies", p))
    if not strategies or set(strategies) - set(STRATEGIES):
        raise err("strategies", f"a non-empty list of {', '.join(STRATEGIES)}")
    agnostic = _parse_agnostic(record.get("agnostic"), err)
    for key in ("message", "finding"):
        if agnostic is not None and key in agnostic:
            _check_template(agnostic[key], kind, f"agnostic.{key}", err)
    if agnostic is not None and "agnostic" not in strategies:
        raise err("agnostic", "the rule does not serve the agnostic route (strategies)")
    step = record.get("step", DEFAULT_STEP.get(str(record["code"])[3:4], "unsupported"))
    if step not in STEPS:
        raise err("step", f"not one of {', '.join(STEPS)}")
    if kind == "string" and record.get("match", {}).get("only_in") not in (None, "comparison"):
        raise err("match.only_in", "the only context is 'comparison'")
    if kind == "string" and record.get("match", {}).get("safe_in") not in (None, "environment"):
        raise err("match.safe_in", "the only context is 'environment'")
    window = {}
    for field in ("since", "until"):
        if record.get(field) is not None:
            from npu_lint.knowledge.release_data import normalize_release

            try:
                window[field] = normalize_release(str(record[field]))
            except ValueError as exc:
                raise err(field, str(exc)) from None
    return Rule(
        **window,
        strategies=tuple(s for s in STRATEGIES if s in strategies),
        agnostic=agnostic,
        step=step,
        code=code,
        name=name,
        kind=kind,
        severity=severity,
        message=message,
        doc=doc,
        source_file=file,
        fix=fix,
        references=references,
        device_use=_expect(record.get("device_use", False), bool, lambda p: err("device_use", p)),
        default_enabled=_expect(record.get("default_enabled", True), bool, lambda p: err("default_enabled", p)),
        match=_parse_match(kind, record.get("match"), err),
    )


def parse_rule_file(text: str, file: str) -> list[Rule]:
    try:
        data = load_yaml(text)
    except YAMLError as exc:
        raise RuleDataError(file, None, None, f"not valid YAML: {exc}") from None
    if not isinstance(data, dict) or "rules" not in data:
        raise RuleDataError(file, None, "rules", "a rule file is a mapping with a 'rules' list")
    records = data["rules"]
    if not isinstance(records, list):
        raise RuleDataError(file, None, "rules", "expected a list")
    return [_parse_rule(record, file, index) for index, record in enumerate(records)]


def check_unique(rules: Iterable[Rule]) -> None:
    seen_codes: dict[str, Rule] = {}
    seen_names: dict[str, Rule] = {}
    for rule in rules:
        for key, seen, value in (("code", seen_codes, rule.code), ("name", seen_names, rule.name)):
            if value in seen:
                raise RuleDataError(
                    rule.source_file, rule.code, key,
                    f"'{value}' is used by rule {seen[value].code} in {seen[value].source_file} too",
                )
            seen[value] = rule


def load_rules(paths: Iterable[tuple[str, str]]) -> tuple[Rule, ...]:
    """Parse (display name, text) pairs into one validated, code-sorted tuple."""
    rules: list[Rule] = []
    for file, text in paths:
        rules.extend(parse_rule_file(text, file))
    check_unique(rules)
    return tuple(sorted(rules, key=lambda rule: rule.code))


@kept
def shipped_rules() -> tuple[Rule, ...]:
    """The rules that ship with npu-lint, loaded once per process."""
    return load_rules(rule_files())


# Rules from `extend-rules` files loaded in this process, so reports can describe them.
_EXTRA: dict[str, Rule] = {}


@functools.lru_cache(maxsize=32)
def rules_with_extensions(paths: tuple[str, ...]) -> tuple[Rule, ...]:
    """Shipped rules plus user rule files (`extend-rules`), validated the same way.

    A user rule can only use the rule kinds and named checks npu-lint ships:
    a rule file names no code to run.
    """
    if not paths:
        return shipped_rules()
    extra = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise RuleDataError(path, None, None, f"cannot read the rule file: {exc}") from None
        extra.extend(parse_rule_file(text, path))
    rules = tuple(sorted((*shipped_rules(), *extra), key=lambda rule: rule.code))
    check_unique(rules)
    # Whether a `kind: check` rule names a check that exists is for the engine to say:
    # the checks are code, a layer above this one.
    for rule in extra:
        _EXTRA[rule.code] = rule
    return rules


def rule_by_code(code: str) -> Rule:
    rule = _shipped_by_code().get(code) or _EXTRA.get(code)
    if rule is None:
        raise KeyError(code)
    return rule


@functools.lru_cache(maxsize=1)
def _shipped_by_code() -> dict[str, Rule]:
    """Reports ask once per finding: a lookup, not a pass over every rule."""
    return {rule.code: rule for rule in shipped_rules()}
