"""YAML for data only: the safe loader, in its C version when libyaml is there (5-10x faster).

Every process reads the same dozen data files, and even libyaml spends 30 ms building the Python
objects of them: a third of what the engine costs to start, paid by each pre-commit or flake8
run on one file. So the parsed data is kept in the machine's npu-lint cache as marshal, keyed
by the text's hash (and the versions that decide what the parse gives): a changed file, another
PyYAML or another Python all miss and parse again. The cache is only ever a shortcut: when it
cannot be read or written, the text is parsed as before.
"""
from __future__ import annotations

import hashlib
import marshal
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

from npu_lint.core.cache_location import cache_root

_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
YAMLError = yaml.YAMLError

# What else decides the parsed value or its marshal form, besides the text.
_CACHE_KEY = f"{yaml.__version__}|{_SAFE_LOADER.__name__}|{marshal.version}|{sys.version_info[:2]}"
MAX_CACHED_FILES = 64  # extend-rules files being edited add one each; the oldest go first
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
    return yaml.load(text, Loader=_SAFE_LOADER)  # noqa: S506 - a safe loader, C or Python


def data_cache_dir() -> Path:
    return cache_root() / "data"


def _cache_file(text: str) -> Path:
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16,
                             person=b"npu-lint-yaml").hexdigest()
    key = hashlib.blake2b(_CACHE_KEY.encode(), digest_size=4).hexdigest()
    return data_cache_dir() / f"{digest}-{key}.marshal"


def _store(path: Path, value: Any) -> None:
    """Write atomically (parallel workers may race); values marshal cannot hold are not kept."""
    try:
        data = marshal.dumps(value)
    except ValueError:  # e.g. a YAML timestamp
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _prune(path.parent)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass  # a read-only home or a full disk: no cache, same answers


def _prune(folder: Path) -> None:
    entries = sorted(folder.glob("*.marshal"), key=lambda p: p.stat().st_mtime)
    for stale in entries[:max(0, len(entries) - MAX_CACHED_FILES + 1)]:
        stale.unlink(missing_ok=True)
