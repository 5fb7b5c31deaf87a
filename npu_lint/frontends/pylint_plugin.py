"""pylint front end: `pylint --load-plugins npu_lint`.

One checker per rule family (checker digits 51-59, as pylint reserves 51-99
for plugins). The engine runs once per module; each checker emits the
findings of its own family, so disabling one family never hides another.
"""
from __future__ import annotations

import gc
import os
import weakref
from collections import defaultdict

from astroid import nodes
from pylint import interfaces
from pylint.checkers import BaseChecker
from pylint.constants import WarningScope

from npu_lint.config.files import load_settings, settings_for_file
from npu_lint.config.options import FRONT_END_OPTIONS
from npu_lint.config.options import overrides as options_overrides
from npu_lint.core.findings import Confidence
from npu_lint.core.source import SourceError, decode_source
from npu_lint.engine.engine import CheckResult, Engine, Problem, engine_for
from npu_lint.knowledge import torch_model
from npu_lint.knowledge.loader import rules_with_extensions, shipped_rules

_CONFIDENCE = {
    Confidence.HIGH: interfaces.HIGH,
    Confidence.INFERENCE: interfaces.INFERENCE,
    Confidence.INFERENCE_FAILURE: interfaces.INFERENCE_FAILURE,
}
OPTIONS = tuple(
    (option.key, {"type": "choice" if option.choices else "string", "default": "",
                  "metavar": f"<{option.metavar.lower()}>", "help": option.help,
                  **({"choices": ["", *option.choices]} if option.choices else {})})
    for option in FRONT_END_OPTIONS
)

# Results per module node, shared by the family checkers of one run.
_results: "weakref.WeakKeyDictionary[nodes.Module, CheckResult]" = weakref.WeakKeyDictionary()


def _engine_for(linter, path: str) -> Engine:
    given = {option.dest: getattr(linter.config, option.dest, "") for option in FRONT_END_OPTIONS}
    settings = settings_for_file(path, **options_overrides(given, "pylint options"))
    return engine_for(settings, harden=False)  # pylint's own extension settings stand


def _module_text(node: nodes.Module) -> str | None:
    try:
        with node.stream() as stream:
            return decode_source(stream.read()).text
    except (OSError, SourceError, AttributeError):
        return None


def results_for(linter, node: nodes.Module) -> CheckResult:
    if node not in _results:
        try:
            text = _module_text(node)
            engine = _engine_for(linter, node.file or "")
            active = engine.checks_for_text(text) if text is not None else []
            if not active:
                _results[node] = CheckResult([], [])
            else:  # the same checks as the other front ends run on this text
                _results[node] = engine.check_module(node, text, node.file or "", active)
                _freeze_once("first module checked")
        except Exception as exc:  # a bad configuration or an engine bug must not end pylint's run
            _results[node] = CheckResult([], [Problem("internal-error", f"npu-lint: {type(exc).__name__}: {exc}")])
    return _results[node]


class _FamilyChecker(BaseChecker):
    """Base of the generated per-family checkers."""

    family_codes: frozenset[str] = frozenset()

    def open(self) -> None:
        torch_model.install()  # pylint may have cleared astroid's caches

    def visit_module(self, node: nodes.Module) -> None:
        result = results_for(self.linter, node)
        if self.family_codes == _FIRST_FAMILY[0]:  # say it once, not once per family
            for problem in result.problems:
                self.add_message("npu-lint-internal-error", line=problem.line, args=(problem.message,))
        for finding in result.findings:
            if finding.code not in self.family_codes:
                continue
            self.add_message(
                finding.name, line=finding.start.line, col_offset=finding.start.column,
                end_lineno=finding.end.line, end_col_offset=finding.end.column,
                args=(finding.message_with_folded,), confidence=_CONFIDENCE[finding.confidence],
            )


_FIRST_FAMILY: list[frozenset] = [frozenset()]
INTERNAL_ERROR_MSG = ("F5100", ("%s", "npu-lint-internal-error",
                                "npu-lint could not check this module (a rule failed or the configuration is bad).",
                                {"scope": WarningScope.LINE}))


def _known_rules() -> tuple:
    """The shipped rules plus the `extend-rules` of the configuration pylint runs under.

    pylint wants every message declared when the plugin loads, before any file is seen, so the
    configuration found from the working directory decides which extra rules are declared.
    A broken configuration is reported per module by the engine, not here.
    """
    try:
        return rules_with_extensions(load_settings(os.getcwd()).extend_rules)
    except (ValueError, OSError):  # ConfigError and RuleDataError are ValueErrors
        return shipped_rules()


def _checker_classes() -> list[type[BaseChecker]]:
    families: dict[str, list] = defaultdict(list)
    for rule in _known_rules():
        families[rule.pylint_checker_digits].append(rule)
    classes = []
    for index, (digits, rules) in enumerate(sorted(families.items())):
        msgs = {
            # LINE scope: the engine hands over positions, not pylint's nodes.
            rule.pylint_msgid: ("%s", rule.name, " ".join(rule.doc.what.split()), {"scope": WarningScope.LINE})
            for rule in rules
        }
        if index == 0:
            msgs[INTERNAL_ERROR_MSG[0]] = INTERNAL_ERROR_MSG[1]
            _FIRST_FAMILY[0] = frozenset(rule.code for rule in rules)
        attributes = {
            "name": f"npu-lint-{rules[0].family.lower()}",
            "msgs": msgs,
            "family_codes": frozenset(rule.code for rule in rules),
            "options": OPTIONS if index == 0 else (),
        }
        classes.append(type(f"NpuLint{digits}Checker", (_FamilyChecker,), attributes))
    return classes


def register(linter) -> None:
    torch_model.install()
    for checker_class in _checker_classes():
        linter.register_checker(checker_class(linter))
    _freeze_once("start-up")


_FROZEN: set[str] = set()


def _freeze_once(moment: str) -> None:
    """Move what exists at this moment into the collector's permanent generation, once per
    process for each moment: at start-up (pylint's and astroid's modules, npu-lint's rule data),
    and after the first module the engine checked (the engine, and the torch stubs that pylint's
    own checkers and ours built for it).

    Those objects live until the process ends, yet every full collection while linting walks
    them all again; the plugin's data made those collections slower for pylint's own work too.
    Measured on one training script: pylint with the plugin 1.16 -> 0.98 s of CPU with the
    start-up freeze (pylint alone 0.78); with the second, the collector's time in the run went
    from 0.25-0.33 s to 0.08-0.13 s (pylint alone: 0.15-0.19 s). Nothing frozen is garbage that
    could be freed later, bar the little left over at that moment, and it happens twice.
    """
    if moment not in _FROZEN:
        _FROZEN.add(moment)
        gc.freeze()
