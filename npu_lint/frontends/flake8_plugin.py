"""flake8 front end: `flake8 --select NPU`. Translates findings to flake8's tuples.

flake8 loads and runs every installed plugin on every file whatever --select
says. So this module imports nothing heavy until a file is checked, does
nothing at all when the run selects no NPU code, and files without a trigger
word return before anything is built.
"""
from __future__ import annotations

from typing import Iterator

from npu_lint import __version__
from npu_lint.config.options import FRONT_END_OPTIONS

INTERNAL_ERROR = "NPU000"
PREFIX = "NPU"


def _names_npu(code: str) -> bool:
    """A --select/--ignore entry that covers NPU codes ("N", "NPU", "NPU1", "NPU101")."""
    return PREFIX.startswith(code) or code.startswith(PREFIX)


def npu_selected(options) -> bool:
    """Whether flake8 would show any NPU code in this run, from its select and ignore lists.

    flake8 >= 6 selects every plugin's codes by default; an explicit `--select` without an
    NPU code, or an `--ignore` that covers all of NPU without an explicit NPU selection,
    switches the plugin off.
    """
    select = list(getattr(options, "select", None) or ())
    chosen = select + list(getattr(options, "extend_select", None) or ())
    if any(_names_npu(code) for code in chosen):
        return True
    if select:
        return False
    ignored = list(getattr(options, "ignore", None) or ()) + list(getattr(options, "extend_ignore", None) or ())
    return not any(PREFIX.startswith(code) for code in ignored)


class NpuLintFlake8:
    name = "npu-lint"
    version = __version__
    _overrides: dict = {}
    _option_error: str | None = None
    _selected = True

    def __init__(self, tree, lines: list[str], filename: str):
        self.tree = tree  # flake8 parsed it already: the engine builds astroid from it
        self.lines = lines
        self.filename = filename

    @classmethod
    def add_options(cls, option_manager) -> None:
        for option in FRONT_END_OPTIONS:
            option_manager.add_option(f"--{option.key}", parse_from_config=True, default=None,
                                      metavar=option.metavar, choices=option.choices,
                                      help=f"npu-lint: {option.help}")

    @classmethod
    def parse_options(cls, options) -> None:
        cls._selected = npu_selected(options)
        if not cls._selected:
            # Nothing of npu-lint runs, so its options are not even read: validating them imports
            # the settings, release and operator modules, 9% of a plain flake8 run on one file.
            cls._overrides, cls._option_error = {}, None
            return
        from npu_lint.config.options import overrides

        try:
            cls._overrides, cls._option_error = overrides(vars(options), "flake8 options"), None
        except ValueError as exc:  # said on each file, as a bad configuration file is: no traceback
            cls._overrides, cls._option_error = {}, str(exc)

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        if not self._selected:
            return
        if self._option_error:
            yield 1, 0, f"{INTERNAL_ERROR} npu-lint configuration error: {self._option_error}", type(self)
            return
        from npu_lint.config.files import ConfigError, settings_for_file
        from npu_lint.engine.engine import engine_for

        text = "".join(self.lines)
        try:
            engine = engine_for(settings_for_file(self.filename, **self._overrides))
        except (ConfigError, ValueError) as exc:  # also a chip or release the data does not know
            yield 1, 0, f"{INTERNAL_ERROR} npu-lint configuration error: {exc}", type(self)
            return
        try:
            result = engine.check_text(text, self.filename, tree=self.tree)
        except Exception as exc:  # never a traceback in the user's flake8 run
            yield 1, 0, f"{INTERNAL_ERROR} npu-lint internal error: {type(exc).__name__}: {exc}", type(self)
            return
        for finding in result.findings:
            # flake8 wants 0-based columns and adds 1 itself.
            yield finding.start.line, finding.start.column, f"{finding.code} {finding.message_with_folded}", type(self)
        for problem in result.problems:
            if problem.kind == "internal-error":
                yield problem.line, problem.column, f"{INTERNAL_ERROR} npu-lint internal error: {problem.message}", type(self)
