"""The torch model: stub semantics the inference engine relies on, with and without torch."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import time

import astroid
import pytest
from astroid import bases, nodes, util
from astroid.builder import AstroidBuilder

from npu_lint.knowledge import torch_model
from npu_lint.knowledge.torch_model import data, generate, hook, render

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HAS_TORCH = importlib.util.find_spec("torch") is not None
skip_without_torch = pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed")


@pytest.fixture(autouse=True)
def installed():
    torch_model.install()


def _class_names(value) -> list[str]:
    cls = value._proxied
    return [cls.qname()] + [a.qname() for a in cls.ancestors()]


# (snippet whose last line is inferred, expected kind, expected qname or value)
INFERENCE_TABLE = [
    ("import torch\nx = torch.randn(3)\nx", "instance", "torch.Tensor"),
    ("import torch\ntorch.zeros(2, 3)", "instance", "torch.Tensor"),
    ("import torch\ntorch.tensor([1])", "instance", "torch.Tensor"),
    ("import torch\ntorch.from_numpy(a)", "instance", "torch.Tensor"),
    ("import torch\ntorch.stack([a, b])", "instance", "torch.Tensor"),
    ("import torch\ntorch.randn(3).float()", "instance", "torch.Tensor"),
    ("import torch\nx = torch.randn(3)\nx.to('cpu')", "instance", "torch.Tensor"),
    ("import torch\nx = torch.randn(3)\nx.cuda()", "instance", "torch.Tensor"),
    ("import torch\nx = torch.randn(3)\nx[0]", "instance", "torch.Tensor"),
    ("import torch.nn.functional as F\nF.relu(x)", "instance", "torch.Tensor"),
    ("import torch\ntorch.randn(3).data", "instance", "torch.Tensor"),
    ("import torch\ntorch.randn(3) + 1", "instance", "torch.Tensor"),
    ("import torch\ntorch.randn(3).add_(1)", "instance", "torch.Tensor"),
    ("import torch\ntorch.randn(3).is_cuda", "uninferable", None),
    ("import torch\nwith torch.device('cuda') as d:\n    pass\nd", "instance", "torch.device"),
    ("import torch as t\nt.cuda.synchronize", "function", "torch.cuda.synchronize"),
    ("from torch import cuda\ncuda.synchronize", "function", "torch.cuda.synchronize"),
    ("from torch.cuda import amp\namp.autocast", "class", "torch.cuda.amp.autocast"),
    ("from torch.cuda.amp import GradScaler\nGradScaler", "class", "torch.cuda.amp.GradScaler"),
    ("import torch\ntorch.cuda.OutOfMemoryError", "class", "torch.cuda.OutOfMemoryError"),
    ("import torch\nev = torch.cuda.Event()\nev.record", "bound", "torch.cuda.Event.record"),
    ("import torch\ntorch.cuda.Event()", "instance", "torch.cuda.Event"),
    ("import torch\ns = torch.cuda.Stream()\ns.synchronize", "bound", "torch.cuda.Stream.synchronize"),
    ("import torch\ntorch.randn(3).cuda", "bound", "torch.Tensor.cuda"),
    ("import torch.nn as nn\nclass Net(nn.Module):\n    pass\nNet()", "subclass", "torch.nn.Module"),
    ("import torch.nn as nn\nclass Net(nn.Module):\n    pass\nNet().cuda()", "instance", ".Net"),
    ("import torch.nn as nn\nnn.Linear(2, 3).cuda().eval()", "instance", "torch.nn.Linear"),
    ("import torch.nn as nn\nnn.Linear(2, 3).cuda", "bound", "torch.nn.Module.cuda"),
    ("import torch.nn as nn\nnn.CrossEntropyLoss()", "subclass", "torch.nn.Module"),
    ("import torch.nn as nn\nnn.Linear(2, 3)", "subclass", "torch.nn.Module"),
    ("import torch.nn as nn\nnn.Linear(2, 3)(x)", "instance", "torch.Tensor"),
    ("import torch\ntorch.nn.parallel.DistributedDataParallel(m)", "subclass", "torch.nn.Module"),
    ("from torch.nn.parallel import DistributedDataParallel as DDP\nDDP(m)", "subclass", "torch.nn.Module"),
    ("import torch.nn as nn\nnn.DataParallel(m)", "subclass", "torch.nn.Module"),
    ("import torch.nn as nn\nnn.Parameter(x)", "subclass", "torch.Tensor"),
    ("from torch.autograd import Variable\nVariable(x)", "subclass", "torch.Tensor"),
    ("import torch\ntorch.device('cuda')", "instance", "torch.device"),
    ("import torch\ntorch.float32", "instance", "torch.dtype"),
    ("import torch.distributed as dist\ndist.init_process_group", "function",
     "torch.distributed.init_process_group"),
    ("import torch.distributed as dist\ndist.Backend", "class", "torch.distributed.Backend"),
    ("import torch.distributed as dist\ndist.Backend.NCCL", "const", "nccl"),  # noqa: NPU204
    ("import torch\ntorch.cuda", "module", "torch.cuda"),
    ("import torch\ntorch.cuda.not_a_real_name", "uninferable", None),
    ("import torch\ntorch.randn(3).not_a_real_method", "uninferable", None),
    ("import torch.made.up\ntorch.made.up.anything", "uninferable", None),
    ("import torch.made.up as m\nm.anything", "uninferable", None),
    ("from torch._C import _cuda_getDevice\n_cuda_getDevice", "uninferable", None),
    ("import torch_npu\ntorch_npu.npu.synchronize", "uninferable", None),
    ("import torch\ntorch.cuda.synchronize()", "uninferable", None),
]


def check_inference(code: str, kind: str, expected) -> None:
    node = astroid.extract_node(code)
    values = node.inferred()
    assert len(values) == 1, values
    value = values[0]
    if kind == "instance":
        assert isinstance(value, bases.Instance) and value._proxied.qname() == expected, value
    elif kind == "subclass":
        assert isinstance(value, bases.Instance) and expected in _class_names(value), value
    elif kind == "function":
        assert isinstance(value, nodes.FunctionDef) and value.qname() == expected, value
    elif kind == "class":
        assert isinstance(value, nodes.ClassDef) and value.qname() == expected, value
    elif kind == "bound":
        assert isinstance(value, bases.BoundMethod) and value.qname() == expected, value
    elif kind == "module":
        assert isinstance(value, nodes.Module) and value.name == expected, value
    elif kind == "const":
        assert isinstance(value, nodes.Const) and value.value == expected, value
    else:
        assert value is util.Uninferable, value


@pytest.mark.parametrize("code, kind, expected", INFERENCE_TABLE)
def test_inference(code, kind, expected):
    check_inference(code, kind, expected)


def test_class_qnames_and_bases():
    event = astroid.extract_node("import torch\ntorch.cuda.Event")
    assert next(event.infer()).qname() == "torch.cuda.Event"
    oom = next(astroid.extract_node("import torch\ntorch.cuda.OutOfMemoryError").infer())
    # A re-export into torch.cuda is a local subclass, so isinstance-style reasoning still holds.
    assert {"torch.OutOfMemoryError", "builtins.RuntimeError"} <= {a.qname() for a in oom.ancestors()}


def test_import_of_unknown_module_does_not_raise():
    module = astroid.parse("import torch.made.up\nfrom torch.foo.bar import baz\n")
    for stmt in module.body:
        stmt.do_import_module(stmt.names[0][0] if isinstance(stmt, nodes.Import) else stmt.modname)
    assert isinstance(astroid.MANAGER.ast_from_module_name("torch.foo.bar"), hook.CatchAllModule)


def _drop_stubs() -> None:
    cache = astroid.MANAGER.astroid_cache
    for key in [k for k in dict.keys(cache) if hook.is_stub_name(k)]:
        dict.pop(cache, key)


def test_stubs_are_lazy():
    _drop_stubs()  # forget stubs other tests built
    cache = astroid.MANAGER.astroid_cache
    check_inference("import torch\ntorch.randn(3)", "instance", "torch.Tensor")
    assert dict.__contains__(cache, "torch")
    assert not dict.__contains__(cache, "torch.nn.functional")
    check_inference("import torch.nn.functional as F\nF.relu(x)", "instance", "torch.Tensor")
    assert dict.__contains__(cache, "torch.nn.functional")


def run_isolated(function: str) -> None:
    """Run a function of this module in a fresh interpreter (astroid state is global)."""
    here = os.path.dirname(os.path.abspath(__file__))
    code = f"import sys; sys.path.insert(0, {here!r}); import test_torch_model as t; t.{function}()"
    env = dict(os.environ, PYTHONPATH=REPO)
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def survives_clear_cache() -> None:
    torch_model.install()
    check_inference("import torch\ntorch.randn(3)", "instance", "torch.Tensor")
    cache = astroid.MANAGER.astroid_cache
    astroid.MANAGER.clear_cache()  # pylint calls this; it empties the cache dict in place
    assert astroid.MANAGER.astroid_cache is cache and isinstance(cache, hook.StubCache)
    assert not dict.__contains__(cache, "torch")
    check_inference("import torch\ntorch.randn(3).cuda", "bound", "torch.Tensor.cuda")


def test_stubs_survive_clear_cache():
    run_isolated("survives_clear_cache")


def test_install_is_idempotent_and_cheap():
    cache = astroid.MANAGER.astroid_cache
    start = time.perf_counter()
    for _ in range(100):
        torch_model.install()
    assert (time.perf_counter() - start) / 100 < 0.02
    assert astroid.MANAGER.astroid_cache is cache
    assert astroid.manager.AstroidManager().astroid_cache is cache


def test_public_names_and_has_module():
    cuda = torch_model.public_names("torch.cuda")
    assert {"synchronize", "Event", "Stream", "amp", "is_available", "set_device"} <= cuda
    assert "os" not in cuda and "Optional" not in cuda  # imports from outside torch are not API
    assert torch_model.has_module("torch.cuda.amp") and torch_model.has_module("torch.nn.parallel")
    assert not torch_model.has_module("torch._C") and not torch_model.has_module("torch.made.up")
    assert torch_model.public_names("torch.made.up") == frozenset()
    assert "torch.cuda.amp" in torch_model.submodules("torch.cuda")
    assert torch_model.torch_version().startswith("2.13")
    assert isinstance(torch_model.public_names("torch.cuda"), frozenset)


def test_data_references_resolve():
    raw = data.load()
    modules, classes = raw["modules"], raw["classes"]

    def defined(qname: str) -> bool:
        home, _, name = qname.rpartition(".")
        record = modules.get(home, {})
        return any(name in data.names(record, key) for key in ("cls", "fnT", "fnO"))

    for name, record in modules.items():
        for home, names in record.get("imp", {}).items():
            assert home != name and all(defined(f"{home}.{n}") for n in names.split()), (name, home)
        assert all(defined(q) for q in record.get("ren", {}).values()), name
        assert all(q in classes for q in record.get("ins", {}).values()), name
        assert all(f"{name}.{c}" in classes for c in data.names(record, "cls")), name
    for qname, record in classes.items():
        assert "b" not in record or record["b"] in classes, qname
        assert all(q in classes for q in record.get("ins", {}).values()), qname
    assert data.ancestors("torch.nn.CrossEntropyLoss") == ["torch.nn.Module"]
    assert data.ancestors("torch.cuda.FloatTensor") == ["torch.Tensor"]


def test_every_stub_renders_valid_python_without_self_import():
    for name in data.load()["modules"]:
        tree = ast.parse(render.render(name).source, name)
        for stmt in tree.body:
            imported = [stmt.module] if isinstance(stmt, ast.ImportFrom) else []
            imported += [alias.name for alias in stmt.names] if isinstance(stmt, ast.Import) else []
            assert name not in imported, f"stub {name} imports itself"


def test_big_stubs_build():
    for name in ("torch", "torch.nn", "torch.cuda", "torch.distributed", "torch.nn.functional"):
        source = render.full_source(render.render(name))
        AstroidBuilder(astroid.MANAGER, apply_transforms=False).string_build(source, "x_" + name)


def test_data_file_is_compact_and_versioned():
    size = os.path.getsize(data.DATA_FILE)
    assert size < 1_000_000
    raw = json.load(open(data.DATA_FILE, encoding="ascii"))
    assert raw["format"] == data.FORMAT and raw["torch"].startswith("2.13")
    assert "torch.randn" not in raw["classes"]


def test_generate_check_reports_difference(tmp_path, monkeypatch, capsys):
    target = tmp_path / "torch_api.json"
    committed = open(data.DATA_FILE, "rb").read()
    monkeypatch.setattr(generate, "build", lambda: (committed, {}))
    target.write_bytes(committed)
    assert generate.main(["--check", "--output", str(target)]) == 0
    changed = json.loads(committed)
    changed["torch"] = "0.0"
    del changed["modules"]["torch.cuda"]
    target.write_text(generate.dumps(changed), encoding="ascii")
    assert generate.main(["--check", "--output", str(target)]) == 1
    out = capsys.readouterr().out
    assert "torch version: 0.0 ->" in out and "modules added: torch.cuda" in out
    assert target.read_text(encoding="ascii") == generate.dumps(changed)  # --check wrote nothing
    assert generate.main(["--output", str(target)]) == 0
    assert target.read_bytes() == committed


def test_dumps_is_deterministic():
    raw = json.load(open(data.DATA_FILE, encoding="ascii"))
    assert generate.dumps(raw).encode("ascii") == open(data.DATA_FILE, "rb").read()


# -- pylint on a typical training script ----------------------------------------------------

TRAINING_SCRIPT = textwrap.dedent(
    """\
    import os
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    import torch.distributed as dist
    import torch.backends.cudnn as cudnn
    from torch import optim
    from torch.cuda import amp
    from torch.cuda.amp import GradScaler, autocast
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.utils.data import DataLoader, TensorDataset
    from torch.utils.data.distributed import DistributedSampler
    import torch_npu
    from torch_npu.contrib import transfer_to_npu


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 2)
            self.bn = nn.BatchNorm1d(2)

        def forward(self, x):
            return F.relu(self.bn(self.fc(x)))


    def main():
        dist.init_process_group(backend=dist.Backend.NCCL)
        rank = int(os.environ.get("LOCAL_RANK", 0))
        torch.cuda.set_device(rank)
        cudnn.benchmark = True
        device = torch.device("cuda", rank)
        model = DDP(Net().cuda(), device_ids=[rank])
        data = TensorDataset(torch.randn(64, 8), torch.randint(0, 2, (64,)))
        loader = DataLoader(data, batch_size=8, sampler=DistributedSampler(data))
        opt = optim.SGD(model.parameters(), lr=0.1)
        scaler = GradScaler()
        stream = torch.cuda.Stream()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for x, y in loader:
            x, y = x.cuda(non_blocking=True), y.to(device)
            with torch.cuda.stream(stream), autocast():
                loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            print(loss.item(), x.is_cuda, x.device.type, amp.autocast, torch_npu.npu, transfer_to_npu)
        end.record()
        torch.cuda.synchronize()
        print(start.elapsed_time(end), torch.cuda.max_memory_allocated(), torch.version.cuda)
        dist.destroy_process_group()
    """
)
PYLINT_ARGS = ["--disable=all", "--enable=no-member,no-name-in-module,import-error", "--score=n"]


def run_pylint(tmp_path, script: str, plugin: bool = True, enable: str = "") -> tuple[int, str]:
    (tmp_path / "npu_torch_stub_plugin.py").write_text(
        "from npu_lint.knowledge.torch_model import install\n\n\ndef register(linter):\n    install()\n",
        encoding="utf-8",
    )
    (tmp_path / "train.py").write_text(script, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), REPO]))
    checks = [f"--enable={enable}"] if enable else []
    args = [sys.executable, "-m", "pylint", *PYLINT_ARGS, *checks, "train.py"]
    if plugin:
        args.insert(3, "--load-plugins=npu_torch_stub_plugin")
    proc = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
                          check=False)
    return proc.returncode, proc.stdout + proc.stderr


def _pylint_training_script(tmp_path):
    script = TRAINING_SCRIPT + "\nfrom torch.cuda import not_a_real_name  # the one expected message\n"
    rc, out = run_pylint(tmp_path, script)
    messages = [line for line in out.splitlines() if line.startswith("train.py:")]
    assert len(messages) == 1 and "no-name-in-module" in messages[0] and "not_a_real_name" in messages[0], out
    assert rc == 2, out  # 2 = an error message was emitted, no fatal/usage problem


def test_pylint_training_script(tmp_path):
    _pylint_training_script(tmp_path)


PROTOCOL_SCRIPT = textwrap.dedent(
    """\
    \"\"\"User code that subclasses torch classes and uses tensors as containers.\"\"\"
    import torch
    from torch import nn
    from torch.utils.data import Dataset


    class Data(Dataset):
        \"\"\"Overrides with their own signatures.\"\"\"

        def __len__(self):
            return 4

        def __getitem__(self, index):
            return torch.randn(2)[index]


    class Net(nn.Module):
        \"\"\"Overrides forward and train.\"\"\"

        def __init__(self):
            super().__init__()
            self.seq = nn.Sequential(nn.Linear(2, 2))

        def forward(self, x):
            return self.seq[0](x)

        def train(self, mode=True):
            return super().train(mode)


    def main():
        \"\"\"Protocols: iteration, subscripts, context managers, exceptions, operators.\"\"\"
        x = torch.randn(3, 2)
        rows, cols = x.shape
        for row in x:
            print(row[0], -row, abs(row), row @ row, len(x), rows, cols)
        with torch.no_grad(), torch.cuda.device(0), torch.autocast("cuda"):
            print(Net().cuda()(x).sum().item(), Data()[0])
        try:
            torch.cuda.synchronize()
        except torch.cuda.OutOfMemoryError:
            pass
    """
)


def test_pylint_no_false_positives_from_stub_signatures(tmp_path):
    # Stub functions have an unknown signature (like C builtins), so overriding them is fine.
    rc, out = run_pylint(tmp_path, PROTOCOL_SCRIPT, enable="E,W0221,W0222,W0223,W0237")
    assert rc == 0, out


@pytest.mark.skipif(HAS_TORCH, reason="torch is installed: pylint would find it without stubs")
def test_pylint_without_plugin_reports_import_errors(tmp_path):
    _, out = run_pylint(tmp_path, "import torch\n", plugin=False)
    assert "import-error" in out  # proves the plugin is what silences the test above


# -- with the real torch installed ---------------------------------------------------------


def table_reads_nothing_from_disk() -> None:
    read = []
    real_file_build = AstroidBuilder.file_build

    def spy(self, path, modname=None):
        read.append(modname or path)
        return real_file_build(self, path, modname)

    AstroidBuilder.file_build = spy
    torch_model.install()
    for code, kind, expected in INFERENCE_TABLE:
        check_inference(code, kind, expected)
    assert not [m for m in read if "torch" in str(m)], read
    searched = [key for key in astroid.MANAGER._mod_file_cache if hook.is_stub_name(key[0])]
    assert not searched, searched  # astroid never even looked for a torch file
    cached = [m for k, m in astroid.MANAGER.astroid_cache.items() if hook.is_stub_name(k)]
    assert cached and all(isinstance(m, hook.StubModule) for m in cached)


def test_table_reads_nothing_from_disk():
    run_isolated("table_reads_nothing_from_disk")


@pytest.mark.torch
@skip_without_torch
def test_with_torch_same_inference_and_nothing_read_from_disk():
    code = "import torch, sys; assert 'torch' in sys.modules"  # the real torch is importable
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
    run_isolated("table_reads_nothing_from_disk")


@pytest.mark.torch
@skip_without_torch
def test_with_torch_pylint_training_script(tmp_path):
    _pylint_training_script(tmp_path)


@pytest.mark.torch
@skip_without_torch
def test_generator_check_matches_committed_data():
    env = dict(os.environ, PYTHONPATH=REPO)
    proc = subprocess.run(
        [sys.executable, "-m", "npu_lint.knowledge.torch_model.generate", "--check"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_users_assignment_never_changes_the_shared_model():
    """astroid records `torch.x.y = value` on the target; the stubs must not keep it."""
    from npu_lint.engine.engine import Engine

    engine = Engine()
    before = engine.check_text("import torch\nimport torch_npu\nt = torch.cuda.synchronize\n", "a.py").findings
    engine.check_text(
        "import torch\ntorch.cuda.synchronize = None\ntorch.backends.cudnn.benchmark = 1\n"
        "x = torch.ones(1)\nx.extra = 2\n", "b.py")
    module = astroid.MANAGER.astroid_cache["torch.cuda"]
    assert len(module.locals["synchronize"]) == 1
    tensor = astroid.MANAGER.astroid_cache["torch"].locals["Tensor"][0]
    assert "extra" not in tensor.instance_attrs
    node = astroid.extract_node("import torch as t\nt.cuda.synchronize")
    assert [v.qname() for v in node.inferred()] == ["torch.cuda.synchronize"]
    after = engine.check_text("import torch\nimport torch_npu\nt = torch.cuda.synchronize\n", "a.py").findings
    assert after == before


def test_class_bodies_are_built_on_first_use_and_equal_the_full_stub():
    """A stub class is a shell until something reads its members; then it has exactly the members
    (and return kinds) the full rendering gives, at the same lines, frozen like the rest."""
    _drop_stubs()
    module = astroid.MANAGER.ast_from_module_name("torch.cuda")
    stream = module.locals["Stream"][0]
    assert isinstance(stream, hook.LazyStubClass) and stream.__dict__["_npu_pending"] is not None
    assert stream.qname() == "torch.cuda.Stream" and stream.lineno > 1
    check_inference("import torch\ntorch.cuda.Stream().synchronize", "bound", "torch.cuda.Stream.synchronize")
    assert stream.__dict__["_npu_pending"] is None
    full = AstroidBuilder(astroid.MANAGER, apply_transforms=False).string_build(
        render.full_source(render.render("torch.cuda")), "x_full_torch_cuda")
    expected = next(n for n in full.body if isinstance(n, nodes.ClassDef) and n.name == "Stream")
    assert sorted(stream.locals) == sorted(expected.locals)
    assert {n: v[0].lineno for n, v in stream.locals.items()} == {n: v[0].lineno for n, v in expected.locals.items()}
    assert isinstance(stream.locals, hook.FrozenNamespace)
    assert all(isinstance(f, hook.StubFunction) for f in stream.mymethods())


def test_module_functions_are_made_with_the_data_return_kinds():
    _drop_stubs()
    module = astroid.MANAGER.ast_from_module_name("torch")
    stub = render.render("torch")
    assert stub.functions and all(name in module.locals for name in stub.functions)
    randn = module.locals["randn"][0]
    assert isinstance(randn, hook.StubFunction) and randn.npu_returns == "T" and randn.args.args is None
    assert randn.lineno == stub.functions_line
    check_inference("import torch\ntorch.randn(3)", "instance", "torch.Tensor")
