"""YAML for data only: the safe loader, in its C version when libyaml is there (5-10x faster).

Every process reads the same dozen data files, and even libyaml spends 30 ms building the Python
objects of them: a third of what the engine costs to start, paid by each pre-commit or flake8
run on one file. So the parsed data is kept in the machine's npu-lint cache as marshal, keyed
by the text's hash (and the versions that decide what the parse gives): a changed file, another
PyYAML or another Python all miss and parse again, and PyYAML itself is imported only then. The cache is only ever a shortcut: when it
cannot be read or written, the text is parsed as before.
"""
from __future__ import annotations

import functools
import hashlib
import importlib.util
import marshal
import os
import sys
from pathlib import Path
from typing import Any

from npu_lint.core.cache_location import cache_root, keep_file


class YAMLError(ValueError):
    """Text that is not valid YAML (PyYAML's message; PyYAML's own error is the cause)."""


# Each Python environment (its own PyYAML) keeps its own copy of the ~20 shipped data files, ~20 KB
# each: a project's venv, pre-commit's hook environment, pipx and an editor's all stay cached (at
# 64, four environments evicted each other and every start parsed YAML again). extend-rules
# files being edited add one each; the oldest go first.
MAX_CACHED_FILES = 512
MIN_CACHED_CHARS = 2048  # below this, parsing costs less than a file read


def load_yaml(text: str) -> Any:
    """Parse YAML without ever constructing Python objects from tags."""
    if len(text) < MIN_CACHED_CHARS:
        return _parse(text)
    path = _cache_file(text)
    try:
        return marshal.loads(path.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        pass  # not cached yet, or unreadable: parse
    value = _parse(text)
    _store(path, value)
    return value


def _parse(text: str) -> Any:
    # PyYAML is imported only here: a process whose data all comes from the cache never needs
    # it (8 ms of every start).
    import yaml  # pylint: disable=import-outside-toplevel

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader, C or Python
    except yaml.YAMLError as error:
        raise YAMLError(str(error)) from error


@functools.lru_cache(maxsize=None)
def _cache_key() -> str:
    """What else decides the parsed value or its marshal form, besides the text: the installed
    PyYAML (its files' size and time stand for its version and whether libyaml came with it,
    without importing it), marshal's format and Python's version."""
    parts = [str(marshal.version), str(sys.version_info[:2])]
    spec = importlib.util.find_spec("yaml")
    for location in (spec.submodule_search_locations or []) if spec else []:
        for entry in sorted(os.scandir(location), key=lambda e: e.name):
            if entry.is_file():
                status = entry.stat()
                parts.append(f"{entry.name}:{status.st_size}:{status.st_mtime_ns}")
    return "|".join(parts)


def data_cache_dir() -> Path:
    return cache_root() / "data"


def _cache_file(text: str) -> Path:
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16,
                             person=b"npu-lint-yaml").hexdigest()
    key = hashlib.blake2b(_cache_key().encode(), digest_size=4).hexdigest()
    return data_cache_dir() / f"{digest}-{key}.marshal"


def _store(path: Path, value: Any) -> None:
    """Keep the parsed value; values marshal cannot hold are not kept."""
    try:
        data = marshal.dumps(value)
    except ValueError:  # e.g. a YAML timestamp
        return
    keep_file(path, data, MAX_CACHED_FILES)
