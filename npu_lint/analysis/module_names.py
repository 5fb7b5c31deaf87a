"""Whether a module is named for a device: by its file, or by a package of the package chain that
holds it (folders with __init__.py, and folders without one inside such a package: namespace
subpackages, as FlagGems' `_enflame/gcu300/` and `_kunlunxin/utils/`). Only the package chain
counts, so a checkout under a folder such as `npu-lint/` or `amd/` says nothing about the modules
inside."""
from __future__ import annotations

import functools
import os
import re
from typing import Optional

from npu_lint.analysis.names import identifier_words


def module_named_for(path: str, words: frozenset[str], pattern: Optional[re.Pattern] = None) -> bool:
    """Is the module at `path` named with one of `words` (or a word `pattern` matches whole), by its
    file or its packages' names?"""
    if not path or os.path.basename(path).startswith("<"):
        return False
    stem = os.path.splitext(os.path.basename(path))[0]
    return _named_for(stem, words, pattern) \
        or _package_named_for(os.path.dirname(os.path.abspath(path)), words, pattern)


@functools.lru_cache(maxsize=4096)
def _package_named_for(folder: str, words: frozenset[str], pattern: Optional[re.Pattern]) -> bool:
    if not _in_package_chain(folder):
        return False
    if _named_for(os.path.basename(folder), words, pattern):
        return True
    parent = os.path.dirname(folder)
    return parent != folder and _package_named_for(parent, words, pattern)


@functools.lru_cache(maxsize=4096)
def _in_package_chain(folder: str) -> bool:
    """Is `folder` a package: a regular one (with __init__.py), or a namespace subpackage of one
    (a folder without it, inside a regular package)?"""
    if os.path.isfile(os.path.join(folder, "__init__.py")):
        return True
    parent = os.path.dirname(folder)
    return parent != folder and _in_package_chain(parent)


def _named_for(name: str, words: frozenset[str], pattern: Optional[re.Pattern] = None) -> bool:
    found = identifier_words(name)
    return not words.isdisjoint(found) or (pattern is not None and any(pattern.fullmatch(word) for word in found))
