"""Real PyTorch code to test and benchmark against (DESIGN.md section 7), shared by tests and benchmarks.

The sdists are fetched once per machine with `pip download --no-deps --no-binary NAME NAME==VER`
into `~/.cache/npu-lint/realcode` (`$NPU_LINT_CACHE/realcode` when set), checked against the sha256
recorded below, and their Python files extracted beside them. Nothing of them enters the repository.
"""
from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from npu_lint.generate.wheel_cache import cache_root, sha256_of


@dataclasses.dataclass(frozen=True)
class Project:
    name: str
    version: str
    sha256: str  # of the sdist, recorded after the first download
    roots: tuple[str, ...] = (".",)  # folders of the sdist that are checked

    @property
    def sdist(self) -> str:
        return f"{self.name}-{self.version}.tar.gz"

    @property
    def folder(self) -> str:
        return f"{self.name}-{self.version}"


PROJECTS = (
    Project("transformers", "4.18.0", "16f7751c44f31d8f9a3811bccd80f1995e1cb0ffd9b7de60ef6ede2ab90a6fd4",
            roots=("examples", "src")),
    Project("fairseq", "0.12.2", "34f1b18426bf3844714534162f065ab733e049597476daa35fffb4d06a92b524"),
    Project("timm", "0.9.16", "891e54f375d55adf31a71ab0c117761f0e472f9f3971858ecdd1e7376b7071e6"),
    Project("ultralytics", "8.2.0", "e8ff41335d1138321496636ac5cc6689c74e3b57599c4b4c62b16662bd5100ac"),
)


class RealCodeError(Exception):
    pass


def realcode_dir() -> Path:
    return cache_root() / "realcode"


def fetch_sdist(project: Project, folder: Path | None = None) -> Path:
    """The project's sdist in the cache, downloaded with pip when absent or not the recorded file."""
    folder = folder or realcode_dir() / "sdists"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / project.sdist
    if path.exists() and sha256_of(path) == project.sha256:
        return path
    path.unlink(missing_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", project.name,
               "--dest", str(folder), f"{project.name}=={project.version}"]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0 or not path.exists():
        raise RealCodeError(f"pip download {project.name}=={project.version} failed:\n"
                            f"{(result.stderr or result.stdout).strip()[-2000:]}")
    digest = sha256_of(path)
    if digest != project.sha256:
        raise RealCodeError(f"{path.name}: sha256 {digest} differs from the recorded {project.sha256}")
    return path


def _python_members(archive: tarfile.TarFile, top: str):
    """Regular *.py files of the sdist, with the top folder stripped; nothing outside it."""
    for member in archive.getmembers():
        parts = member.name.split("/")
        if not member.isfile() or parts[0] != top or ".." in parts or len(parts) < 2:
            continue
        if member.name.endswith((".py", ".pyi")):
            yield "/".join(parts[1:]), member


# Top-level packaging files: they name the console scripts, and so the entry modules (NPU120).
PACKAGING_FILES = ("pyproject.toml", "setup.cfg")
_PACKAGING_DONE = ".packaging-files"


def _add_packaging_files(project: Project, target: Path) -> None:
    """Copy the sdist's top-level pyproject.toml / setup.cfg beside its Python files (once)."""
    marker = target / _PACKAGING_DONE
    if marker.exists():
        return
    with tarfile.open(fetch_sdist(project), "r:gz") as archive:
        for name in PACKAGING_FILES:
            try:
                member = archive.getmember(f"{project.folder}/{name}")
            except KeyError:
                continue
            if member.isfile() and not (target / name).exists():
                (target / name).write_bytes(archive.extractfile(member).read())
    marker.write_text("\n".join(PACKAGING_FILES) + "\n")


def extract(project: Project) -> Path:
    """Folder holding the Python files of the project's sdist (extracted once, atomically), and
    its top-level packaging files."""
    target = realcode_dir() / project.folder
    if target.is_dir():
        _add_packaging_files(project, target)
        return target
    sdist = fetch_sdist(project)
    scratch = Path(tempfile.mkdtemp(prefix=f".{project.folder}-", dir=realcode_dir()))
    try:
        with tarfile.open(sdist, "r:gz") as archive:
            for relative, member in _python_members(archive, project.folder):
                destination = scratch / relative
                destination.parent.mkdir(parents=True, exist_ok=True)
                source = archive.extractfile(member)
                with open(destination, "wb") as handle:
                    shutil.copyfileobj(source, handle)
        try:
            os.rename(scratch, target)
        except OSError:  # another process extracted it first
            if not target.is_dir():
                raise
    finally:
        if scratch.exists():
            shutil.rmtree(scratch, ignore_errors=True)
    _add_packaging_files(project, target)
    return target


def project_roots(project: Project) -> list[Path]:
    base = extract(project)
    return [base if root == "." else base / root for root in project.roots]


def real_code_roots(projects: tuple[Project, ...] = PROJECTS) -> list[Path]:
    """The folders of real code to check: downloaded once per machine, then reused."""
    return [root for project in projects for root in project_roots(project)]


def python_files(roots: list[Path]) -> list[Path]:
    """The files `npu-lint check` checks under the roots, in its order."""
    from npu_lint.run.discovery import python_files as walk

    return [Path(p) for p in walk([str(root) for root in roots])]


if __name__ == "__main__":
    for path in real_code_roots():
        print(path)
