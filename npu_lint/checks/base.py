"""The interface every check implements; the engine walks the tree once."""
from __future__ import annotations

from typing import ClassVar

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.config.settings import Settings
from npu_lint.core.rule import Rule


class Check:
    """One rule's matcher. Subclasses set node_types and implement visit."""

    node_types: ClassVar[tuple[type[nodes.NodeNG], ...]] = ()
    # True: besides the files its own triggers let in, the check runs on every file another
    # check let in (it has something to say there, but not reason enough to build astroid).
    rides_along: ClassVar[bool] = False

    def __init__(self, rule: Rule, settings: Settings):
        self.rule = rule
        self.settings = settings

    def triggers(self) -> frozenset:
        """Identifiers one of which must be in a file for this check to fire.

        A tuple means all of its words (`("profiler", "profile")` for
        torch.profiler.profile). Matched exactly against names, attributes
        and imported modules, never inside strings; `"=device"` matches a
        keyword argument `device=`.
        """
        raise NotImplementedError

    def string_triggers(self) -> frozenset[str]:
        """Text one of which a string literal must contain ("^cuda": start with; ".cu$": end with)."""
        return frozenset()

    def visit(self, node: nodes.NodeNG, ctx: ModuleContext) -> None:
        raise NotImplementedError

    def leave_module(self, ctx: ModuleContext) -> None:
        """Called after the walk, for checks that judge the whole module."""
