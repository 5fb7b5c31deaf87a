"""A record behaves as the dataclass it replaces: each case builds both from one class body."""
from __future__ import annotations

import dataclasses
import copy
import re
from pathlib import Path

import pytest

from npu_lint.core.records import record


def both(**options):
    """The same class body as a dataclass and as a record, with the same options."""
    def make(decorator):
        class Point:
            """A point."""
            x: int
            y: int = 0
            tags: list = dataclasses.field(default_factory=list)
            note: str = dataclasses.field(default="", compare=False)
        Point.__qualname__ = "Point"
        return decorator(**options)(Point)
    return make(dataclasses.dataclass), make(record)


@pytest.mark.parametrize("options", [{}, {"frozen": True}, {"frozen": True, "order": True},
                                     {"eq": False}])
def test_behaves_as_the_dataclass(options):
    dataclass_point, record_point = both(**options)
    for cls in (dataclass_point, record_point):
        assert [f.name for f in dataclasses.fields(cls)] == ["x", "y", "tags", "note"]
    pairs = [((1,), {}), ((1, 2), {}), ((), {"x": 3, "y": 4, "note": "n"}), ((1, 2, [5]), {})]
    made = [(dataclass_point(*args, **kwargs), record_point(*args, **kwargs))
            for args, kwargs in pairs]
    for expected, got in made:
        assert repr(got) == repr(expected)
        assert dataclasses.asdict(got) == dataclasses.asdict(expected)
        assert vars(got) == vars(expected)
        assert got.tags is not record_point(1).tags  # a new list per instance
        changed = dataclasses.replace(got, y=9)
        assert type(changed) is record_point and changed.y == 9 and changed.x == got.x
        assert vars(copy.deepcopy(got)) == vars(got)  # as the result cache copies findings
    for (expected_a, got_a) in made:
        for (expected_b, got_b) in made:
            assert (got_a == got_b) == (expected_a == expected_b)
            if options.get("order"):
                assert (got_a < got_b) == (expected_a < expected_b)
                assert (got_a >= got_b) == (expected_a >= expected_b)
    assert (record_point(1) == dataclass_point(1)) is False  # another class: never equal
    assert (record_point(1, note="a") == record_point(1, note="b")) == options.get("eq", True)
    hashable = dataclass_point.__hash__ is not None
    assert (record_point.__hash__ is not None) == hashable
    if hashable and options.get("frozen"):
        assert hash(record_point(1, 2, ())) == hash(dataclass_point(1, 2, ()))
        with pytest.raises(TypeError, match="unhashable type: 'list'"):
            hash(record_point(1))  # its list, as for the dataclass


def test_frozen_refuses_changes_as_the_dataclass_does():
    dataclass_point, record_point = both(frozen=True)
    for point in (dataclass_point(1), record_point(1)):
        with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'x'"):
            point.x = 2
        with pytest.raises(dataclasses.FrozenInstanceError, match="cannot delete field 'y'"):
            del point.y
        with pytest.raises(dataclasses.FrozenInstanceError):
            point.other = 1


@pytest.mark.parametrize("args, kwargs", [((), {}), ((1, 2, [], "", 5), {}),
                                          ((1,), {"x": 1}), ((1,), {"z": 1})])
def test_wrong_arguments_fail_as_for_the_dataclass(args, kwargs):
    for cls in both(frozen=True):
        with pytest.raises(TypeError):
            cls(*args, **kwargs)


def test_keeps_the_class_own_methods_and_runs_post_init():
    @record(frozen=True)
    class Span:
        start: int
        end: int
        length: int = dataclasses.field(init=False, default=0)

        def __post_init__(self):
            object.__setattr__(self, "length", self.end - self.start)

        def __repr__(self):
            return f"<{self.start}:{self.end}>"

    span = Span(2, 5)
    assert span.length == 3 and repr(span) == "<2:5>"
    assert Span(2, 5) == Span(2, 5) and len({Span(2, 5), Span(2, 5)}) == 1
    with pytest.raises(TypeError):
        Span(1, 2, 3)  # length is not an argument


def test_a_required_field_after_a_default_is_refused_at_definition():
    with pytest.raises(TypeError, match="non-default argument 'b'"):
        @record
        class Wrong:
            a: int = 0
            b: int


@pytest.mark.parametrize("decorator", [dataclasses.dataclass(frozen=True), record(frozen=True)])
def test_every_field_given_by_position_or_keyword(decorator):
    """The calls that pass every field (the quick way through a record's __init__)."""
    @decorator
    class Pair:
        left: int
        right: str = ""

    assert repr(Pair(1, "a")) == repr(Pair(right="a", left=1))
    assert repr(Pair(1, "a")).endswith("<locals>.Pair(left=1, right='a')")
    assert Pair(1, "a") == Pair(right="a", left=1) != Pair(1)
    with pytest.raises(TypeError):
        Pair(left=1, wrong="a")  # as many keywords as fields, one of them unknown
    with pytest.raises(TypeError):
        Pair(1, left=1)


@pytest.mark.parametrize("decorator", [dataclasses.dataclass(frozen=True, order=True),
                                       record(frozen=True, order=True)])
def test_one_field_and_no_field(decorator):
    @decorator
    class One:
        value: int

    @decorator
    class Empty:
        pass

    assert One(1) == One(1) < One(2) and hash(One(1)) == hash((1,))
    assert Empty() == Empty() <= Empty() and hash(Empty()) == hash(())


def test_npu_lint_modules_define_records_not_dataclasses():
    """A check's start-up imports these modules; generate/ runs only to rebuild the data."""
    package = Path(__file__).resolve().parents[1] / "npu_lint"
    offenders = [str(path.relative_to(package)) for path in package.rglob("*.py")
                 if "generate" not in path.relative_to(package).parts
                 and re.search(r"^@(dataclasses\.)?dataclass\b", path.read_text(encoding="utf-8"), re.MULTILINE)]
    assert not offenders, f"use npu_lint.core.records.record in {offenders}"
