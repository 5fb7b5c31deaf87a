"""The parsed-YAML cache is a shortcut only: the same values, and parsing whenever it fails."""
from __future__ import annotations

import os

import pytest

from npu_lint.knowledge import yaml_data
from npu_lint.knowledge.location import data_file

DATA = "fused_operators.yaml"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NPU_LINT_CACHE", str(tmp_path))
    return tmp_path / "data"


def cached_files(folder):
    return sorted(folder.glob("*.marshal")) if folder.exists() else []


def test_a_cached_load_gives_what_parsing_gives(cache):
    text = data_file(DATA)
    first = yaml_data.load_yaml(text)
    assert len(cached_files(cache)) == 1
    second = yaml_data.load_yaml(text)
    assert second == first == yaml_data._parse(text)
    assert second is not first  # callers own what they get


def test_changed_text_is_parsed_again(cache):
    text = data_file(DATA)
    yaml_data.load_yaml(text)
    changed = text + "\n# a comment that changes nothing\n"
    assert yaml_data.load_yaml(changed) == yaml_data._parse(text)
    assert len(cached_files(cache)) == 2


def test_a_corrupt_cache_file_is_parsed_and_rewritten(cache):
    text = data_file(DATA)
    yaml_data.load_yaml(text)
    [stored] = cached_files(cache)
    stored.write_bytes(b"\x00not marshal")
    assert yaml_data.load_yaml(text) == yaml_data._parse(text)
    assert stored.read_bytes() != b"\x00not marshal"


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes into read-only folders")
def test_an_unwritable_cache_folder_only_costs_time(cache):
    cache.mkdir(parents=True)
    cache.chmod(0o500)
    try:
        text = data_file(DATA)
        assert yaml_data.load_yaml(text) == yaml_data._parse(text)
        assert cached_files(cache) == []
    finally:
        cache.chmod(0o700)


def test_a_cache_path_that_is_a_file_only_costs_time(cache):
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("in the way")
    text = data_file(DATA)
    assert yaml_data.load_yaml(text) == yaml_data._parse(text)


def test_the_folder_keeps_a_bounded_number_of_files(cache, monkeypatch):
    monkeypatch.setattr(yaml_data, "MAX_CACHED_FILES", 3)
    base = data_file(DATA)
    for number in range(6):
        yaml_data.load_yaml(base + f"\n# edit {number}\n")
    assert len(cached_files(cache)) == 3


def test_short_texts_and_syntax_errors_are_not_kept(cache):
    assert yaml_data.load_yaml("a: 1") == {"a": 1}
    with pytest.raises(yaml_data.YAMLError):
        yaml_data.load_yaml("key: [unclosed\n" + "# padding\n" * 400)
    assert cached_files(cache) == []
