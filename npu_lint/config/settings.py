"""What a run is asked to do: which rules, for which torch_npu release."""
from __future__ import annotations

import functools
import fnmatch
import os

from npu_lint.core.rule import Rule
from npu_lint.knowledge import operator_data, release_data
from npu_lint.core.records import record


@record(frozen=True)
class Settings:
    select: tuple[str, ...] = ()  # code prefixes; empty means the default set
    ignore: tuple[str, ...] = ()
    target_torch_npu: str | None = None  # None means the newest release
    npu_chip: str = "Atlas A2"
    strategy: str = "manual"  # "auto": the transfer_to_npu route; "agnostic": CUDA and NPU alike
    unsafe_fixes: bool = False
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (glob, codes)
    exclude: tuple[str, ...] = ()  # globs of paths the CLI does not walk into
    config_dir: str | None = None  # where the configuration file was; globs are relative to it
    extend_rules: tuple[str, ...] = ()  # extra rule files (absolute paths), validated like rules/
    # (import name, version) of third-party libraries to assume; others: the newest summarised
    library_versions: tuple[tuple[str, str], ...] = ()

    def library_version(self, package: str) -> str | None:
        return dict(self.library_versions).get(package)

    # Resolved once per Settings (and cached on it): every check and rule filter asks these.
    @functools.cached_property
    def release(self) -> str:
        """The torch_npu release checked against: the configured one, else the newest."""
        if not self.target_torch_npu:
            return release_data.default_release()
        try:  # "2.1" as an API caller may pass it; the rule windows compare exact releases
            return release_data.normalize_release(self.target_torch_npu)
        except ValueError:
            return self.target_torch_npu

    @functools.cached_property
    def chip(self) -> str:
        """The chip id ("A2", "A3", "950DT") of the configured Ascend chip."""
        return operator_data.normalize_chip(self.npu_chip)

    def enables(self, rule: Rule) -> bool:
        if self.strategy not in rule.strategies:
            return False
        if (rule.since or rule.until) and not rule.applies_to(self.release, release_data.releases()):
            return False
        if _longest(rule.code, self.ignore):
            return _longest(rule.code, self.select) > _longest(rule.code, self.ignore)
        if self.select:
            # an off-by-default rule runs when named more closely than "NPU", or by ALL
            return _longest(rule.code, self.select) > 0 and (
                rule.default_enabled or _longest(rule.code, self.select) > 3 or EVERY_RULE in self.select
            )
        return rule.default_enabled

    def _relative(self, path: str) -> str:
        if self.config_dir:
            try:
                return os.path.relpath(os.path.abspath(path), self.config_dir).replace(os.sep, "/")
            except ValueError:  # another drive on Windows
                pass
        return path.replace(os.sep, "/")

    def _matches(self, path: str, pattern: str) -> bool:
        relative = self._relative(path)
        return any(fnmatch.fnmatch(candidate, pattern) for candidate in (relative, os.path.basename(path)))

    def ignored_codes(self, path: str) -> tuple[str, ...]:
        """Codes that per-file-ignores switches off for this file."""
        return tuple(code for pattern, codes in self.per_file_ignores if self._matches(path, pattern) for code in codes)

    def excludes(self, path: str) -> bool:
        return any(self._matches(path, pattern) or self._matches(path, pattern.rstrip("/") + "/*")
                   for pattern in self.exclude)


# As in Ruff: selects every rule, the off-by-default ones too; any code or prefix is more specific.
EVERY_RULE = "ALL"


def _longest(code: str, prefixes: tuple[str, ...]) -> int:
    """Length of the most specific prefix matching code (0 when none; ALL counts 1)."""
    return max((1 if p == EVERY_RULE else len(p) for p in prefixes if p == EVERY_RULE or code.startswith(p)),
               default=0)


def not_rule_codes(codes: tuple[str, ...]) -> list[str]:
    """The selectors that can match no npu-lint rule (`FOO`, `E501`): rules are `NPU...`, or ALL."""
    return [code for code in codes if code != EVERY_RULE and not code.startswith("NPU")]


def split_codes(value: str | None) -> tuple[str, ...]:
    """'NPU1, NPU201' -> ('NPU1', 'NPU201')."""
    if not value:
        return ()
    return tuple(part.strip().upper() for part in value.replace(",", " ").split() if part.strip())


def parse_library_versions(value) -> tuple[tuple[str, str], ...]:
    """`{timm = "0.9.16"}` or "timm=0.9.16, pytorch-lightning=2.4.0" -> sorted (import name, version) pairs.

    Raises ValueError naming the part it cannot read.
    """
    if isinstance(value, str):
        pairs = {}
        for part in value.replace("\n", ",").split(","):
            if not part.strip():
                continue
            name, sep, version = part.partition("=")
            if not sep or not name.strip() or not version.strip():
                raise ValueError(f"expected 'library=version', got {part.strip()!r}")
            pairs[name] = version
        value = pairs
    if not isinstance(value, dict):
        raise ValueError("expected a table of library name -> version")
    result = {}
    for name, version in value.items():
        if not isinstance(version, (str, int, float)) or not str(version).strip():
            raise ValueError(f"{name}: expected a version string, got {version!r}")
        result[str(name).strip().lower().replace("-", "_")] = str(version).strip()
    return tuple(sorted(result.items()))
