"""Which files a folder argument brings in: git's ignore rules, links, whatever the path's spelling."""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from npu_lint.run.discovery import python_files

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _repo(tmp_path):
    repo = tmp_path / "repo"
    (repo / "pkg" / "generated").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / ".gitignore").write_text("generated/\nscratch.py\n", encoding="utf-8")
    for name in ("pkg/a.py", "pkg/generated/b.py", "pkg/scratch.py", "top.py"):
        (repo / name).write_text("import torch\n", encoding="utf-8")
    return repo


@pytest.mark.parametrize("spelling", ["repo", "repo/", "./repo", "absolute"])
def test_git_ignored_files_and_folders_are_left_out(tmp_path, monkeypatch, spelling):
    repo = _repo(tmp_path)
    monkeypatch.chdir(tmp_path)
    path = str(repo) if spelling == "absolute" else spelling
    found = {os.path.relpath(f, path).replace(os.sep, "/") for f in python_files([path])}
    assert found == {"pkg/a.py", "top.py"}


def test_a_link_to_a_folder_of_the_repo_is_judged_by_its_real_path(tmp_path, monkeypatch):
    repo = _repo(tmp_path)
    link = tmp_path / "link"
    try:
        link.symlink_to(repo, target_is_directory=True)
    except OSError:
        pytest.skip("no symbolic links here")
    monkeypatch.chdir(tmp_path)
    found = {os.path.relpath(f, "link").replace(os.sep, "/") for f in python_files(["link"])}
    assert found == {"pkg/a.py", "top.py"}
