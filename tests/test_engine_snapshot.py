"""The engine snapshot (engine/snapshot.py): a later process loads the engine an earlier one built,
and gets the same findings, or builds its own whenever the snapshot is not one it may trust."""
from __future__ import annotations

import json
import os
import pickle
from pathlib import Path

import pytest
from conftest import FIXTURES, fixture_files, run_tool

from npu_lint.config.settings import Settings
from npu_lint.core import kept
from npu_lint.engine import snapshot
from npu_lint.knowledge import fingerprint

# Fixture sets and the options that check them, as tests/test_fixtures.py runs them.
SETS = {
    "manual": (fixture_files(), []),
    "auto": (sorted((FIXTURES / "auto").glob("*.py")), ["--strategy", "auto"]),
    "every rule": (fixture_files(), ["--select", "ALL"]),
}


def _check(cache: Path, paths, options) -> tuple[list[dict], str]:
    env_before = os.environ.get("NPU_LINT_CACHE")
    os.environ["NPU_LINT_CACHE"] = str(cache)
    try:
        proc = run_tool("npu_lint", "check", "--no-cache", "--jobs", "1", "--format", "json", *options,
                        *map(str, paths))
    finally:
        if env_before is None:
            del os.environ["NPU_LINT_CACHE"]
        else:
            os.environ["NPU_LINT_CACHE"] = env_before
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout), proc.stderr


def _snapshots(cache: Path) -> list[Path]:
    return sorted((cache / "engines").glob("*.pickle"))


@pytest.mark.parametrize("name", SETS)
def test_a_loaded_engine_finds_what_a_built_one_finds(tmp_path, name):
    paths, options = SETS[name]
    built, _ = _check(tmp_path, paths, options)
    assert len(_snapshots(tmp_path)) == 1, "the first process keeps the engine it built"
    stamp = _snapshots(tmp_path)[0].stat().st_mtime_ns
    loaded, _ = _check(tmp_path, paths, options)
    assert _snapshots(tmp_path)[0].stat().st_mtime_ns == stamp, "the second process loads it"
    assert loaded == built and built


def test_each_setting_has_its_own_snapshot(tmp_path):
    _check(tmp_path, [FIXTURES / "nccl.py"], [])
    _check(tmp_path, [FIXTURES / "nccl.py"], ["--strategy", "auto"])
    assert len(_snapshots(tmp_path)) == 2


def test_extend_rules_text_is_part_of_the_name(tmp_path, monkeypatch):
    monkeypatch.setenv("NPU_LINT_CACHE", str(tmp_path))
    extra = tmp_path / "extra.yaml"
    extra.write_text("rules: []\n", encoding="utf-8")
    settings = Settings(extend_rules=(str(extra),))
    before = snapshot.snapshot_path(settings, True)
    extra.write_text("rules: []\n# edited\n", encoding="utf-8")
    assert snapshot.snapshot_path(settings, True) != before
    assert snapshot.snapshot_path(Settings(), True) != snapshot.snapshot_path(Settings(), False)


@pytest.mark.parametrize("damage", [b"", b"not a pickle", pickle.dumps("another value")[:-3]])
def test_a_damaged_snapshot_is_rebuilt(tmp_path, damage):
    paths = [FIXTURES / "torch_cuda_api.py"]
    built, _ = _check(tmp_path, paths, [])
    (kept_file,) = _snapshots(tmp_path)
    kept_file.write_bytes(damage)
    again, stderr = _check(tmp_path, paths, [])
    assert again == built and "Traceback" not in stderr
    assert kept_file.read_bytes() != damage, "rebuilt and kept again"


def test_a_snapshot_others_may_write_is_not_loaded(tmp_path):
    path = tmp_path / "engines" / "x.pickle"
    snapshot.store(path, ("a value", {}))
    assert snapshot.load(path) == ("a value", {})
    assert path.stat().st_mode & 0o077 == 0, "written for this user only"
    path.chmod(0o666)
    assert snapshot.load(path) is None
    assert snapshot.load(tmp_path / "missing.pickle") is None


def test_what_pickle_cannot_hold_is_not_kept(tmp_path):
    path = tmp_path / "engines" / "x.pickle"
    snapshot.store(path, lambda: None)
    assert not path.exists()


def test_an_unwritable_cache_still_checks(tmp_path):
    (tmp_path / "engines").write_text("a file where the folder would be")
    found, stderr = _check(tmp_path, [FIXTURES / "nccl.py"], [])
    assert found and "Traceback" not in stderr


def test_the_stamp_follows_the_files(tmp_path, monkeypatch):
    code = tmp_path / "module.py"
    code.write_text("x = 1\n")
    monkeypatch.setattr(fingerprint, "_package_files", lambda: [("module.py", str(code))])
    before = fingerprint.package_stamp.__wrapped__()
    code.write_text("x = 22\n")
    assert fingerprint.package_stamp.__wrapped__() != before
    assert fingerprint.package_fingerprint.__wrapped__() != fingerprint.package_stamp.__wrapped__()


def test_kept_values_are_restored_without_replacing_this_process_own(monkeypatch):
    monkeypatch.setattr(kept, "_VALUES", {})
    monkeypatch.setattr(kept, "_FUNCTIONS", [])
    calls = []

    @kept.kept
    def table():
        calls.append(1)
        return {"built": "here"}

    kept.restore({f"{__name__}.test_kept_values_are_restored_without_replacing_this_process_own.<locals>.table":
                  {"built": "elsewhere"}})
    assert table() == {"built": "elsewhere"} and not calls
    table.cache_clear()
    assert table() == {"built": "here"} and calls == [1]
    kept.restore({next(iter(kept._VALUES)): {"built": "elsewhere"}})
    assert table() == {"built": "here"}, "a value this process computed stays"
    assert kept.every_value() == {next(iter(kept._VALUES)): {"built": "here"}}


def test_no_home_folder_still_builds(monkeypatch):
    from npu_lint.engine import engine

    def no_home(*_args):
        raise RuntimeError("Could not determine home directory")

    monkeypatch.setattr(snapshot, "snapshot_path", no_home)
    built = engine._kept_or_built(Settings(select=("NPU101",)), True)
    assert [rule.code for rule in built.rules] == ["NPU101"]
