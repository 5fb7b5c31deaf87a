"""Shared helpers: fixture expectations and running the real front ends."""
from __future__ import annotations

import collections
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
SHARED = REPO.parent / "shared"
# A warm process (`npu-lint daemon start`) a developer left running answers as a cold run would,
# but the tests check the code of this checkout: only tests/test_warm_daemon.py asks one.
os.environ["NPU_LINT_DAEMON"] = "off"

EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>(NPU\d{3}\s*)+)$")


def fixture_files() -> list[Path]:
    return sorted(FIXTURES.glob("*.py"))


def expected_findings(path: Path) -> collections.Counter:
    """Counter of (line, code) from the `# expect:` comments of a fixture."""
    expected = collections.Counter()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = EXPECT.search(line)
        if match:
            for code in match.group("codes").split():
                expected[(number, code)] += 1
    return expected


def run_tool(*args: str, cwd: Path | None = None, input: str | None = None) -> subprocess.CompletedProcess:
    """Run `python -m <tool> ...` with this interpreter, as a user would from a shell."""
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=cwd or REPO, capture_output=True, text=True,
        env=env, input=input, timeout=600,
    )


def npu_lint_json(paths: list[Path], *extra: str) -> list[dict]:
    proc = run_tool("npu_lint", "check", "--format", "json", *extra, *map(str, paths))
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def rewrite_later(path: Path, text: str) -> None:
    """Write `text` to `path` and date it a second later, so that a check keyed by the file's
    modification time sees the change even on a file system with coarse timestamps."""
    path.write_text(text)
    stamp = os.stat(path).st_mtime_ns + 1_000_000_000
    os.utime(path, ns=(stamp, stamp))


def count_in_process(capsys, code: str, project: Path, cache: Path) -> int:
    """How many `code` findings `npu-lint check` (in this process, with this result cache) reports."""
    from npu_lint.frontends import cli

    cli.main(["check", "--format", "json", "--exit-zero", "--cache-dir", str(cache), str(project)])
    return sum(item["code"] == code for item in json.loads(capsys.readouterr().out))


def shared_file(*parts: str) -> Path:
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"needs ../shared/{'/'.join(parts)} beside the repository (not in a plain clone)")
    return path


def pytest_addoption(parser):
    parser.addoption("--run-network", action="store_true",
                     help="run tests that download wheels or sdists from PyPI (cached)")


def pytest_collection_modifyitems(config, items):
    import importlib.util

    skip_network = pytest.mark.skip(reason="downloads from PyPI; run with --run-network")
    skip_torch = pytest.mark.skip(reason="needs torch installed (.ci/run installs torch 2.13 CPU)")
    has_torch = importlib.util.find_spec("torch") is not None
    for item in items:
        if "network" in item.keywords and not config.getoption("--run-network"):
            item.add_marker(skip_network)
        if "torch" in item.keywords and not has_torch:
            item.add_marker(skip_torch)
