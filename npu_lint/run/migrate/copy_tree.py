"""Walk SRC and write the copy, without ever writing inside SRC or outside OUT."""
from __future__ import annotations

import os
import stat

from npu_lint.run.discovery import SKIPPED_DIRS
from npu_lint.core.records import record


class MigrationRefused(Exception):
    """Nothing was written; the message says why."""


@record
class CopyItem:
    absolute: str
    relative: str
    mode: int

    def read(self) -> bytes:
        with open(self.absolute, "rb") as handle:
            return handle.read()


@record
class CopyPlan:
    source: str
    output: str
    project: str
    items: list[CopyItem]
    skipped: list[str]


def _inside(path: str, folder: str) -> bool:
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def plan_copy(source: str, output: str) -> CopyPlan:
    if not os.path.isdir(source):
        raise MigrationRefused(f"{source} is not a folder")
    if _inside(output, source):
        raise MigrationRefused(f"the output folder {output} is inside the source folder {source}")
    if _inside(source, output):
        raise MigrationRefused(f"the source folder {source} is inside the output folder {output}")
    if os.path.exists(output) and (not os.path.isdir(output) or os.listdir(output)):
        raise MigrationRefused(f"the output folder {output} exists and is not empty")
    name = os.path.basename(os.path.realpath(source)) or "project"
    project = os.path.join(output, name)
    items, skipped = [], []
    root = os.path.realpath(source)
    for folder, dirs, names in os.walk(source, followlinks=False):
        kept = []
        for d in sorted(dirs):
            full = os.path.join(folder, d)
            if d in SKIPPED_DIRS or d.endswith(".egg-info"):
                continue
            if os.path.islink(full):
                skipped.append(f"{os.path.relpath(full, source)}: a symbolic link to a folder, not followed")
                continue
            kept.append(d)
        dirs[:] = kept
        for n in sorted(names):
            full = os.path.join(folder, n)
            relative = os.path.relpath(full, source).replace(os.sep, "/")
            if os.path.islink(full) and not _inside(full, root):
                skipped.append(f"{relative}: a symbolic link out of the project, not followed")
                continue
            try:
                info = os.stat(full)
            except OSError as exc:
                skipped.append(f"{relative}: cannot read ({exc.strerror})")
                continue
            if not stat.S_ISREG(info.st_mode):
                skipped.append(f"{relative}: not a regular file")
                continue
            items.append(CopyItem(full, relative, stat.S_IMODE(info.st_mode)))
    return CopyPlan(os.path.abspath(source), os.path.abspath(output), project, items, skipped)


def output_path(plan: CopyPlan, relative: str, base: str | None = None) -> str:
    """A path under OUT for a relative name, refusing anything that escapes it."""
    base = base or plan.project
    target = os.path.normpath(os.path.join(base, relative))
    if not _inside(os.path.dirname(target) or base, plan.output) or _inside(target, plan.source):
        raise MigrationRefused(f"{relative} would be written outside {plan.output}")
    return target


def write_new_file(plan: CopyPlan, relative: str, data: bytes, mode: int = 0o644, base: str | None = None) -> str:
    target = output_path(plan, relative, base)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    temporary = target + ".npu-lint-tmp"
    with open(temporary, "wb") as handle:
        handle.write(data)
    os.chmod(temporary, mode)
    os.replace(temporary, target)  # a complete file or none, never half of one
    return target
