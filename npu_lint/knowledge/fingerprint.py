"""Hashes of everything installed that decides npu-lint's answers, besides the file and the settings:
npu-lint's own code, its torch model, rule records and data tables, the astroid that infers and
the Python that parses.

- `package_fingerprint()` reads the bytes (about 2.4 MB): the result cache, a folder of the
  project that a CI cache step may carry to another machine or a reinstalled wheel, keeps its
  entries for the same code wherever it is.
- `package_stamp()` reads only the files' sizes and modification times, as Python does for its
  .pyc files: the engine snapshot, kept on this machine, needs no more to see an edit, and a
  one-file run cannot afford the read.

Neither imports anything it does not need (importlib.metadata's version lookup scanned every
installed distribution: half of what the fingerprint cost before).
"""
from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import sys
from pathlib import Path

from npu_lint import __version__
from npu_lint.knowledge import location

_SUFFIXES = (".py", ".json", ".yaml")
_PACKAGE = Path(__file__).resolve().parents[1]


@functools.lru_cache(maxsize=None)
def package_fingerprint() -> str:
    """BLAKE2b over npu-lint's version, its code and data, astroid's version and Python's."""
    digest = hashlib.blake2b(digest_size=32)  # in software, half the work of sha256 per byte
    digest.update(f"npu-lint {__version__}\0astroid {_astroid_version()}\0"
                  f"{sys.implementation.name} {sys.version}\0".encode())
    for name, path in _package_files():
        data = Path(path).read_bytes()
        digest.update(f"{name}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


@functools.lru_cache(maxsize=None)
def package_stamp() -> str:
    """BLAKE2b over the same versions and every file's name, size and modification time."""
    digest = hashlib.blake2b(digest_size=32)
    digest.update(f"npu-lint {__version__}\0astroid {_astroid_version()}\0"
                  f"{sys.implementation.name} {sys.version}\0".encode())
    for name, path in _package_files():
        status = os.stat(path)
        digest.update(f"{name}\0{status.st_size}\0{status.st_mtime_ns}\0".encode())
    return digest.hexdigest()


def _package_files() -> list[tuple[str, str]]:
    """(name, path) of npu-lint's code, torch model, rule records and data, in a stable order."""
    files = []
    for folder, subfolders, names in os.walk(_PACKAGE):
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
        relative = os.path.relpath(folder, _PACKAGE).replace(os.sep, "/")
        prefix = "" if relative == "." else relative + "/"
        files += [(prefix + name, os.path.join(folder, name)) for name in names if name.endswith(_SUFFIXES)]
    for folder, label in ((location.rules_dir(), "rules/"), (location.data_dir(), "data/")):
        folder = Path(str(folder))
        if _PACKAGE in folder.resolve().parents:
            continue  # an installed wheel's _rules/_data: walked above
        files += [(label + entry.name, str(entry)) for entry in folder.iterdir() if entry.name.endswith(".yaml")]
    return sorted(files)


def _astroid_version() -> str:
    """astroid's version from its own `__pkginfo__.py`, read as text: importing astroid (or asking
    importlib.metadata) only to learn it would cost more than the rest of the hash."""
    spec = importlib.util.find_spec("astroid")
    for folder in (spec.submodule_search_locations or ()) if spec else ():
        try:
            return (Path(folder) / "__pkginfo__.py").read_text(encoding="utf-8")
        except OSError:
            continue
    return "?"
