"""flake8 front end: `flake8 --select NPU`. Translates findings to flake8's tuples.

flake8 runs every installed plugin on every file whatever --select says, so
files without a trigger word return before anything is built.
"""
from __future__ import annotations

from typing import Iterator

from npu_lint import __version__
from npu_lint.config.files import ConfigError, settings_for_file
from npu_lint.engine.engine import engine_for
from npu_lint.knowledge.loader import STRATEGIES

INTERNAL_ERROR = "NPU000"


class NpuLintFlake8:
    name = "npu-lint"
    version = __version__
    _overrides: dict = {}

    def __init__(self, tree, lines: list[str], filename: str):
        self.tree = tree  # flake8 parsed it already: the engine builds astroid from it
        self.lines = lines
        self.filename = filename

    @classmethod
    def add_options(cls, option_manager) -> None:
        option_manager.add_option(
            "--target-torch-npu", parse_from_config=True, default=None, metavar="VERSION",
            help="npu-lint: torch_npu release to check against (default: newest)",
        )
        option_manager.add_option(
            "--npu-chip", parse_from_config=True, default=None, metavar="CHIP",
            help="npu-lint: Ascend chip to check against (default: Atlas A2)",
        )
        option_manager.add_option(
            "--strategy", parse_from_config=True, default=None, choices=STRATEGIES,
            help="npu-lint: migration route, manual rewrite (default), transfer_to_npu (auto) or agnostic "
                 "(runs on CUDA and the NPU alike; torch 2.6 and later)",
        )

    @classmethod
    def parse_options(cls, options) -> None:
        target = getattr(options, "target_torch_npu", None)
        if target:
            from npu_lint.knowledge.release_data import normalize_release

            target = normalize_release(target)  # a bad value stops flake8 with the message
        cls._overrides = {
            "target_torch_npu": target,
            "npu_chip": getattr(options, "npu_chip", None),
            "strategy": getattr(options, "strategy", None),
        }

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        text = "".join(self.lines)
        try:
            engine = engine_for(settings_for_file(self.filename, **self._overrides))
        except ConfigError as exc:
            yield 1, 0, f"{INTERNAL_ERROR} npu-lint configuration error: {exc}", type(self)
            return
        if not engine.could_fire(text):
            return
        try:
            result = engine.check_text(text, self.filename, tree=self.tree)
        except Exception as exc:  # never a traceback in the user's flake8 run
            yield 1, 0, f"{INTERNAL_ERROR} npu-lint internal error: {type(exc).__name__}: {exc}", type(self)
            return
        for finding in result.findings:
            # flake8 wants 0-based columns and adds 1 itself.
            yield finding.start.line, finding.start.column, f"{finding.code} {finding.message}", type(self)
        for problem in result.problems:
            if problem.kind == "internal-error":
                yield problem.line, problem.column, f"{INTERNAL_ERROR} npu-lint internal error: {problem.message}", type(self)
