"""The one engine: source text -> astroid module -> findings.

Every front end calls this and only translates what it returns.
"""
from __future__ import annotations

import dataclasses
import os
from collections import defaultdict

import astroid
from astroid import nodes
from astroid.builder import AstroidBuilder

from . import torch_model
from .checks import make_check
from .checks.base import Check
from .context import ModuleContext
from .findings import Finding
from .rule import Rule
from .rules_loader import shipped_rules
from .settings import Settings


@dataclasses.dataclass(frozen=True)
class Problem:
    """A file that could not be checked, or a rule that failed on it."""

    kind: str  # "syntax-error", "unreadable", "internal-error"
    message: str
    line: int = 1
    column: int = 0
    rule: str | None = None


@dataclasses.dataclass
class CheckResult:
    findings: list[Finding]
    problems: list[Problem]


class Engine:
    def __init__(self, settings: Settings = Settings(), rules: tuple[Rule, ...] | None = None):
        torch_model.install()
        self.settings = settings
        self.rules = tuple(r for r in (rules if rules is not None else shipped_rules()) if settings.enables(r))
        self.checks = [make_check(rule, settings) for rule in self.rules]
        self.by_type: dict[type, list[Check]] = defaultdict(list)
        for check in self.checks:
            for node_type in check.node_types:
                self.by_type[node_type].append(check)
        self.triggers = frozenset().union(*(check.triggers() for check in self.checks))

    def could_fire(self, text: str) -> bool:
        """Cheap text scan: a file without any trigger word never reaches astroid."""
        return any(word in text for word in self.triggers)

    def check_text(self, text: str, path: str = "<string>") -> CheckResult:
        if not self.could_fire(text):
            return CheckResult([], [])
        try:
            module = build_module(text, path)
        except astroid.AstroidSyntaxError as exc:
            error = exc.error if isinstance(getattr(exc, "error", None), SyntaxError) else None
            line = getattr(error, "lineno", None) or 1
            column = max((getattr(error, "offset", None) or 1) - 1, 0)
            reason = getattr(error, "msg", None) or str(exc)
            return CheckResult([], [Problem("syntax-error", f"SyntaxError: {reason}", line, column)])
        except (astroid.AstroidBuildingError, RecursionError, MemoryError, ValueError) as exc:
            return CheckResult([], [Problem("unreadable", f"astroid cannot build this file: {exc}")])
        return self.check_module(module, text, path)

    def check_module(self, module: nodes.Module, text: str, path: str = "<string>") -> CheckResult:
        ctx = ModuleContext(module, text, self.settings)
        problems: list[Problem] = []
        failed: set[Check] = set()

        def run(check: Check, method, *args) -> None:
            if check in failed:
                return
            try:
                method(*args)
            except Exception as exc:  # one rule failing must not stop the others
                failed.add(check)
                line = getattr(args[0], "lineno", None) or 1 if args else 1
                problems.append(Problem(
                    "internal-error",
                    f"rule {check.rule.code} ({check.rule.name}) failed: {type(exc).__name__}: {exc}",
                    line=line, rule=check.rule.code,
                ))

        if self.could_fire(text):
            for node in walk(module):
                for check in self.by_type.get(type(node), ()):
                    run(check, check.visit, node, ctx)
            for check in self.checks:
                run(check, check.leave_module, ctx)
        findings = sorted(set(ctx.findings), key=lambda f: f.sort_key)
        ignored = self.settings.ignored_codes(path) if self.settings.per_file_ignores else ()
        if ignored:
            findings = [f for f in findings if not f.code.startswith(ignored)]
        return CheckResult(findings, problems)


_ENGINES: dict[Settings, Engine] = {}


def engine_for(settings: Settings) -> Engine:
    """One engine per distinct settings, per process (front ends share them)."""
    engine = _ENGINES.get(settings)
    if engine is None:
        engine = _ENGINES[settings] = Engine(settings)
    return engine


def walk(module: nodes.Module):
    """Every node, parents before children, in source order, without recursion."""
    stack = [module]
    while stack:
        node = stack.pop()
        yield node
        children = list(node.get_children())
        children.reverse()
        stack.extend(children)


def build_module(text: str, path: str) -> nodes.Module:
    """Build an astroid module from text; the path only names it."""
    modname = os.path.splitext(os.path.basename(path))[0] or "module"
    return AstroidBuilder(astroid.MANAGER).string_build(text, modname=modname, path=path)
