"""Configuration from `[tool.npu-lint]` in pyproject.toml or `[npu-lint]` in setup.cfg.

The nearest file above the first path wins (like Ruff and flake8), and
command-line flags override it. An unknown key or a bad value is an error
naming the file and the key.
"""
from __future__ import annotations

import configparser
import dataclasses
import functools
import os
import sys
from pathlib import Path
from typing import Any, Callable

from npu_lint.config.settings import Settings, not_rule_codes, parse_library_versions, split_codes
from npu_lint.knowledge.loader import STRATEGIES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib


class ConfigError(ValueError):
    def __init__(self, file: str, key: str | None, problem: str):
        super().__init__(f"{file}: {'key ' + repr(key) + ': ' if key else ''}{problem}")


def _codes(value: Any, err) -> tuple[str, ...]:
    if isinstance(value, str):
        codes = split_codes(value)
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        codes = tuple(c.strip().upper() for c in value if c.strip())
    else:
        raise err("expected a list of rule codes or a comma-separated string")
    bad = not_rule_codes(codes)
    if bad:
        raise err(f"not npu-lint rule codes: {', '.join(bad)} (codes start with NPU; ALL selects every rule)")
    return codes


def _patterns(value: Any, err) -> tuple[str, ...]:
    if isinstance(value, str):
        return tuple(p.strip() for p in value.replace("\n", ",").split(",") if p.strip())
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise err("expected a list of glob patterns")


def _per_file_ignores(value: Any, err) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if isinstance(value, str):  # setup.cfg: "pattern: CODE, CODE" per line
        pairs = {}
        for line in value.splitlines():
            if line.strip():
                pattern, sep, codes = line.partition(":")
                if not sep:
                    raise err(f"expected 'pattern: CODES', got {line.strip()!r}")
                pairs[pattern.strip()] = codes
        value = pairs
    if not isinstance(value, dict):
        raise err("expected a table of glob pattern -> rule codes")
    return tuple((pattern, _codes(codes, err)) for pattern, codes in value.items())


def _target(value: Any, err) -> str:
    from npu_lint.knowledge.release_data import normalize_release

    if not isinstance(value, str):
        value = str(value)
    try:
        return normalize_release(value)
    except ValueError as exc:
        raise err(str(exc)) from None


def _choice(choices: tuple[str, ...]) -> Callable:
    def parse(value: Any, err) -> str:
        if value not in choices:
            raise err(f"expected one of {', '.join(choices)}, got {value!r}")
        return value
    return parse


def _boolean(value: Any, err) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no", "1", "0"):
        return value.strip().lower() in ("true", "yes", "1")
    raise err(f"expected true or false, got {value!r}")


def _string(value: Any, err) -> str:
    if not isinstance(value, str):
        raise err(f"expected a string, got {value!r}")
    return value


def _library_versions(value: Any, err) -> tuple[tuple[str, str], ...]:
    try:
        return parse_library_versions(value)
    except ValueError as exc:
        raise err(str(exc)) from None


# key -> (Settings field, parser)
KEYS: dict[str, tuple[str, Callable]] = {
    "select": ("select", _codes),
    "ignore": ("ignore", _codes),
    "per-file-ignores": ("per_file_ignores", _per_file_ignores),
    "exclude": ("exclude", _patterns),
    "target-torch-npu": ("target_torch_npu", _target),
    "npu-chip": ("npu_chip", _string),
    "unsafe-fixes": ("unsafe_fixes", _boolean),
    "strategy": ("strategy", _choice(STRATEGIES)),
    "extend-rules": ("extend_rules", _patterns),
    "library-versions": ("library_versions", _library_versions),
}


def parse_table(table: dict, file: str) -> dict[str, Any]:
    """Validated Settings fields from one configuration table."""
    values = {}
    for key, raw in table.items():
        normalized = key.replace("_", "-")
        if normalized not in KEYS:
            raise ConfigError(file, key, f"unknown key (known: {', '.join(sorted(KEYS))})")
        field, parse = KEYS[normalized]
        values[field] = parse(raw, lambda problem, key=key: ConfigError(file, key, problem))
    return values


def _read_pyproject(path: Path) -> dict | None:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(str(path), None, f"cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(str(path), None, f"not valid TOML: {exc}") from None
    table = data.get("tool", {}).get("npu-lint")
    if table is not None and not isinstance(table, dict):
        raise ConfigError(str(path), "tool.npu-lint", "expected a table")
    return table


def _read_setup_cfg(path: Path) -> dict | None:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(path.read_text(encoding="utf-8"), source=str(path))
    except (OSError, UnicodeDecodeError, configparser.Error) as exc:
        raise ConfigError(str(path), None, f"cannot read: {exc}") from None
    return dict(parser["npu-lint"]) if parser.has_section("npu-lint") else None


def find_config(start: str) -> tuple[Path, dict] | None:
    """The nearest pyproject.toml / setup.cfg at or above start that configures npu-lint."""
    folder = Path(start).resolve()
    if not folder.is_dir():
        folder = folder.parent
    for candidate in (folder, *folder.parents):
        for name, read in (("pyproject.toml", _read_pyproject), ("setup.cfg", _read_setup_cfg)):
            path = candidate / name
            if path.is_file():
                table = read(path)
                if table is not None:
                    return path, table
    return None


def load_settings(start: str, overrides: dict[str, Any] | None = None) -> Settings:
    """Settings for a run: the configuration file's values, then the overrides."""
    values: dict[str, Any] = {}
    found = find_config(start)
    if found:
        path, table = found
        values = parse_table(table, str(path))
        values["config_dir"] = str(path.parent)
        values["extend_rules"] = tuple(str(path.parent / rule_file) for rule_file in values.get("extend_rules", ()))
    values.update({k: v for k, v in (overrides or {}).items() if v is not None})
    settings = dataclasses.replace(Settings(), **values)
    problem = strategy_problem(settings)
    if problem:
        given = {k for k, v in (overrides or {}).items() if v is not None}
        raise ConfigError(str(found[0]) if found and not given & {"strategy", "target_torch_npu"}
                          else "command line", "strategy", problem)
    return settings


def strategy_problem(settings: Settings) -> str | None:
    """Why the chosen route cannot serve the target, or None."""
    if settings.strategy != "agnostic":
        return None
    from npu_lint.knowledge.device_api import agnostic_supported, device_api
    from npu_lint.knowledge.torch_surface import torch_version

    if agnostic_supported(settings.target_torch_npu):
        return None
    from npu_lint.knowledge.release_data import default_release

    release = settings.target_torch_npu or default_release()
    return (f"the agnostic route writes torch.accelerator, which torch has from {device_api().min_torch} on; "
            f"the target torch_npu {release} pairs with torch {torch_version(release)}. "
            f"Use strategy 'manual' for this target, or target torch_npu 2.6 or later")


@functools.lru_cache(maxsize=256)
def _settings_for_folder(folder: str, overrides: tuple) -> Settings:
    return load_settings(folder, dict(overrides))


def settings_for_file(path: str, **overrides: Any) -> Settings:
    """Settings for one file, for the pylint, flake8 and editor front ends (cached per folder)."""
    folder = os.path.dirname(os.path.abspath(path)) if path and path not in ("-", "stdin") else os.getcwd()
    return _settings_for_folder(folder, tuple(sorted((k, v) for k, v in overrides.items() if v is not None)))
