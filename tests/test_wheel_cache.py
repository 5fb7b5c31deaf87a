"""Fetching generator inputs: an sdist comes straight from the index, without a build.

`pip download` of an sdist runs its setup.py for metadata with the environment's setuptools; mmcv
2.1.0's imports pkg_resources, which the setuptools torch installs no longer has, so the library
summaries' check failed once torch was installed. These tests serve a fake index (no network).
"""
from __future__ import annotations

import hashlib
import io
import json
import subprocess

import pytest

from npu_lint.generate import wheel_cache

CONTENT = b"an sdist's bytes"
SHA256 = hashlib.sha256(CONTENT).hexdigest()


class _Response(io.BytesIO):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _fake_index(files):
    asked = []

    def urlopen(request, timeout=None):
        url = request if isinstance(request, str) else request.full_url
        asked.append(url)
        if url == "https://pypi.org/simple/demo-lib/":
            return _Response(json.dumps({"files": files}).encode())
        if url == "https://files.example/demo_lib-1.0.tar.gz":
            return _Response(CONTENT)
        raise OSError(f"unexpected {url}")
    return urlopen, asked


def _no_pip(*args, **kwargs):
    raise AssertionError("pip was run")


def test_an_sdist_is_fetched_from_the_index_without_pip(tmp_path, monkeypatch):
    urlopen, asked = _fake_index([{"filename": "demo_lib-1.0.tar.gz", "url": "https://files.example/demo_lib-1.0.tar.gz"}])
    monkeypatch.setattr(wheel_cache.urllib.request, "urlopen", urlopen)
    monkeypatch.setattr(subprocess, "run", _no_pip)
    path = wheel_cache.fetch_wheel("Demo_Lib==1.0", "demo_lib-1.0.tar.gz", SHA256, [], folder=tmp_path, sdist=True)
    assert path.read_bytes() == CONTENT
    assert asked[0] == "https://pypi.org/simple/demo-lib/"  # the project name normalized as PEP 503 says
    assert not list(tmp_path.glob("*.part"))


def test_a_file_the_index_does_not_list_falls_back_to_pip(tmp_path, monkeypatch):
    urlopen, _asked = _fake_index([{"filename": "demo_lib-2.0.tar.gz", "url": "https://files.example/x"}])
    monkeypatch.setattr(wheel_cache.urllib.request, "urlopen", urlopen)
    ran = []

    def pip(command, **kwargs):
        ran.append(command)
        (tmp_path / "demo_lib-1.0.tar.gz").write_bytes(CONTENT)
        return subprocess.CompletedProcess(command, 0, "", "")
    monkeypatch.setattr(subprocess, "run", pip)
    path = wheel_cache.fetch_wheel("demo-lib==1.0", "demo_lib-1.0.tar.gz", SHA256, [], folder=tmp_path, sdist=True)
    assert path.read_bytes() == CONTENT and ran and ran[0][2:4] == ["pip", "download"]


def test_a_fetched_file_with_another_sha256_is_refused(tmp_path, monkeypatch):
    urlopen, _asked = _fake_index([{"filename": "demo_lib-1.0.tar.gz", "url": "https://files.example/demo_lib-1.0.tar.gz"}])
    monkeypatch.setattr(wheel_cache.urllib.request, "urlopen", urlopen)
    monkeypatch.setattr(subprocess, "run", lambda command, **kwargs: subprocess.CompletedProcess(command, 0, "", ""))
    with pytest.raises(wheel_cache.WheelFetchError):
        wheel_cache.fetch_wheel("demo-lib==1.0", "demo_lib-1.0.tar.gz", "0" * 64, [], folder=tmp_path, sdist=True)
