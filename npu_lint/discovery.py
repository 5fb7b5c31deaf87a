"""Which files `npu-lint` looks at when given folders."""
from __future__ import annotations

import os
from typing import Iterator

SKIPPED_DIRS = frozenset({
    ".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", "__pycache__", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", "build", "dist", "node_modules", ".eggs", "site-packages",
})


def python_files(paths: list[str]) -> Iterator[str]:
    """Every *.py / *.pyi under the given paths; files named directly are kept as given."""
    for path in paths:
        if os.path.isdir(path):
            for folder, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info"))
                for name in sorted(files):
                    if name.endswith((".py", ".pyi")):
                        yield os.path.join(folder, name)
        else:
            yield path
