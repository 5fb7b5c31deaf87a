"""npu-lint's quicker model of `builtins` is astroid's own: shared method classes, and each
class's members built when first read.

Each side runs in a fresh interpreter: astroid builds its model of builtins once per process.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

SUMMARY = r"""
import json, sys
import astroid
from astroid import nodes, raw_building

real = raw_building._add_dunder_class
if sys.argv[1] == "npu-lint":
    from npu_lint.engine.builtins_bootstrap import bootstrap_builtins
    bootstrap_builtins()
else:
    astroid.MANAGER.bootstrap()
builtins = astroid.MANAGER.astroid_cache["builtins"]
classes = [values[0] for values in builtins.locals.values() if isinstance(values[0], nodes.ClassDef)]
waiting = sorted(node.name for node in classes if "_npu_lint_members_to_build" in node.__dict__)
model = {}
for name, values in sorted(builtins.locals.items()):
    entry = model[name] = [type(values[0]).__name__]
    if isinstance(values[0], nodes.ClassDef):
        entry.append(values[0].qname())
        for member, found in sorted(values[0].locals.items()):
            attrs = getattr(found[0], "instance_attrs", {})
            kinds = [klass.name for klass in attrs.get("__class__", [])]
            where = found[0].qname() if isinstance(found[0], nodes.ClassDef) else ""
            entry.append([member, type(found[0]).__name__, kinds, where])
def inferred(source):
    try:
        return sorted(repr(value) for value in astroid.extract_node(source).infer())
    except astroid.InferenceError:
        return ["no answer"]
answers = []
for source in ('"a b".join', 'object', 'type.__base__', 'int.__class__', 'ValueError.__mro__', '"a b".upper()', '[].append', 'len("ab")', '{}.get("x", 1)',
               'str.join.__class__', 'int.from_bytes', 'ValueError("x").args', 'dict.fromkeys'):
    answers.append([source, inferred(source)])
print(json.dumps({"model": model, "answers": answers, "waiting": waiting,
                  "restored": raw_building._add_dunder_class is real}))
"""


def _summary(way: str) -> dict:
    process = subprocess.run([sys.executable, "-c", SUMMARY, way], capture_output=True, text=True, check=True)
    return json.loads(process.stdout)


def _without_addresses(answers: list) -> list:
    return [[source, [value.split(" at 0x")[0] for value in values]] for source, values in answers]


@pytest.fixture(scope="module")
def both() -> tuple[dict, dict]:
    return _summary("astroid"), _summary("npu-lint")


def test_the_model_has_the_same_names_members_and_method_classes(both):
    astroids, ours = both
    assert ours["model"] == astroids["model"]
    assert len(ours["model"]) > 100  # the real builtins, not an empty model


def test_inference_gives_the_same_answers(both):
    astroids, ours = both
    assert _without_addresses(ours["answers"]) == _without_addresses(astroids["answers"])


def test_a_class_s_members_wait_until_read(both):
    astroids, ours = both
    assert astroids["waiting"] == []
    assert "int" in ours["waiting"] and "ValueError" in ours["waiting"]  # built only above, when read
    assert len(ours["waiting"]) > 80


def test_astroid_is_left_as_it_was_for_everything_built_later(both):
    _astroids, ours = both
    assert ours["restored"]
