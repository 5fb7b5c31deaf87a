"""Whether a module is named for a device: by its file, or by a package of the package chain that
holds it (folders with __init__.py). Only the package chain counts, so a checkout under a folder
such as `npu-lint/` or `amd/` says nothing about the modules inside."""
from __future__ import annotations

import functools
import os

from npu_lint.analysis.names import identifier_words


def module_named_for(path: str, words: frozenset[str]) -> bool:
    """Is the module at `path` named with one of `words`, by its file or its packages' names?"""
    if not path or os.path.basename(path).startswith("<"):
        return False
    stem = os.path.splitext(os.path.basename(path))[0]
    return _named_for(stem, words) or _package_named_for(os.path.dirname(os.path.abspath(path)), words)


@functools.lru_cache(maxsize=4096)
def _package_named_for(folder: str, words: frozenset[str]) -> bool:
    if not os.path.isfile(os.path.join(folder, "__init__.py")):
        return False
    if _named_for(os.path.basename(folder), words):
        return True
    parent = os.path.dirname(folder)
    return parent != folder and _package_named_for(parent, words)


def _named_for(name: str, words: frozenset[str]) -> bool:
    return not words.isdisjoint(identifier_words(name))
