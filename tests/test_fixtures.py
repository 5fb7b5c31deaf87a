"""Every fixture through every front end: pylint, flake8 and `npu-lint check` agree
with the `# expect:` comments, and so with each other."""
from __future__ import annotations

import collections
import re

import pytest
from conftest import FIXTURES, expected_findings, fixture_files, npu_lint_json, run_tool

from npu_lint.knowledge.loader import shipped_rules

SYMBOL_TO_CODE = {rule.name: rule.code for rule in shipped_rules()}
PYLINT_LINE = re.compile(r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+):(?P<symbol>[\w-]+)$")
FLAKE8_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>NPU\d{3}) ")


def _by_file(rows) -> dict[str, collections.Counter]:
    """{file name: Counter((line, code))}, and (line, column, code) under "columns"."""
    found: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for path, line, column, code in rows:
        name = path.replace("\\", "/").rsplit("/", 1)[-1]
        found[name][(line, code)] += 1
        found["columns"][(name, line, column, code)] += 1
    return found


# Fixture sets: the files, and the option each front end takes for them. The advice rules are
# off by default: tests/fixtures/advice/pyproject.toml selects them, and all three front ends
# read that file, as they would a user's configuration.
SETS = {
    "manual": (fixture_files(), []),
    "auto": (sorted((FIXTURES / "auto").glob("*.py")), ["--strategy", "auto"]),
    # A project linted file by file: its setup.cfg names the console script, so NPU120 lands on the
    # entry modules only, whichever front end hands over the single file.
    "project": (sorted((FIXTURES / "project").rglob("*.py")), []),
    "advice": (sorted((FIXTURES / "advice").glob("*.py")), []),
    # A package whose modules get torch only through `from .torch_imports import *` (fastai).
    "star_imports": (sorted((FIXTURES / "star_imports").rglob("*.py")), []),
    # The oldest target, where some integer device indices still mean CUDA (NPU112).
    "torch_npu_2.1": (sorted((FIXTURES / "torch_npu_2_1").glob("*.py")), ["--target-torch-npu", "2.1"]),
    # Off-by-default NPU5xx: the folder's pyproject.toml selects them for all three front ends.
    "affinity": (sorted((FIXTURES / "affinity").glob("*.py")), []),
}
OFF_BY_DEFAULT_WITH_FIXTURES = ("NPU5", "NPU6", "NPU7")


@pytest.fixture(scope="module", params=sorted(SETS))
def fixture_set(request):
    return request.param


@pytest.fixture(scope="module")
def cli_results(fixture_set):
    files, flags = SETS[fixture_set]
    items = npu_lint_json(files, *flags)
    return _by_file((item["filename"], item["location"]["row"], item["location"]["column"], item["code"]) for item in items)


@pytest.fixture(scope="module")
def flake8_results(fixture_set):
    files, flags = SETS[fixture_set]
    proc = run_tool("flake8", "--select", "NPU", *flags, *map(str, files))
    assert proc.returncode in (0, 1), proc.stderr
    rows = []
    for line in proc.stdout.splitlines():
        match = FLAKE8_LINE.match(line)
        assert match, f"unexpected flake8 output: {line}"
        rows.append((match["path"], int(match["line"]), int(match["col"]), match["code"]))
    return _by_file(rows)


@pytest.fixture(scope="module")
def pylint_results(fixture_set):
    files, flags = SETS[fixture_set]
    checkers = sorted({f"npu-lint-{rule.family.lower()}" for rule in shipped_rules()})
    proc = run_tool(
        "pylint", "--load-plugins", "npu_lint", "--disable", "all", "--enable", ",".join(checkers),
        "--msg-template", "{path}:{line}:{column}:{symbol}", "--score", "n", "--persistent", "n",
        *flags, *map(str, files),
    )
    # pylint's exit status is a bit mask of message categories; 32 is a usage error.
    assert proc.returncode < 32 and "Traceback" not in proc.stderr, proc.stderr
    rows = []
    for line in proc.stdout.splitlines():
        if line.startswith("*****"):
            continue
        match = PYLINT_LINE.match(line)
        assert match, f"unexpected pylint output: {line}"
        # pylint prints 0-based columns
        rows.append((match["path"], int(match["line"]), int(match["col"]) + 1, SYMBOL_TO_CODE[match["symbol"]]))
    return _by_file(rows)


FIXTURE_NAMES = [path.name for path in fixture_files()]


def _check_set(results, fixture_set):
    files, _flags = SETS[fixture_set]
    for path in files:
        assert results.get(path.name, collections.Counter()) == expected_findings(path), path.name


def test_cli_matches_expectations(cli_results, fixture_set):
    _check_set(cli_results, fixture_set)


def test_flake8_matches_expectations(flake8_results, fixture_set):
    _check_set(flake8_results, fixture_set)


def test_pylint_matches_expectations(pylint_results, fixture_set):
    _check_set(pylint_results, fixture_set)


def test_front_ends_agree_on_columns(cli_results, flake8_results, pylint_results):
    assert cli_results["columns"] == flake8_results["columns"] == pylint_results["columns"]


def test_every_rule_has_a_fixture_line():
    files = [path for files, _ in SETS.values() for path in files]
    covered = {code for path in files for (_line, code) in expected_findings(path)}
    missing = sorted(rule.code for rule in shipped_rules()
                     if (rule.default_enabled or rule.code.startswith(OFF_BY_DEFAULT_WITH_FIXTURES))
                     and rule.code not in covered)
    assert not missing, f"rules without a fixture line: {missing}"


def test_fixture_names_a_family_each():
    assert len(FIXTURE_NAMES) >= 5


# What the 2.1 fixtures expect on the newest target instead: None is quiet.
# NPU117 fixes to "npugraphs" (2.6.0 on); the 2.1 set's NPU102 lines name what later releases have;
# torch 2.13 on forks the accelerator's generators (NPU126).
ON_THE_NEWEST_TARGET = {"NPU112": None, "NPU118": "NPU117", "NPU102": "NPU101", "NPU126": None}


def test_the_2_1_fixtures_on_the_newest_target():
    """The 2.1 fixtures on the default (newest) target: every NPU112 line is quiet, NPU118's lines
    are NPU117's, the rest is the same."""
    files, _flags = SETS["torch_npu_2.1"]
    found = _by_file((item["filename"], item["location"]["row"], item["location"]["column"], item["code"])
                     for item in npu_lint_json(files))
    for path in files:
        expected = collections.Counter()
        for (line, code), n in expected_findings(path).items():
            code = ON_THE_NEWEST_TARGET.get(code, code)
            if code is not None:
                expected[(line, code)] += n
        assert found.get(path.name, collections.Counter()) == expected, path.name
