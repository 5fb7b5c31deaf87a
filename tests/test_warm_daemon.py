"""`npu-lint daemon`: a command answered by the warm process prints, writes and exits as a cold run.

Every command here runs as a user runs it (`python -m npu_lint ...`, a child process), once with
NPU_LINT_DAEMON=off and once asking the daemon; the daemon's own count of commands served shows
that the warm run did go through it.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO

pytestmark = pytest.mark.skipif(
    not (hasattr(os, "fork") and hasattr(os, "getuid")), reason="the warm process needs fork and Unix sockets")

FIX_CASES = REPO / "tests" / "fix_cases"


def _env(cache: Path, daemon: str = "") -> dict:
    env = dict(os.environ, NPU_LINT_CACHE=str(cache), PYTHONIOENCODING="utf-8")
    env.pop("NPU_LINT_DAEMON", None)
    if daemon:
        env["NPU_LINT_DAEMON"] = daemon
    return env


def _npu_lint(cache: Path, *args: str, daemon: str = "", cwd: Path = REPO, stdin: str | None = None):
    return subprocess.run([sys.executable, "-m", "npu_lint", *args], cwd=cwd, env=_env(cache, daemon),
                          capture_output=True, text=True, input=stdin, timeout=600)


def _status(cache: Path) -> dict:
    proc = _npu_lint(cache, "daemon", "status", "--json")
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def cache():
    """A cache folder of its own (short: a Unix socket's path is limited), with a daemon in it."""
    folder = Path(tempfile.mkdtemp(prefix="nl-"))
    started = _npu_lint(folder, "daemon", "start", "--idle-timeout", "300")
    assert started.returncode == 0, started.stderr
    assert "started" in started.stdout
    yield folder
    _npu_lint(folder, "daemon", "stop")
    shutil.rmtree(folder, ignore_errors=True)


def _same_as_cold(cache: Path, *args: str, cwd: Path = REPO, stdin: str | None = None):
    served = _status(cache)["served"]
    cold = _npu_lint(cache, *args, daemon="off", cwd=cwd, stdin=stdin)
    warm = _npu_lint(cache, *args, cwd=cwd, stdin=stdin)
    assert _status(cache)["served"] == served + 1, "the warm run did not go through the daemon"
    assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr), args
    return warm


FAMILIES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir() and p.name != "__pycache__")


@pytest.mark.parametrize("setting", [(), ("--select", "ALL"), ("--strategy", "auto")],
                         ids=["default", "every-rule", "auto"])
def test_every_fixture_family_as_a_cold_run(cache, setting):
    paths = [f"tests/fixtures/{family}" for family in FAMILIES]
    warm = _same_as_cold(cache, "check", "--no-cache", "--format", "json", *setting, *paths)
    assert warm.returncode == 1 and json.loads(warm.stdout)


@pytest.mark.parametrize("args", [
    ("check", "--no-cache", "--statistics", "docs/examples/train_gpu.py"),  # text report, summary, stderr
    ("check", "--no-cache", "--select", "XYZ", "docs/examples/train_gpu.py"),  # an error: exit 2
    ("check", "--no-cache", "no/such/file.py"),
    ("check",),  # no paths: nothing to do
    ("check", "--bogus"),  # argparse's usage and exit 2
    ("fix", "--diff", "--unsafe-fixes", "docs/examples/train_gpu.py"),
    ("rules",),
    ("explain", "NPU101"),
    ("--version",),
], ids=lambda args: " ".join(args))
def test_commands_answer_as_cold_runs(cache, args):
    if args[0] == "--version":
        cold = _npu_lint(cache, *args, daemon="off")
        assert _npu_lint(cache, *args).stdout == cold.stdout  # options before a command run here
        return
    _same_as_cold(cache, *args)


def test_fix_from_stdin(cache):
    text = (FIX_CASES / "amp.input.py").read_text(encoding="utf-8")
    warm = _same_as_cold(cache, "fix", "--unsafe-fixes", "-", stdin=text)
    assert warm.stdout != text


def test_fix_writes_the_same_files(cache, tmp_path):
    inputs = sorted(FIX_CASES.glob("*.input.py"))[:12]
    trees = {}
    for mode in ("off", ""):
        folder = tmp_path / (mode or "warm")
        folder.mkdir()
        for path in inputs:
            shutil.copy(path, folder / path.name)
        served = _status(cache)["served"]
        proc = _npu_lint(cache, "fix", "--unsafe-fixes", ".", daemon=mode, cwd=folder)
        assert proc.returncode in (0, 1), proc.stderr
        assert _status(cache)["served"] == served + (mode == ""), "fix went the wrong way"
        trees[mode] = ({p.name: p.read_bytes() for p in folder.iterdir()}, proc.stdout, proc.stderr)
    assert trees["off"] == trees[""]
    assert trees[""][0] != {p.name: p.read_bytes() for p in inputs}  # something was fixed


def test_status_and_key_are_stable(cache):
    status = _status(cache)
    assert status["running"] and status["pid"] > 0
    assert Path(status["socket"]).parent == cache / "daemon"
    assert oct(os.stat(cache / "daemon").st_mode & 0o777) == "0o700"
    assert oct(os.stat(status["socket"]).st_mode & 0o777) == "0o600"


def test_a_folder_others_may_enter_is_not_trusted(cache):
    folder = cache / "daemon"
    served = _status(cache)["served"]
    os.chmod(folder, 0o755)
    try:
        proc = _npu_lint(cache, "check", "--no-cache", "docs/examples/train_gpu.py")
        assert proc.returncode == 1 and "NPU" in proc.stdout  # checked here, cold
    finally:
        os.chmod(folder, 0o700)
    assert _status(cache)["served"] == served


def test_interrupt_reaches_the_command(cache, tmp_path):
    """Ctrl-C on the command stops the child doing its work: exit 130, as a cold run would."""
    big = tmp_path / "many"
    big.mkdir()
    for index in range(400):
        shutil.copy(FIXTURES / "torch_cuda_api.py", big / f"f{index}.py")
    process = subprocess.Popen([sys.executable, "-m", "npu_lint", "check", "--no-cache", "--jobs", "1", str(big)],
                               env=_env(cache), stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO)
    deadline = time.monotonic() + 60
    while _status(cache)["running_commands"] == 0 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    process.communicate(timeout=120)
    assert process.returncode == 130


def test_a_dead_daemon_means_a_cold_run():
    folder = Path(tempfile.mkdtemp(prefix="nl-"))
    try:
        assert _npu_lint(folder, "daemon", "start").returncode == 0
        pid = _status(folder)["pid"]
        os.kill(pid, signal.SIGKILL)
        for _ in range(100):
            try:
                os.kill(pid, 0)
            except OSError:
                break
            time.sleep(0.05)
        assert list((folder / "daemon").glob("*.sock"))  # the socket stays behind
        cold = _npu_lint(folder, "check", "--no-cache", "docs/examples/train_gpu.py", daemon="off")
        warm = _npu_lint(folder, "check", "--no-cache", "docs/examples/train_gpu.py")
        assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)
        assert _npu_lint(folder, "daemon", "status").returncode == 1
        assert _npu_lint(folder, "daemon", "start").returncode == 0  # a new one takes the name
        assert _status(folder)["pid"] != pid
    finally:
        _npu_lint(folder, "daemon", "stop")
        shutil.rmtree(folder, ignore_errors=True)


def test_stop_removes_the_socket_and_a_second_start_is_refused_politely():
    folder = Path(tempfile.mkdtemp(prefix="nl-"))
    try:
        assert _npu_lint(folder, "daemon", "start").returncode == 0
        again = _npu_lint(folder, "daemon", "start")
        assert again.returncode == 0 and "already running" in again.stdout
        stopped = _npu_lint(folder, "daemon", "stop")
        assert "stopped" in stopped.stdout
        for _ in range(100):
            if not list((folder / "daemon").glob("*.sock")):
                break
            time.sleep(0.05)
        assert not list((folder / "daemon").glob("*.sock"))
        status = _npu_lint(folder, "daemon", "status")
        assert status.returncode == 1 and "not running" in status.stdout
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_the_command_asks_only_when_a_daemon_could_answer(monkeypatch):
    from npu_lint.frontends import warm_client

    monkeypatch.delenv("NPU_LINT_DAEMON", raising=False)
    assert warm_client.wanted(["check", "x.py"])
    monkeypatch.setenv("NPU_LINT_DAEMON", "off")
    assert not warm_client.wanted(["check", "x.py"])
    monkeypatch.delenv("NPU_LINT_DAEMON")
    assert not warm_client.wanted(["server"]) and not warm_client.wanted(["daemon", "start"])
    assert not warm_client.wanted([])
    assert warm_client.key() == warm_client.key(fresh=True)


def test_a_caller_that_gives_up_before_go_runs_nothing(cache, tmp_path):
    """A caller that stops waiting for the child's pid runs the command itself: the child it
    leaves behind must not run it too (here: fix a file, which must stay as it was)."""
    from npu_lint.frontends import warm_client

    script = tmp_path / "train.py"
    original = (FIX_CASES / "amp.input.py").read_bytes()
    script.write_bytes(original)
    served = _status(cache)["served"]
    connection = warm_client.connect(_status(cache)["socket"])
    assert connection is not None
    with connection, open(os.devnull, "rb") as null_in, open(os.devnull, "wb") as null_out:
        message = warm_client.request(["fix", "--unsafe-fixes", str(script)])
        message["fds"] = [0, 1, 2]
        warm_client.send_message(connection, message, [null_in.fileno(), null_out.fileno(), null_out.fileno()])
        started = warm_client.read_line(connection.makefile("r", encoding="utf-8"))
        assert started and started["pid"] > 0
    deadline = time.monotonic() + 30
    while _status(cache)["running_commands"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _status(cache)["served"] == served + 1
    assert script.read_bytes() == original
