"""The one engine: source text -> astroid module -> findings.

Every front end calls this and only translates what it returns.
"""
from __future__ import annotations

import ast
import os
import warnings
from collections import defaultdict

import astroid
from astroid import nodes
from astroid.builder import AstroidBuilder

from npu_lint.analysis import module_facts
from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.names import is_method_self, last_name
from npu_lint.analysis.prefilter import TextScan, TriggerIndex, Triggers, TreeWords, words_in_tree
from npu_lint.checks import check_class, make_check
from npu_lint.checks.base import Check
from npu_lint.config.settings import Settings
from npu_lint.core import kept
from npu_lint.core.findings import Finding
from npu_lint.core.rule import Rule
from npu_lint.knowledge import torch_model
from npu_lint.knowledge.torch_model.hook import tree_rebuilder
from npu_lint.engine import snapshot
from npu_lint.engine.builtins_bootstrap import bootstrap_builtins
from npu_lint.engine.suppression import Suppressions
from npu_lint.knowledge.loader import rules_with_extensions
from npu_lint.core.records import record

@record(frozen=True)
class Problem:
    """A file that could not be checked, or a rule that failed on it."""

    kind: str  # "syntax-error", "unreadable", "internal-error"
    message: str
    line: int = 1
    column: int = 0
    rule: str | None = None


@record
class CheckResult:
    findings: list[Finding]
    problems: list[Problem]


def harden_astroid() -> None:
    """Never let astroid import (and so run) a C extension of the user's project.

    Only for processes npu-lint owns; inside pylint, pylint's own
    `unsafe-load-any-extension` / `extension-pkg-allow-list` settings stand.
    """
    astroid.MANAGER.always_load_extensions = False
    astroid.MANAGER.extension_package_whitelist.clear()


class Engine:
    def __init__(self, settings: Settings = Settings(), rules: tuple[Rule, ...] | None = None,
                 harden: bool = True):
        torch_model.install()
        if harden:
            harden_astroid()
        self.harden = harden
        self.settings = settings
        if rules is None:
            rules = rules_with_extensions(settings.extend_rules)
        for rule in rules:
            check_class(rule)  # a rule naming no shipped check fails here, for every front end
        self.catalog = tuple(rules)  # every known rule, enabled or not: checks may ask about others
        self.rules = tuple(r for r in rules if settings.enables(r))
        self.checks = [make_check(rule, settings) for rule in self.rules]
        self.by_type: dict[type, list[Check]] = defaultdict(list)
        for check in self.checks:
            for node_type in check.node_types:
                self.by_type[node_type].append(check)
        # Each check's own triggers: a file runs only the checks whose words it shows.
        raw = [(check, check.triggers(), check.string_triggers()) for check in self.checks]
        self.triggers = frozenset().union(*(triggers for _c, triggers, _s in raw))
        self.string_triggers = frozenset().union(*(strings for _c, _t, strings in raw))
        self.check_triggers = [(check, Triggers(triggers, strings)) for check, triggers, strings in raw]
        self.trigger_index = TriggerIndex(tuple(triggers for _check, triggers in self.check_triggers))
        self.text_scan = TextScan(self.triggers, self.string_triggers)
        self._subset_tables: dict[frozenset, dict[type, list[Check]]] = {}

    def __getstate__(self) -> dict:
        """What a snapshot keeps: the built rules, checks and triggers, not the per-run tables."""
        state = dict(self.__dict__)
        state["_subset_tables"] = {}
        return state

    def __setstate__(self, state: dict) -> None:
        """A snapshot loaded into a new process: astroid gets the torch model (and the hardening)
        that `__init__` gives it."""
        self.__dict__.update(state)
        torch_model.install()
        if self.harden:
            harden_astroid()

    def could_fire(self, text: str) -> bool:
        """Cheap text scan: a file without any trigger word is not parsed, let alone built."""
        return self.text_scan.could_fire(text)

    def checks_for_text(self, text: str) -> list[Check]:
        """Both cheap stages, for front ends that hold an astroid module already (pylint): the
        checks to run on it (none: skip it), chosen as `check_text` chooses them."""
        if not self.could_fire(text):
            return []
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(text + "\n")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return list(self.checks)  # let the astroid side say what is wrong
        return self.active_checks(words_in_tree(tree))

    def check_text(self, text: str, path: str = "<string>", tree: ast.Module | None = None) -> CheckResult:
        """Check source text; `tree` is Python's ast of it when the caller has one (flake8)."""
        if not self.could_fire(text):
            return CheckResult([], [])
        if tree is None:
            try:
                tree = _parse_with_type_comments(text, path)
            except SyntaxError as exc:
                line = exc.lineno or 1
                column = max((exc.offset or 1) - 1, 0)
                return CheckResult([], [Problem("syntax-error", f"SyntaxError: {exc.msg}", line, column)])
            except (ValueError, RecursionError, MemoryError) as exc:
                return CheckResult([], [Problem("unreadable", f"cannot parse this file: {type(exc).__name__}: {exc}")])
        try:
            words = words_in_tree(tree)
            active = self.active_checks(words)
            if not active:
                return CheckResult([], [])
            if self.harden:  # a process of npu-lint's own: its quicker model of builtins
                bootstrap_builtins()
            module = build_module(text, path, tree)
            module_facts.attach(module, words.facts)
        except (astroid.AstroidBuildingError, RecursionError, MemoryError, ValueError) as exc:
            return CheckResult([], [Problem("unreadable", f"astroid cannot build this file: {type(exc).__name__}: {exc}")])
        order = list(walk(module))  # walked once: the checks and `_forget` both go through it
        try:
            return self.check_module(module, text, path, active, order)
        finally:
            _forget(module, order)

    def active_checks(self, words: TreeWords) -> list[Check]:
        """The checks that could fire on a file with these words (see Check.triggers), and
        those that ride along once any other check lets the file in."""
        active = [self.checks[index] for index in self.trigger_index.firing(words)]
        if active:
            chosen = set(active)
            active += [check for check in self.checks if check.rides_along and check not in chosen]
        return active

    def _by_type_for(self, active: list[Check]) -> dict[type, list[Check]]:
        """The node-type table of a subset of the checks (a run sees a few dozen subsets)."""
        key = frozenset(map(id, active))
        table = self._subset_tables.get(key)
        if table is None:
            if len(self._subset_tables) >= MAX_SUBSET_TABLES:
                self._subset_tables.clear()
            table = defaultdict(list)
            for check in active:
                for node_type in check.node_types:
                    table[node_type].append(check)
            self._subset_tables[key] = table
        return table

    def check_module(self, module: nodes.Module, text: str, path: str = "<string>",
                     active: list[Check] | None = None, order: list[nodes.NodeNG] | None = None) -> CheckResult:
        """Walk the module once with the active checks (all when not given); every check's
        `leave_module` runs, since module-wide checks also judge other rules' findings.
        `order` is the module's `walk`, when the caller has it already."""
        ctx = ModuleContext(module, text, self.settings, self.catalog, order)
        by_type = self.by_type
        if active is not None and len(active) < len(self.checks):
            by_type = self._by_type_for(active)
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

        if active or (active is None and self.could_fire(text)):
            for node in walk(module) if order is None else order:
                for check in by_type.get(type(node), ()):
                    run(check, check.visit, node, ctx)
            for check in self.checks:
                run(check, check.leave_module, ctx)
        findings = sorted(set(ctx.findings), key=lambda f: f.sort_key)
        ignored = self.settings.ignored_codes(path) if self.settings.per_file_ignores else ()
        if ignored:
            findings = [f for f in findings if not f.code.startswith(ignored)]
        if findings and Suppressions.may_suppress(text, findings):
            # Here, not in each front end: the CLI, fix, migrate's reports, the editor, pylint
            # and flake8 all get the same findings for `# noqa` and `# pylint: disable` lines.
            findings = Suppressions(text).filter(findings)
        return CheckResult(findings, problems)


MAX_SUBSET_TABLES = 256
_ENGINES: dict[tuple[Settings, bool], Engine] = {}
MAX_ENGINES = 16  # a long-lived editor server sees settings change; old engines are dropped


def engine_for(settings: Settings, harden: bool = True) -> Engine:
    """The one way front ends get an engine: one per distinct settings, per process."""
    engine = _ENGINES.get((settings, harden))
    if engine is None:
        if len(_ENGINES) >= MAX_ENGINES:
            del _ENGINES[next(iter(_ENGINES))]
        engine = _ENGINES[(settings, harden)] = _kept_or_built(settings, harden)
    return engine


def _kept_or_built(settings: Settings, harden: bool) -> Engine:
    """The engine of an earlier process with the same settings and code (engine/snapshot.py), or
    a new one, kept for the next process."""
    try:
        path = snapshot.snapshot_path(settings, harden)
    except (OSError, RuntimeError):  # no home folder to keep it in: build, as before
        return Engine(settings, harden=harden)
    saved = snapshot.load(path)
    if isinstance(saved, tuple) and len(saved) == 2 and type(saved[0]) is Engine and isinstance(saved[1], dict):
        kept.restore(saved[1])  # the tables its checks hold, for the code that asks for them again
        return saved[0]
    engine = Engine(settings, harden=harden)
    snapshot.store(path, (engine, kept.every_value()))
    return engine


# Nodes that never have children: half of all nodes, spared a `get_children` generator each.
_LEAVES = frozenset({nodes.Name, nodes.Const, nodes.AssignName, nodes.DelName, nodes.Import, nodes.ImportFrom,
                     nodes.Pass, nodes.Break, nodes.Continue, nodes.Global, nodes.Nonlocal})


def walk(module: nodes.Module):
    """Every node, parents before children, in source order, without recursion."""
    stack = [module]
    leaves = _LEAVES
    while stack:
        node = stack.pop()
        yield node
        if type(node) in leaves:
            continue
        children = list(node.get_children())
        children.reverse()
        stack.extend(children)


class _PreparsedBuilder(AstroidBuilder):
    """astroid's string_build, fed the ast tree the engine already parsed (no second parse)."""

    def __init__(self, tree: ast.Module):
        # No brain transforms on the user's module: they add inference tips for namedtuple,
        # dataclasses, enum and such, which no rule reads, and cost a fifth of a run. Measured:
        # the same findings on the four real projects (manual, auto, every rule selected), and
        # pylint, which hands over its own transformed module, agrees on every fixture.
        super().__init__(astroid.MANAGER, apply_transforms=False)
        self._tree = tree

    def delayed_assattr(self, node: nodes.AssignAttr) -> None:
        """Record `self.x = ...` in the class's instance attributes, and nothing else.

        astroid infers the target of every attribute assignment while building: for
        `args.device = ...` or `module.flag = ...` it builds argparse or the project's
        other modules from disk (a third of a run) and appends to classes and modules
        shared by every file linted after this one, so answers would depend on file order.
        Only the method's own `self`/`cls` belongs to this module.
        """
        if not is_method_self(node.expr):
            return
        namespace = _self_namespace(node.expr)
        if namespace is None:  # a case only inference can settle (rare): astroid's own way
            super().delayed_assattr(node)
            return
        values = namespace.setdefault(node.attrname, [])
        if node not in values:
            values.append(node)

    def _data_build(self, data: str, modname: str, path: str | None, is_stub: bool | None = None):
        # astroid 4.4 passes `is_stub` (and its TreeRebuilder takes it); older ones do neither
        node_file = os.path.abspath(path) if path is not None else "<?>"
        package = path is not None and os.path.splitext(os.path.basename(path))[0] == "__init__"
        stub = is_stub if is_stub is not None else path is not None and path.endswith(".pyi")
        builder = tree_rebuilder(self._manager, None, stub)  # no `position`s: see tree_rebuilder
        return builder.visit_module(self._tree, modname, node_file, package), builder


_CLASS_METHODS = ("__new__", "__init_subclass__", "__class_getitem__")  # classmethods without a decorator


def _self_namespace(first: nodes.Name) -> dict | None:
    """Where `first.x = ...` belongs, read from the syntax: the class's instance attributes for
    `self`, its locals for a classmethod's `cls`; None when only inference can tell.

    astroid infers `self` for this, and that asks whether the class is a metaclass, which infers
    every base class: the torch stubs and, for a project's own base classes, their modules built
    from disk (a sixth of a run over the real-code set, for an answer the syntax gives).
    """
    method, klass = first.scope(), first.scope().parent
    if len(method.locals.get(first.name, ())) != 1:
        return None  # `self` rebound in the method
    # A property's getter and setter share a name (fairseq's setup.py: inferring `self` there built
    # setuptools from disk, 5% of a run); `name = staticmethod(name)` in the class is no `def`.
    if not all(isinstance(binding, nodes.FunctionDef) for binding in klass.locals.get(method.name, ())):
        return None
    if "__slots__" in klass.locals or any(_last_name(base).lower().endswith(("type", "meta", "metaclass"))
                                          for base in klass.bases):
        return None  # slots limit what may be assigned; a metaclass's `self` is a class
    kinds = {_last_name(d) for d in method.decorators.nodes} if method.decorators else set()
    if "staticmethod" in kinds:
        return None
    if "classmethod" in kinds or method.name in _CLASS_METHODS:
        return klass.locals
    return klass.instance_attrs


def _last_name(node: nodes.NodeNG) -> str:
    """`name` of `name`, `a.b.name` and `a.name(...)` (a decorator or a base class)."""
    return last_name(node.func if isinstance(node, nodes.Call) else node) or ""


def _parse_with_type_comments(text: str, path: str) -> ast.Module:
    """Python's ast of `text`, with its type comments where they parse. A `# type: ...` comment
    that is prose, on a line of its own after an `if` header (deepinv's lidc_idri.py), is an
    IndentationError with type comments on and nothing without them; astroid, and so pylint,
    parse such a file again without them, and flake8 never reads them, so the CLI does too."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarnings are the user's business
        try:
            return ast.parse(text + "\n", filename=path, type_comments=True)
        except SyntaxError:
            if "type:" not in text:
                raise
        return ast.parse(text + "\n", filename=path)


def build_module(text: str, path: str, tree: ast.Module | None = None) -> nodes.Module:
    """Build an astroid module from text (and its ast tree, if parsed already)."""
    modname = os.path.splitext(os.path.basename(path))[0] or "module"
    builder = _PreparsedBuilder(tree) if tree is not None else AstroidBuilder(astroid.MANAGER)
    return builder.string_build(text, modname=modname, path=path)


def _forget(module: nodes.Module, order: list[nodes.NodeNG]) -> None:
    """astroid caches every module it builds; a linted file must not stay in memory.

    Its tree is a web of cycles (every node points at its parent), which only the garbage
    collector can free, after walking it once or twice more in the young generations. Without
    the parent links, reference counting frees most of it at once: 3-4% of a check run over the
    DESIGN.md projects, and a smaller peak (139 -> 127 MB). No finding keeps a node.
    """
    cache = astroid.MANAGER.astroid_cache
    if cache.get(module.name) is module:
        del cache[module.name]
    for node in order:
        node.parent = None
