"""Where the shipped rules and data are read from: an installed package's folder, else the checkout's."""
from __future__ import annotations

import sys
from pathlib import Path

from npu_lint.knowledge import location

CHECKOUT = Path(__file__).resolve().parents[1]


def test_the_checkout_rules_are_read_where_the_package_has_none():
    assert {name for name, _text in location.rule_files()} == {p.name for p in (CHECKOUT / "rules").glob("*.yaml")}


def test_an_installed_folder_is_read_as_it_is(tmp_path, monkeypatch):
    package = tmp_path / "shipped_here"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "one.yaml").write_text("rules: []\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert location._folder("shipped_here", "rules") == package
    (package / "one.yaml").unlink()  # a package without data: the checkout's folder
    assert location._folder("shipped_here", "rules") == CHECKOUT / "rules"
    assert location._folder("not_installed_anywhere", "data") == CHECKOUT / "data"
    sys.modules.pop("shipped_here", None)
