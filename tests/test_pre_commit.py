"""The pre-commit hooks of .pre-commit-hooks.yaml, run by the real `pre-commit`.

The slow tests install the hook environment from a snapshot of this working
tree (tracked and untracked files, as a one-commit git repository), so they
test what is on disk, committed or not. Installing it needs PyPI; the
environment is kept under ~/.cache/npu-lint/pre-commit (PRE_COMMIT_HOME) and
reused while the tree does not change. `try-repo` always builds its own
throwaway environment, so it runs once.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, run_tool

GPU = 'import torch\nimport torch_npu\ntorch.cuda.synchronize()\nx = torch.ones(2, device="cuda")\n'
FIXED = 'import torch\nimport torch_npu\ntorch.npu.synchronize()\nx = torch.ones(2, device="npu")\n'
CACHE = Path.home() / ".cache" / "npu-lint" / "pre-commit"
FIXED_DATE = "2000-01-01T00:00:00+0000"


def test_no_paths_is_nothing_to_do(tmp_path):
    """If pre-commit (`always_run: true`) ever calls a hook with no files."""
    for command in ("check", "fix"):
        proc = run_tool("npu_lint", command, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == "" and "nothing to do" in proc.stderr


# ------------------------------------------------------------ the real pre-commit

def _git_env(tmp: Path) -> dict:
    """git as on a fresh machine: no global or system configuration, fixed identity."""
    empty = tmp / "gitconfig"
    empty.touch()
    return dict(
        os.environ, GIT_CONFIG_GLOBAL=str(empty), GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="npu-lint tests", GIT_AUTHOR_EMAIL="tests@npu-lint.invalid",
        GIT_COMMITTER_NAME="npu-lint tests", GIT_COMMITTER_EMAIL="tests@npu-lint.invalid",
        PRE_COMMIT_HOME=str(CACHE / "home"), PRE_COMMIT_COLOR="never", PYTHONIOENCODING="utf-8",
    )


def _run(args, cwd: Path, env: dict, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _pre_commit(*args: str, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    return _run([sys.executable, "-m", "pre_commit", *args], cwd, env)


def _findings(output: str) -> list[str]:
    """`line:column: code` of each finding npu-lint reported for train.py, whatever the text format."""
    return re.findall(r"train\.py:(\d+:\d+: NPU\d{3})\b", output)


def _git(*args: str, cwd: Path, env: dict) -> str:
    proc = _run(["git", *args], cwd, env, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def hooks_repo(tmp_path_factory) -> tuple[Path, str, dict]:
    """This working tree as a one-commit repository (same tree, same commit: a cache hit)."""
    pytest.importorskip("pre_commit")
    env = _git_env(tmp_path_factory.mktemp("git"))
    snapshot = CACHE / "npu-lint-snapshot"
    shutil.rmtree(snapshot, ignore_errors=True)
    snapshot.mkdir(parents=True)
    listed = _git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=REPO, env=env)
    for name in filter(None, listed.split("\0")):
        source = REPO / name
        if source.is_file():  # deleted but not yet committed: leave it out, as the tree has it
            (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, snapshot / name)
    dated = dict(env, GIT_AUTHOR_DATE=FIXED_DATE, GIT_COMMITTER_DATE=FIXED_DATE)
    _git("init", "-q", cwd=snapshot, env=dated)
    _git("add", "-A", cwd=snapshot, env=dated)
    _git("commit", "-q", "--no-verify", "-m", "npu-lint working tree", cwd=snapshot, env=dated)
    rev = _git("rev-parse", "HEAD", cwd=snapshot, env=env).strip()
    # Drop the environments of older snapshots whose configs (in pytest's
    # rotating temporary folders) are gone, so the cache stays small.
    _pre_commit("gc", cwd=snapshot, env=env)
    return snapshot, rev, env


def _config(repo: Path, rev: str, hooks=("npu-lint", "npu-lint-fix")) -> str:
    lines = ["repos:", f"  - repo: {repo}", f"    rev: {rev}", "    hooks:"]
    lines += [f"      - id: {hook}" for hook in hooks]
    return "\n".join(lines) + "\n"


@pytest.fixture
def project(tmp_path, hooks_repo) -> tuple[Path, dict]:
    """A user's repository using the hooks, with a GPU script and a README (not yet staged)."""
    snapshot, rev, env = hooks_repo
    work = tmp_path / "project"
    work.mkdir()
    _git("init", "-q", cwd=work, env=env)
    (work / "train.py").write_text(GPU, encoding="utf-8")
    (work / "README.md").write_text("# a project\n", encoding="utf-8")
    (work / ".pre-commit-config.yaml").write_text(_config(snapshot, rev), encoding="utf-8")
    _git("add", ".pre-commit-config.yaml", cwd=work, env=env)
    _git("commit", "-q", "--no-verify", "-m", "config", cwd=work, env=env)
    return work, env


def test_manifest_is_valid():
    pytest.importorskip("pre_commit")
    proc = _run([sys.executable, "-m", "pre_commit", "validate-manifest", ".pre-commit-hooks.yaml"], REPO, dict(os.environ))
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.slow
def test_try_repo_runs_both_hooks(project, hooks_repo):
    work, env = project
    snapshot, _, _ = hooks_repo
    _git("add", "train.py", "README.md", cwd=work, env=env)  # --all-files: the files git tracks
    proc = _pre_commit("try-repo", str(snapshot), "--all-files", cwd=work, env=env)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert _findings(out) == ["3:1: NPU101", "4:26: NPU110"]
    assert "files were modified by this hook" in out  # npu-lint-fix, which ran second
    assert (work / "train.py").read_text(encoding="utf-8") == FIXED


@pytest.mark.slow
def test_check_hook_fails_with_the_findings(project):
    work, env = project
    _git("add", "train.py", "README.md", cwd=work, env=env)  # --all-files: the files git tracks
    for selection in (["--files", "train.py"], ["--all-files"]):
        proc = _pre_commit("run", "npu-lint", *selection, cwd=work, env=env)
        out = proc.stdout + proc.stderr
        assert proc.returncode == 1, out
        assert "npu-lint" in out and "Failed" in out
        assert _findings(out) == ["3:1: NPU101", "4:26: NPU110"]
        assert "README" not in out
    assert (work / "train.py").read_text(encoding="utf-8") == GPU, "the check hook changes nothing"


@pytest.mark.slow
def test_fix_hook_rewrites_and_fails_then_check_passes(project):
    work, env = project
    # pre-commit tells a hook changed a file from git's diff: the file is tracked, as in a commit.
    _git("add", "train.py", cwd=work, env=env)
    proc = _pre_commit("run", "npu-lint-fix", "--files", "train.py", cwd=work, env=env)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "files were modified by this hook" in out
    assert (work / "train.py").read_text(encoding="utf-8") == FIXED
    again = _pre_commit("run", "npu-lint-fix", "--files", "train.py", cwd=work, env=env)
    assert again.returncode == 0, again.stdout + again.stderr
    check = _pre_commit("run", "npu-lint", "--files", "train.py", cwd=work, env=env)
    assert check.returncode == 0, check.stdout + check.stderr


def test_fix_hook_applies_only_safe_fixes_whatever_the_configuration():
    import yaml

    hooks = {hook["id"]: hook for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    assert hooks["npu-lint-fix"]["entry"].split()[-1] == "--no-unsafe-fixes"


@pytest.mark.slow
def test_fix_hook_keeps_unsafe_fixes_off_when_the_project_turns_them_on(project):
    work, env = project
    (work / "pyproject.toml").write_text("[tool.npu-lint]\nunsafe-fixes = true\n", encoding="utf-8")
    (work / "train.py").write_text(GPU + 'DEFAULT_DEVICE = "cuda"\n', encoding="utf-8")
    _git("add", "train.py", "pyproject.toml", cwd=work, env=env)
    proc = _pre_commit("run", "npu-lint-fix", "--files", "train.py", cwd=work, env=env)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    # The safe fixes are applied; NPU111 (unsafe: the string may not be a device) stays for a person.
    assert (work / "train.py").read_text(encoding="utf-8") == FIXED + 'DEFAULT_DEVICE = "cuda"\n'
    assert _findings(proc.stdout + proc.stderr) == ["5:18: NPU111"]


@pytest.mark.slow
def test_git_commit_through_the_installed_hook(project):
    """As a user meets it: `pre-commit install`, then `git commit`."""
    work, env = project
    proc = _pre_commit("install", cwd=work, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # Only a README staged: neither hook is called, the commit goes through.
    _git("add", "README.md", cwd=work, env=env)
    commit = _run(["git", "commit", "-m", "readme"], work, env)
    out = commit.stdout + commit.stderr
    assert commit.returncode == 0, out
    assert "(no files to check)" in out and "Skipped" in out and "NPU" not in out
    # The GPU script staged: the commit is refused with the findings.
    _git("add", "train.py", cwd=work, env=env)
    commit = _run(["git", "commit", "-m", "train"], work, env)
    out = commit.stdout + commit.stderr
    assert commit.returncode != 0, out
    assert _findings(out) == ["3:1: NPU101", "4:26: NPU110"] and "files were modified by this hook" in out
    assert _git("log", "--format=%s", cwd=work, env=env).split() == ["readme", "config"]
    # The fix hook rewrote the file; staging its result lets the commit through.
    assert (work / "train.py").read_text(encoding="utf-8") == FIXED
    _git("add", "train.py", cwd=work, env=env)
    commit = _run(["git", "commit", "-m", "train"], work, env)
    assert commit.returncode == 0, commit.stdout + commit.stderr
