"""The engine's shortcuts around astroid's costs give the answers the long way gives: the text
scan never rules out a file the tree walk would let in, the tree walk's name facts are the ones
astroid's own tree gives, and `self.x = ...` lands where astroid's inference would put it."""
from __future__ import annotations

import ast
from pathlib import Path

import astroid
import pytest

from npu_lint.analysis.module_facts import _from_astroid
from npu_lint.analysis.prefilter import TextScan, Triggers, words_in_tree
from npu_lint.config.settings import Settings
from npu_lint.engine.engine import engine_for

HERE = Path(__file__).parent
SOURCES = sorted(p for folder in ("fixtures", "fix_cases") for p in (HERE / folder).rglob("*.py"))
EVERY_RULE = Settings(select=tuple(f"NPU{n}" for n in range(10)))


def _tree(path: Path) -> ast.Module | None:
    try:
        return ast.parse(path.read_text(encoding="utf-8"))
    except SyntaxError:
        return None


def _parsed_sources():
    """(path, ast tree) of every fixture and fix case that parses."""
    for path in SOURCES:
        tree = _tree(path)
        if tree is not None:
            yield path, tree


@pytest.mark.parametrize("settings", [Settings(), EVERY_RULE], ids=["default", "every-rule"])
def test_text_scan_never_rules_out_a_file_the_tree_lets_in(settings):
    engine = engine_for(settings)
    let_in = 0
    for path, tree in _parsed_sources():
        if engine.active_checks(words_in_tree(tree)):
            let_in += 1
            assert engine.could_fire(path.read_text(encoding="utf-8")), path
    assert let_in > 20  # the fixtures do reach the checks


@pytest.mark.parametrize("text, fires", [
    ("x = input()", False),                  # "npu" inside a word is not a string starting with it
    ("device = 'npu:0'", True),
    ("use_cuda = True  # not the token cuda", True),  # comments count: the scan is a superset
    ("use_cuda = True", False),
    ("model = nn.DataParallel(model)", True),
    ("DataParallel = None", False),          # a pair trigger needs both words
    ("f(device=1)", True),
    ("path = 'kernel.cu'", True),
    ("from torch import nn", False),
])
def test_text_scan_matches_whole_words_and_quoted_prefixes(text, fires):
    scan = TextScan(frozenset({"cuda", ("nn", "DataParallel"), "=device"}), frozenset({"^npu", ".cu"}))
    assert scan.could_fire(text) is fires


@pytest.mark.parametrize("text, fires", [
    ("def f(x, mode=None): return mode", False),   # a parameter, a name: never an attribute
    ("f(mode=1)", False),
    ('"""set the mode"""', False),
    ("y = x.mode", True),
    ("y = x . mode", True),
    ("y = (x.\n     mode)", True),
    ("y = (x.  # why\n     mode)", True),
    ("y = x.\\\n    mode", True),
    ("from a import mode", True),                   # stage 2 counts an import's names as attributes
    ("from a import b as mode", True),
    ("from a import (b,  # c)\n    mode)", True),
    ("from a import \\\n    (b, mode)", True),
    ("from a.mode import b", True),
    ("from .mode import b", True),
    ("import a.mode", True),
    ("import a, \\\n    mode", True),
    ("s = 'see x.mode'", True),                     # strings still count: the scan is a superset
])
def test_text_scan_wants_an_attribute_where_the_trigger_does(text, fires):
    scan = TextScan(frozenset({".mode", ("(mode", "@torch.mode")}), frozenset())
    assert scan.could_fire(text) is fires
    assert TextScan(frozenset({("torch", ".mode")}), frozenset()).could_fire("import torch\n" + text) is fires
    # and the tree walk, which the scan must never rule out
    words = words_in_tree(ast.parse(text))
    if Triggers(frozenset({".mode"})).could_fire(words):
        assert fires


@pytest.mark.parametrize("text, fires", [
    ("path = 'kernel.cu'", True),
    ('path = f"{name}.cu"', True),
    ("path = 'kernel.cu\\n'", True),                # `$` of the rule's regex also allows a final newline
    ('path = """kernel.cu\n"""', True),
    ("path = 'kernel.cuh'", True),
    ("y = x.cumsum(0).cuda()", False),             # ".cu" inside code is no string that ends so
    ("path = 'kernel.cu.o'", False),
    ("path = 'kernel.cuda'", False),
])
def test_text_scan_and_tree_walk_agree_on_strings_that_end_with_a_trigger(text, fires):
    string_triggers = frozenset({".cu$", ".cuh$"})
    assert TextScan(frozenset(), string_triggers).could_fire(text) is fires
    assert Triggers(frozenset(), string_triggers).could_fire(words_in_tree(ast.parse(text))) is fires


def test_tree_walk_words_match_the_fixtures_words():
    tree = ast.parse('"""doc"""\nimport torch.cuda as tc\nfrom a.b import c as d\nx = tc.f(device="cuda:0")\n')
    words = words_in_tree(tree)
    assert {"torch", "cuda", "tc", "a", "b", "c", "d", "x", "f", "=device"} <= words.identifiers
    assert words.strings == "\x00cuda:0\x00"  # the docstring is not a string trigger's business
    assert Triggers(frozenset({"=device"})).could_fire(words)
    assert not Triggers(frozenset({"device"})).could_fire(words)


def test_name_facts_from_ast_equal_those_from_astroid():
    for path, tree in _parsed_sources():
        module = astroid.parse(path.read_text(encoding="utf-8"))
        assert words_in_tree(tree).facts == _from_astroid(module), path


def test_self_attributes_are_recorded_from_the_syntax_as_astroid_would():
    """The engine's builder records `self.x = ...` without inferring `self` (engine.py); where it
    can tell from the syntax, it must put each attribute where astroid's inference puts it."""
    from astroid.builder import AstroidBuilder

    from npu_lint.engine.engine import build_module

    text = (
        "import torch\n\n\nclass Net(torch.nn.Module):\n"
        "    def __init__(self):\n        self.fc = torch.nn.Linear(2, 2)\n\n"
        "    @classmethod\n    def make(cls):\n        cls.count = 1\n\n"
        "    @staticmethod\n    def helper(other):\n        other.flag = 1\n\n\n"
        "class Slotted:\n    __slots__ = ('a',)\n\n    def __init__(self):\n        self.a = 1\n        self.b = 2\n"
    )
    ours = build_module(text, "syntax_self.py", ast.parse(text))
    theirs = AstroidBuilder(astroid.MANAGER, apply_transforms=False).string_build(text, "inferred_self")
    for name in ("Net", "Slotted"):
        mine, reference = ours.locals[name][0], theirs.locals[name][0]
        assert sorted(mine.instance_attrs) == sorted(reference.instance_attrs), name
        assert sorted(mine.locals) == sorted(reference.locals), name
    assert "fc" in ours.locals["Net"][0].instance_attrs and "count" in ours.locals["Net"][0].locals
    assert sorted(ours.locals["Slotted"][0].instance_attrs) == ["a"]


def test_operator_words_let_a_file_in_only_as_attributes_or_imports():
    """NPU301/303 resolve attribute chains, imported names and methods: a local `mode` or
    `scatter` names none of those. (NPU304 reads bare names too: `F.gelu(double)`.)"""
    engine = engine_for(Settings())
    operator_rules = {"NPU301", "NPU303"}

    def active(text):
        return {check.rule.code for check in engine.active_checks(words_in_tree(ast.parse(text)))}

    assert not active("mode = 'bilinear'\nscatter = None\nprint(mode, scatter)\n") & operator_rules
    assert "NPU301" in active("import torch\ny = x.scatter(1, index, 1.0, reduce='multiply')\n")
    assert "NPU301" in active("from torch import lgamma\ny = lgamma(x)\n")


@pytest.mark.parametrize("source, fires", [
    ("import torch\nx = torch.zeros(3)\nm = x.mode()\n", True),
    ("import torch\nclass A:\n    def f(self):\n        return self.mode == 'train'\n", False),  # read, not called
    ("import torch.nn.functional as F\ny = F.interpolate(x, scale_factor=2, mode='lanczos')\n", True),
    ("import torch.nn.functional as F\ny = F.interpolate(x, 2, None, 'lanczos')\n", True),  # by position
    ("import torch.nn.functional as F\ny = F.interpolate(x, scale_factor=2, mode='bilinear')\n", False),
    ("import torch.nn.functional as F\ny = F.interpolate(x, scale_factor=2)  # lanczos\n", False),
])
def test_call_only_checks_need_a_call_and_the_literal_that_reaches_the_fallback(source, fires):
    """NPU301 matches calls only, and `F.interpolate` falls back only in lanczos mode: a file
    without such a call never reaches astroid for it (measured: 45 of 376 real-code files that
    reached astroid with no finding, 12% of the bytes)."""
    engine = engine_for(Settings(select=("NPU301",)))
    assert bool(engine.active_checks(words_in_tree(ast.parse(source)))) is fires
    assert [f.code for f in engine.check_text(source).findings] == (["NPU301"] if fires else [])


@pytest.mark.parametrize("source, codes", [
    # fairseq's own TransformerEncoderLayer is not torch's (fairseq/models/transformer)
    ("import torch\nfrom fairseq.modules import TransformerEncoderLayer\nlayer = TransformerEncoderLayer(args)\n",
     set()),
    ("import torch.nn as nn\nlayer = nn.TransformerEncoderLayer(512, 8)\n", {"NPU301"}),
    ("from torch import nn\nlayer = nn.TransformerEncoderLayer(512, 8)\n", {"NPU301"}),
    # a star import may bind any name: the tree alone cannot tell
    ("from torch.nn import *\nfrom x import TransformerEncoderLayer\nlayer = TransformerEncoderLayer(1)\n", {"NPU301"}),
    # np.float64 is not torch's float64 (torch.lgamma itself falls back: NPU301)
    ("import numpy as np\nimport torch\ny = torch.lgamma(torch.from_numpy(x).to(np.float64))\n", {"NPU301"}),
    ("import torch.nn.functional as F\ny = F.mish(x.double())\n", {"NPU304"}),
    ("import torch as th\ny = th.nn.functional.mish(th.zeros(3, dtype=th.float64))\n", {"NPU304"}),
])
def test_names_outside_tensor_need_a_chain_the_imports_make_that_name(source, codes):
    engine = engine_for(Settings(select=("NPU301", "NPU304")))
    assert {c.rule.code for c in engine.active_checks(words_in_tree(ast.parse(source)))
            if not c.rides_along} == codes
    assert {f.code for f in engine.check_text(source).findings} <= codes  # nothing found is kept out


def test_comments_are_tokenized_only_when_one_may_be_on_a_finding_line():
    from npu_lint.core.findings import Confidence, Finding, Position, Severity
    from npu_lint.engine.suppression import Suppressions

    def at(line):
        return Finding("NPU101", "torch-cuda-api", "m", Position(line, 0), Position(line, 1), Severity.WARNING,
                       Confidence.HIGH)

    text = "a = 1  # noqa\nb = 2\nc = 3\n# pylint: disable-next=torch-cuda-api\nd = 4\n"
    assert Suppressions.may_suppress(text, [at(1)])
    assert Suppressions.may_suppress(text, [at(5)])  # disable-next on the line before
    assert not Suppressions.may_suppress(text, [at(3)])
    assert not Suppressions.may_suppress("a = 1\n", None)


_KERNEL = ('from torch.utils.cpp_extension import load\n'
           'ext = load("fused", sources=["fused.cpp", "fused_kernel.cu"])\n')


@pytest.mark.parametrize("code, source, fires", [
    # NPU121: Lightning's Trainer, not transformers' own (30 real-code files reached astroid for it)
    ("NPU121", "import pytorch_lightning as pl\ntrainer = pl.Trainer(gpus=1)\n", True),
    ("NPU121", "from lightning.pytorch import Trainer\ntrainer = Trainer(accelerator='auto')\n", True),
    ("NPU121", "from transformers import Trainer\ntrainer = Trainer(model=model, args=args)\n", False),
    ("NPU121", "import pytorch_lightning as pl\ntrainer = pl.Trainer.from_argparse_args(args, gpus=1)\n", True),
    ("NPU121", "from transformers import Trainer\ntrainer = Trainer.from_argparse_args(args, gpus=1)\n", False),
    ("NPU121", "import pytorch_lightning as pl\nclass Trainer: pass\ntrainer = Trainer()\n", False),
    # NPU405: the library imported, not a local of that name (`k2 = ...` in lxmert's utils.py)
    ("NPU405", "import k2\nloss = k2.ctc_loss(x)\n", True),
    ("NPU405", "import importlib\nk2 = importlib.import_module('k2')\nloss = k2.ctc_loss(x)\n", True),
    ("NPU405", "k1, k2 = 1, 2\nprint(k1 + k2)\n", False),
    # NPU413: a device test against "cpu", not any "cpu" string (`map_location="cpu"`)
    ("NPU413", _KERNEL + "def fused(x):\n    if x.device.type == 'cpu':\n        return x * 2\n    return ext.fused(x)\n",
     True),
    ("NPU413", _KERNEL + "def fused(x):\n    if str(x.device) != 'cpu':\n        return ext.fused(x)\n    return x * 2\n",
     True),
    ("NPU413", _KERNEL + "import torch\nstate = torch.load(f, map_location='cpu')\ndef fused(x):\n"
               "    print(x.device.type)\n    return ext.fused(x)\n", False),
    # NPU303: a Tensor method where it is called or named through `Tensor`, not any `.mode`
    ("NPU303", "import torch\nx = torch.zeros(3, device='npu')\nm = x.mode()\n", True),
    ("NPU303", "import torch\nmodes = map(torch.Tensor.mode, values)\n", True),
    ("NPU303", "import torch\nclass A:\n    def f(self):\n        return self.mode == 'train'\n", False),
])
def test_triggers_ask_for_the_form_the_check_reads(code, source, fires):
    """Each of these rules let files without any finding reach astroid for a word used
    otherwise (143 of 358 real-code files built had no finding; 106 of them for these four)."""
    engine = engine_for(Settings(select=(code,)))
    assert bool(engine.active_checks(words_in_tree(ast.parse(source)))) is fires
    assert [f.code for f in engine.check_text(source).findings] == ([code] if fires else [])


def test_the_trie_pattern_matches_what_the_plain_alternation_matches():
    """TextScan's quoted-start triggers are one regex with shared beginnings written once."""
    import re

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from npu_lint.analysis.prefilter import _trie_pattern

    words = st.lists(st.text("ab._(", max_size=4), min_size=1, max_size=6, unique=True)

    @settings(max_examples=500, deadline=None)
    @given(words, st.text("ab._(x", max_size=12))
    def check(chosen, text):
        plain = re.compile("(?:" + "|".join(map(re.escape, chosen)) + ")")
        trie = re.compile(_trie_pattern(tuple(chosen)))
        assert bool(trie.fullmatch(text)) is bool(plain.fullmatch(text)), (chosen, text)
        assert bool(trie.search(text)) is bool(plain.search(text)), (chosen, text)

    check()


def test_a_property_setter_records_its_attribute_from_the_syntax(monkeypatch):
    """fairseq's setup.py: a getter and a setter share their name; `self` in them is the
    instance all the same. Inferring it instead built setuptools from disk (5% of a run)."""
    from astroid.builder import AstroidBuilder

    from npu_lint.engine.engine import build_module

    text = ("class Extension:\n    pass\n\n\nclass NumpyExtension(Extension):\n"
            "    def __init__(self):\n        self.__dirs = []\n\n"
            "    @property\n    def include_dirs(self):\n        return self.__dirs\n\n"
            "    @include_dirs.setter\n    def include_dirs(self, dirs):\n        self.__dirs = dirs\n        self.seen = True\n")
    theirs = AstroidBuilder(astroid.MANAGER, apply_transforms=False).string_build(text, "inferred_property")
    inferred = []
    monkeypatch.setattr(AstroidBuilder, "delayed_assattr", lambda builder, node: inferred.append(node.as_string()))
    ours = build_module(text, "syntax_property.py", ast.parse(text))
    assert inferred == []
    mine, reference = ours.locals["NumpyExtension"][0], theirs.locals["NumpyExtension"][0]
    assert sorted(mine.instance_attrs) == sorted(reference.instance_attrs) == ["__dirs", "seen"]
    assert [len(v) for _k, v in sorted(mine.instance_attrs.items())] == \
        [len(v) for _k, v in sorted(reference.instance_attrs.items())]


def _fires_by_spec(triggers, words) -> bool:
    """What one check's triggers mean, written out one test at a time (see `Triggers`)."""
    from npu_lint.analysis.prefilter import _shows

    if triggers.names & words.identifiers or triggers.attributes & words.attributes:
        return True
    if any(word in words.attributes for word in triggers.calls & words.called):
        return True
    if any(plain <= words.identifiers and all(_shows(word, words) for word in special)
           for plain, special in triggers.groups):
        return True
    return any(piece in words.strings for piece in triggers.strings)


@pytest.mark.parametrize("settings", [Settings(), EVERY_RULE, Settings(strategy="auto")],
                         ids=["default", "every-rule", "auto"])
def test_the_trigger_index_lets_in_what_each_checks_triggers_let_in(settings):
    """The engine asks one index of every check's words (TriggerIndex), not each check."""
    engine = engine_for(settings)
    checked = 0
    for path, tree in _parsed_sources():
        words = words_in_tree(tree)
        expected = [check for check, triggers in engine.check_triggers if _fires_by_spec(triggers, words)]
        chosen = [engine.checks[index] for index in engine.trigger_index.firing(words)]
        assert chosen == expected, path
        checked += bool(expected)
    assert checked > 20


@pytest.mark.parametrize("trigger, source, fires", [
    (("'cuda:0",), "x = 'cuda:0'\n", True),  # a group keyed by no word: asked of every file
    (("'cuda:0",), "x = 'cuda:1'\n", False),
    (("=='cpu", ".type", "device"), "if x.device.type == 'cpu':\n    pass\n", True),
    (("=='cpu", ".type", "device"), "y = x.to('cpu')\nt = device.type\n", False),
    (("(Trainer", "@lightning.Trainer"), "import lightning\nt = lightning.Trainer()\n", True),
    (("(Trainer", "@lightning.Trainer"), "from transformers import Trainer\nt = Trainer()\n", False),
])
def test_one_checks_triggers_and_the_index_agree_on_each_kind_of_group(trigger, source, fires):
    words = words_in_tree(ast.parse(source))
    assert Triggers(frozenset({trigger})).could_fire(words) is fires
    assert _fires_by_spec(Triggers(frozenset({trigger})), words) is fires


def test_the_text_scan_asks_for_every_word_of_a_group_and_a_literals_words():
    """Stage 1 asks for a group's every word, a compared or exact literal's words included, before
    it reads the attribute words of the text (keyed by `str` or `out`, a group was tried, and the
    text's attributes read, on nearly every file)."""
    scan = TextScan(frozenset({("=='cpu", ".device", "str")}), frozenset())
    assert scan.could_fire("if str(x.device) == 'cpu':\n    pass\n")
    assert not scan.could_fire("name = str(x.device)\n")  # no "cpu" in the file
    assert not scan.could_fire("cpu = str(device)\n")  # `device` is no attribute here
    exact = TextScan(frozenset({("'cuda:0",)}), frozenset())
    assert exact.could_fire("x = 'cuda:0'\n") and not exact.could_fire("x = 'npu:0'\n")
    assert TextScan(frozenset({("'0",)}), frozenset()).could_fire("x = 1\n")  # no word: stage 2 decides
