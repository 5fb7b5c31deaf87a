"""Which files `npu-lint` looks at when given folders."""
from __future__ import annotations

import os
from typing import Iterator

from .settings import Settings

SKIPPED_DIRS = frozenset({
    ".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", "__pycache__", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".npu_lint_cache", "build", "dist", "node_modules", ".eggs", "site-packages",
})


def python_files(paths: list[str], settings: Settings | None = None) -> Iterator[str]:
    """Every *.py / *.pyi under the given paths, less `exclude`; files named directly are kept."""
    settings = settings or Settings()
    for path in paths:
        if os.path.isdir(path):
            root = os.path.realpath(path)
            for folder, dirs, files in os.walk(path):  # never follows links to folders
                dirs[:] = sorted(
                    d for d in dirs
                    if d not in SKIPPED_DIRS and not d.endswith(".egg-info")
                    and not settings.excludes(os.path.join(folder, d))
                )
                for name in sorted(files):
                    candidate = os.path.join(folder, name)
                    if name.endswith((".py", ".pyi")) and not settings.excludes(candidate) and (
                        not os.path.islink(candidate) or _inside(os.path.realpath(candidate), root)
                    ):
                        yield candidate
        else:
            yield path


def _inside(path: str, root: str) -> bool:
    """A link that leads out of the folder being walked is not followed."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)
