"""Summaries of installed libraries that ship no summary, made on the fly from their source files.

The package is located with `importlib.machinery.PathFinder.find_spec` on sys.path, which reads
the file system and executes nothing; its version comes from its distribution metadata (a folder
without one is the user's own code, not a library). The result is cached by name and version in
`~/.cache/npu-lint/libraries/analysed` (or `$NPU_LINT_CACHE`), so each release is read once per machine.
"""
from __future__ import annotations

import functools
import importlib.machinery
import json
import os
import re
import sys
from pathlib import Path

from npu_lint.knowledge.library_summaries import SUMMARISED, CudaUse, Summary, decode_use, encode_use

# Never analysed: torch itself (the rules know it), this tool and its own dependencies.
NOT_LIBRARIES = frozenset({"torch", "torch_npu", "torchgen", "functorch", "npu_lint", "astroid", "pylint",
                           "flake8", "yaml", "numpy", "pytest", "setuptools", "pip", "pkg_resources"})
MAX_FILES = 4000
CACHE_FORMAT = 1


def cache_folder() -> Path:
    configured = os.environ.get("NPU_LINT_CACHE")
    root = Path(configured).expanduser() if configured else Path.home() / ".cache" / "npu-lint"
    return root / "libraries" / "analysed"


def is_candidate(package: str) -> bool:
    return (package not in SUMMARISED and package not in NOT_LIBRARIES
            and package not in sys.stdlib_module_names and package.isidentifier())


@functools.lru_cache(maxsize=256)
def installed_summary(package: str) -> Summary | None:
    """The summary of an installed, unsummarised library; None when it is not one."""
    if not is_candidate(package):
        return None
    try:
        spec = importlib.machinery.PathFinder.find_spec(package, sys.path)
    except (ImportError, ValueError, OSError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        folder = Path(list(spec.submodule_search_locations)[0])
        site = folder.parent
    elif spec.origin and spec.origin.endswith(".py"):
        folder = Path(spec.origin)
        site = folder.parent
    else:
        return None  # a compiled module: nothing to read
    version = _version(site, package)
    if version is None:
        return None
    cached = _read_cache(package, version)
    if cached is not None:
        return cached
    # Imported here: only a library without a cached summary needs the reader (or its import time).
    from npu_lint.analysis.library_cuda import analyse_package

    bound, aliases = analyse_package(_sources(folder, site), package)
    summary = Summary(package, version, bound, aliases)
    _write_cache(summary)
    return summary


def _version(site: Path, package: str) -> str | None:
    import importlib.metadata  # only where a library is analysed: not every run pays its import

    wanted = re.sub(r"[-_.]+", "_", package).lower()
    try:
        # Most libraries are distributed under their import name: found by the metadata folder's
        # name, without reading every distribution's metadata (50-100 ms in a small environment).
        for dist in importlib.metadata.distributions(name=package, path=[str(site)]):
            return dist.version
        for dist in importlib.metadata.distributions(path=[str(site)]):
            name = re.sub(r"[-_.]+", "_", dist.metadata.get("Name") or "").lower()
            top_level = (dist.read_text("top_level.txt") or "").split()
            if name == wanted or package in top_level or any(
                    str(f).startswith(f"{package}/") or str(f) == f"{package}.py" for f in (dist.files or ())[:200]):
                return dist.version
    except (OSError, ValueError):
        return None
    return None


def _sources(folder: Path, site: Path) -> list[tuple[str, str]]:
    """(path relative to the site folder, text); none when no file mentions CUDA at all."""
    paths = [folder] if folder.is_file() else sorted(folder.rglob("*.py"))[:MAX_FILES]
    files = []
    mentions_cuda = False
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        mentions_cuda = mentions_cuda or "cuda" in text or "nccl" in text
        files.append((path.relative_to(site).as_posix(), text))
    return files if mentions_cuda else []


def _cache_path(package: str, version: str) -> Path:
    return cache_folder() / f"{package}-{re.sub(r'[^A-Za-z0-9.+_-]', '_', version)}.json"


def _read_cache(package: str, version: str) -> Summary | None:
    try:
        data = json.loads(_cache_path(package, version).read_text(encoding="utf-8"))
        if data.get("format") != CACHE_FORMAT:
            return None
        bound = {name: decode_use(row) for name, row in data["bound"].items()}
        return Summary(package, version, bound, dict(data["aliases"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _write_cache(summary: Summary) -> None:
    data = {"format": CACHE_FORMAT, "bound": {n: encode_use(u) for n, u in summary.bound.items()},
            "aliases": summary.aliases}
    path = _cache_path(summary.package, summary.version)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
        os.replace(temporary, path)
    except OSError:
        pass  # a read-only home: analyse again next time


__all__ = ["CudaUse", "installed_summary", "is_candidate"]
