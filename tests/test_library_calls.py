"""NPU403 (each use of a CUDA-only library) and the related locations it shares with NPU401,
and the one-finding-per-CUDA-object folding (NPU101 + later method calls)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap

import pytest
from conftest import FIXTURES, REPO, expected_findings, shared_file

from npu_lint.config.settings import Settings
from npu_lint.engine.engine import Engine
from npu_lint.knowledge.library_advice import table
from npu_lint.knowledge.loader import shipped_rules

FIXTURE = FIXTURES / "cuda_libraries.py"
RULES = {rule.code: rule for rule in shipped_rules()}


def _findings(text: str, select: str = "NPU403"):
    result = Engine(Settings(select=(select,))).check_text(textwrap.dedent(text), "t.py")
    assert not result.problems, result.problems
    return result.findings


def _lines(text: str, select: str = "NPU403") -> list[int]:
    return [finding.start.line for finding in _findings(text, select)]


def test_the_table_covers_the_libraries_npu401_flags():
    assert set(table().libraries) == set(RULES["NPU401"].match["modules"])


@pytest.mark.parametrize("source, qname", [
    ("from apex import amp\namp.initialize(m, o)\n", "apex.amp.initialize"),
    ("import apex.amp as amp\namp.initialize(m, o)\n", "apex.amp.initialize"),
    ("import apex\napex.amp.initialize(m, o)\n", "apex.amp.initialize"),
    ("from apex.parallel import DistributedDataParallel as DDP\nDDP(m)\n", "apex.parallel.DistributedDataParallel"),
    ("try:\n    from apex import amp\nexcept ImportError:\n    amp = None\namp.scale_loss(l, o)\n", "apex.amp.scale_loss"),
    ("import apex\nLN = apex.normalization.FusedLayerNorm\nAlias = LN\nAlias(8)\n", "apex.normalization.FusedLayerNorm"),
    ("import xformers.ops as xops\nxops.memory_efficient_attention(q, k, v)\n", "xformers.ops.memory_efficient_attention"),
    ("from flash_attn.layers.rotary import apply_rotary_emb\napply_rotary_emb(x, c, s)\n",
     "flash_attn.layers.rotary.apply_rotary_emb"),
])
def test_names_resolve_through_imports_and_aliases(source, qname):
    messages = [finding.message for finding in _findings(source)]
    assert any(message.startswith(f"`{qname}`") for message in messages), messages


@pytest.mark.parametrize("source", [
    "import amp\namp.initialize(m, o)\n",  # the user's own module
    "from . import amp\namp.scale_loss(l, o)\n",
    "def flash_attn_func(q, k, v):\n    return q\nflash_attn_func(1, 2, 3)\n",
    "from apex import amp\ndef f(amp):\n    return amp.initialize(1)\n",  # a parameter shadows it
    "from apex import amp\namp = make_amp()\namp.initialize(1)\n",  # rebound to something else
    "try:\n    from apex import amp\nexcept ImportError:\n    amp = None\nif amp is None:\n    pass\n",
    "import triton\nimport triton.language as tl\n@triton.jit\ndef k(x):\n    tl.store(x, tl.load(x))\n",
    "import apex\nprint(apex.__version__)\n",
])
def test_near_misses_stay_quiet(source):
    assert _lines(source) == []


def test_a_triton_kernel_is_one_finding_of_npu402():
    source = "import triton\nimport triton.language as tl\n@triton.jit\ndef k(x):\n    tl.store(x, tl.load(x))\n"
    # two imports of one library are one NPU401 (the second is its related location), one kernel
    assert [f.code for f in _findings(source, "NPU4")] == ["NPU401", "NPU402"]


def test_the_message_says_what_ascends_apex_adds():
    message = _findings("from apex import amp\namp.initialize(m, o)\n")[0].message
    for argument in ("combine_grad", "combine_ddp", "ddp_replica_count", "dynamic_init_scale"):
        assert argument in message


def test_npu401_lists_the_uses_of_its_import():
    source = "from apex import amp\nimport apex\namp.initialize(m, o)\nwith amp.scale_loss(l, o):\n    pass\n"
    imports = {f.start.line: f for f in _findings(source, "NPU401")}
    assert [r.start.line for r in imports[1].related] == [3, 4]
    assert imports[2].related == ()


def _write_stub_apex(root):
    """A tiny installed-looking apex (and flash_attn) whose names astroid could read."""
    files = {
        "apex/__init__.py": "from . import amp, parallel, optimizers, normalization\n",
        "apex/amp/__init__.py": "def initialize(models, optimizers=None, **kw):\n    return models, optimizers\n"
                                "def scale_loss(loss, optimizers):\n    return loss\n"
                                "def master_params(optimizer):\n    return []\n"
                                "def register_half_function(module, name):\n    pass\n",
        "apex/parallel/__init__.py": "class DistributedDataParallel:\n    pass\n"
                                     "class SyncBatchNorm:\n    pass\n"
                                     "def convert_syncbn_model(module):\n    return module\n",
        "apex/optimizers/__init__.py": "class FusedAdam:\n    pass\nclass FusedLAMB:\n    pass\nclass FusedSGD:\n    pass\n",
        "apex/normalization/__init__.py": "class FusedLayerNorm:\n    pass\nclass FusedRMSNorm:\n    pass\n",
        "apex/normalization/fused_layer_norm.py": "def fused_layer_norm_affine(*a):\n    return a\n",
        "flash_attn/__init__.py": "def flash_attn_func(*a, **k):\n    return a\n"
                                 "def flash_attn_varlen_func(*a, **k):\n    return a\n",
        "flash_attn/bert_padding.py": "def pad_input(*a):\n    return a\ndef unpad_input(*a):\n    return a\n",
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _run(args, pythonpath):
    env = dict(os.environ, PYTHONIOENCODING="utf-8", PYTHONPATH=str(pythonpath))
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True, text=True, env=env, timeout=600)


def test_the_same_findings_with_apex_installed(tmp_path):
    site = tmp_path / "site"
    _write_stub_apex(site)
    importable = subprocess.run([sys.executable, "-c", "import apex.amp, flash_attn.bert_padding"],
                                env=dict(os.environ, PYTHONPATH=str(site)), capture_output=True, timeout=60)
    assert importable.returncode == 0, importable.stderr
    expected = expected_findings(FIXTURE)

    proc = _run(["npu_lint", "check", "--format", "json", "--no-cache", str(FIXTURE)], site)
    cli = sorted((item["location"]["row"], item["code"]) for item in json.loads(proc.stdout))
    assert cli == sorted(expected.elements())

    proc = _run(["flake8", "--select", "NPU", str(FIXTURE)], site)
    rows = [re.match(r".*:(\d+):\d+: (NPU\d+) ", line) for line in proc.stdout.splitlines()]
    assert sorted((int(m[1]), m[2]) for m in rows) == sorted(expected.elements())

    checkers = ",".join(sorted({f"npu-lint-{rule.family.lower()}" for rule in RULES.values()}))
    proc = _run(["pylint", "--load-plugins", "npu_lint", "--disable", "all", "--enable", checkers,
                 "--msg-template", "{line}:{symbol}", "--score", "n", "--persistent", "n", str(FIXTURE)], site)
    code_of = {rule.name: rule.code for rule in RULES.values()}
    rows = [line.split(":") for line in proc.stdout.splitlines() if not line.startswith("*")]
    assert sorted((int(line), code_of[symbol]) for line, symbol in rows) == sorted(expected.elements())


OBJECTS = """\
import torch
import torch_npu
from apex import amp


class Trainer:
    def __init__(self):
        self.scaler = torch.cuda.amp.GradScaler()

    def step(self, loss, optimizer):
        self.scaler.scale(loss).backward()
        self.scaler.step(optimizer)
        with amp.scale_loss(loss, optimizer):
            pass


ev = torch.cuda.Event(enable_timing=True)
ev.record()
"""


def test_creation_carries_its_method_calls():
    findings = {(f.start.line, f.code): f for f in _findings(OBJECTS, "NPU1")}
    assert [r.start.line for r in findings[(8, "NPU101")].related] == [11, 12]
    assert [r.start.line for r in findings[(17, "NPU101")].related] == [18]
    assert not [f for f in findings.values() if f.code == "NPU105"]


def test_related_locations_in_json_and_sarif(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(OBJECTS)
    proc = _run(["npu_lint", "check", "--format", "json", "--no-cache", str(path)], tmp_path)
    items = {(i["location"]["row"], i["code"]): i for i in json.loads(proc.stdout)}
    assert [r["location"]["row"] for r in items[(3, "NPU401")]["related"]] == [13]
    assert [r["location"]["row"] for r in items[(8, "NPU101")]["related"]] == [11, 12]
    assert "self.scaler.scale()" in items[(8, "NPU101")]["related"][0]["message"]

    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(shared_file("schemas", "sarif-schema-2.1.0.json").read_text())
    proc = _run(["npu_lint", "check", "--format", "sarif", "--no-cache", str(path)], tmp_path)
    sarif = json.loads(proc.stdout)
    jsonschema.validate(sarif, schema)
    results = {(r["locations"][0]["physicalLocation"]["region"]["startLine"], r["ruleId"]): r
               for r in sarif["runs"][0]["results"]}
    related = results[(3, "NPU401")]["relatedLocations"]
    assert [r["physicalLocation"]["region"]["startLine"] for r in related] == [13]
    assert [r["physicalLocation"]["region"]["startLine"] for r in results[(17, "NPU101")]["relatedLocations"]] == [18]


# A CUDA-only library's own code (bitsandbytes' optimizers importing bitsandbytes.functional,
# DeepSpeed's engine importing deepspeed.ops): its names are its implementation, not a use of it.
OWN_LIBRARY_MODULE = """\
import torch
from bitsandbytes.optim.optimizer import Optimizer2State
import bitsandbytes.functional as F
import triton


class Adam(Optimizer2State):
    def step(self, state):
        return F.quantize(state)
"""


def _library_lines(text: str, path) -> set[tuple[int, str]]:
    result = Engine(Settings(select=("NPU401", "NPU403"))).check_text(text, str(path))
    return {(finding.start.line, finding.code) for finding in result.findings}


def test_a_cuda_only_library_using_itself_is_not_reported(tmp_path):
    from npu_lint.config import project_scripts

    (tmp_path / "pyproject.toml").write_text('[project]\nname = "bitsandbytes"\n')
    package = tmp_path / "bitsandbytes" / "optim"
    package.mkdir(parents=True)
    (tmp_path / "bitsandbytes" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    module = package / "adam.py"
    module.write_text(OWN_LIBRARY_MODULE)
    tests = tmp_path / "tests"
    tests.mkdir()
    project_scripts.project_root.cache_clear()
    for path in (module, tests / "test_optim.py"):
        assert _library_lines(OWN_LIBRARY_MODULE, path) == {(4, "NPU401")}, path.name  # triton is not its own
    user = tmp_path / "user_project" / "train.py"
    user.parent.mkdir()
    (user.parent / "setup.py").write_text("")
    project_scripts.project_root.cache_clear()
    # the second bitsandbytes import is a related location of the first one's NPU401
    assert _library_lines(OWN_LIBRARY_MODULE, user) >= {(2, "NPU401"), (4, "NPU401"), (7, "NPU403"), (9, "NPU403")}
