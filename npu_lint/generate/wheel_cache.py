"""Fetch wheels once per machine into a cache folder outside the repository, checked by sha256."""
from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Optional, Sequence

from npu_lint.core.cache_location import CACHE_ENV, cache_root

__all__ = ["CACHE_ENV", "cache_root", "cache_dir", "fetch_wheel", "sha256_of", "WheelFetchError"]


def cache_dir() -> Path:
    """`$NPU_LINT_CACHE` if set, else `~/.cache/npu-lint/wheels`."""
    return cache_root() if os.environ.get(CACHE_ENV) else cache_root() / "wheels"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class WheelFetchError(Exception):
    pass


def fetch_wheel(requirement: str, wheel_name: str, expected_sha256: Optional[str],
                pip_platform_args: Sequence[str], folder: Optional[Path] = None, sdist: bool = False) -> Path:
    """Path of `wheel_name` in the cache, downloading `requirement` with pip when absent.

    A cached file whose sha256 differs from the recorded one is removed and fetched again;
    a fresh download that still differs is an error (the index serves another file).
    """
    folder = folder or cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / wheel_name
    if path.exists() and _matches(path, expected_sha256):
        return path
    if path.exists():
        path.unlink()
    if sdist and _download_from_index(requirement, wheel_name, path) and _matches(path, expected_sha256):
        return path
    binary = "--no-binary=:all:" if sdist else "--only-binary=:all:"
    command = [sys.executable, "-m", "pip", "download", "--no-deps", binary,
               *pip_platform_args, "--dest", str(folder), requirement]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise WheelFetchError(f"pip download {requirement} failed:\n{result.stderr.strip()[-2000:]}")
    if not path.exists():
        raise WheelFetchError(f"pip download {requirement} did not produce {wheel_name}:\n"
                              f"{result.stdout.strip()[-2000:]}")
    if not _matches(path, expected_sha256):
        raise WheelFetchError(f"{wheel_name}: sha256 {sha256_of(path)} differs from the recorded "
                              f"{expected_sha256}")
    return path


SIMPLE_INDEX = "https://pypi.org/simple/"


def _download_from_index(requirement: str, filename: str, path: Path) -> bool:
    """Fetch the file `filename` of `requirement`'s project straight from PyPI's simple index (its
    JSON form). For an sdist, `pip download` runs the project's setup.py to read its metadata, with
    whatever setuptools the environment has: mmcv 2.1.0's imports pkg_resources, which the
    setuptools that torch installs no longer ships. The file itself needs no build. False when the
    index cannot be read or does not list the file; pip is tried then."""
    project = re.sub(r"[-_.]+", "-", re.split(r"[=<>!~ ]", requirement, 1)[0]).lower()
    address = urllib.parse.urljoin(SIMPLE_INDEX, f"{project}/")
    request = urllib.request.Request(address, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            files = json.load(response).get("files", [])
        url = next((urllib.parse.urljoin(address, item["url"]) for item in files
                    if item.get("filename") == filename), None)
        if url is None:
            return False
        partial = path.with_name(path.name + ".part")
        with urllib.request.urlopen(url, timeout=600) as response, open(partial, "wb") as handle:
            for block in iter(lambda: response.read(1 << 20), b""):
                handle.write(block)
        os.replace(partial, path)
        return True
    except (OSError, ValueError, KeyError, TypeError):
        return False


def _matches(path: Path, expected_sha256: Optional[str]) -> bool:
    return expected_sha256 is None or sha256_of(path) == expected_sha256
