"""Which files `npu-lint` looks at when given folders."""
from __future__ import annotations

import os
from typing import Iterator

from npu_lint.config.settings import Settings

SKIPPED_DIRS = frozenset({
    ".git", ".hg", ".svn", ".tox", ".nox", ".venv", "venv", "__pycache__", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".npu_lint_cache", "build", "dist", "node_modules", ".eggs", "site-packages",
})


NOTEBOOK_SUFFIX = ".ipynb"


def python_files(paths: list[str], settings: Settings | None = None,
                 notebooks: list[str] | None = None) -> Iterator[str]:
    """Every *.py / *.pyi under the given paths, less `exclude`; files named directly are kept.
    Jupyter notebooks are not Python source (their JSON even parses as a Python dict, which would
    say nothing): those found, named or under the folders, go to `notebooks` instead."""
    settings = settings or Settings()
    for path in paths:
        if path.endswith(NOTEBOOK_SUFFIX) and not os.path.isdir(path):
            if notebooks is not None:
                notebooks.append(path)
            continue
        if os.path.isdir(path):
            root = os.path.realpath(path)
            ignored = git_ignored(path)

            def real(entry: str) -> str:
                # os.walk follows no folder link, so below the walked folder only the entry
                # itself can be a link: its real path is the root's plus the rest, without
                # realpath's lstat of every component.
                if os.path.islink(entry):
                    return os.path.realpath(entry)
                if not entry.startswith(path):
                    return os.path.realpath(entry)
                return os.path.join(root, entry[len(path):].lstrip(os.sep))

            for folder, dirs, files in os.walk(path):  # never follows links to folders
                dirs[:] = sorted(
                    d for d in dirs
                    if d not in SKIPPED_DIRS and not d.endswith(".egg-info")
                    and not settings.excludes(os.path.join(folder, d))
                    and not (ignored and real(os.path.join(folder, d)) in ignored)
                )
                for name in sorted(files):
                    candidate = os.path.join(folder, name)
                    if name.endswith((".py", ".pyi", NOTEBOOK_SUFFIX)) and not settings.excludes(candidate) and (
                        not os.path.islink(candidate) or _inside(os.path.realpath(candidate), root)
                    ) and not (ignored and real(candidate) in ignored):
                        if not name.endswith(NOTEBOOK_SUFFIX):
                            yield candidate
                        elif notebooks is not None:
                            notebooks.append(candidate)
        else:
            yield path


def _inside(path: str, root: str) -> bool:
    """A link that leads out of the folder being walked is not followed."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def git_ignored(folder: str) -> frozenset[str]:
    """Real paths under folder that git ignores (.gitignore and friends); empty outside a repo.

    Folders named on the command line are walked with the project's own ignore rules, as Ruff
    does; files named directly are always checked.
    """
    # Imported here: only folders need git, and a check of named files should not pay for it.
    import shutil  # pylint: disable=import-outside-toplevel
    import subprocess  # pylint: disable=import-outside-toplevel

    git = shutil.which("git")
    if git is None:
        return frozenset()
    try:
        proc = subprocess.run(
            [git, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory", "."],
            cwd=folder, capture_output=True, timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return frozenset()
    if proc.returncode != 0:  # not a git work tree
        return frozenset()
    base = os.path.realpath(folder)
    names = proc.stdout.decode("utf-8", "surrogateescape").split("\0")
    return frozenset(os.path.join(base, name.rstrip("/")) for name in names if name)
