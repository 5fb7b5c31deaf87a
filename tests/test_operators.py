"""Unsupported operators and dtypes (NPU3xx, NPU930/931): the committed operator data, its loader,
the generator's readers, and calls that fire or stay quiet."""
from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import REPO, SHARED

from npu_lint.config.settings import Settings
from npu_lint.engine.engine import Engine
from npu_lint.knowledge import operator_data, release_data

OPERATOR_CODES = ("NPU301", "NPU302", "NPU303", "NPU304", "NPU305")
ASCEND = SHARED / "ascend-api-support"


def _needs_ascend_lists() -> Path:
    if not (ASCEND / "pytorch_2-13-0").is_dir():
        pytest.skip("needs Ascend's support lists in ../shared/ascend-api-support beside the repository "
                    "(not in a plain clone; only the generator reads them)")
    return ASCEND


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(Settings())


def _findings(engine: Engine, text: str) -> list:
    result = engine.check_text(textwrap.dedent(text), "example.py")
    assert not result.problems, result.problems
    return [f for f in result.findings if f.code.startswith(("NPU3", "NPU93"))]


def _codes(engine: Engine, text: str) -> list:
    return [f.code for f in _findings(engine, text)]


PRELUDE = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
import torch_npu
x = torch.randn(8, 16, device="npu")
index = torch.zeros(8, 16, dtype=torch.long, device="npu")
"""


# -- the committed data ---------------------------------------------------------------------------

def test_classification_counts_for_2_13():
    counts = operator_data.operators("2.13.0").counts
    assert dict(counts) == {
        "npu": 1081, "delegated": 24, "composite-implicit": 705, "composite-explicit": 852,
        "cpu-fallback": 299, "no-kernel": 75, "layout": 78, "total": 3114,
    }
    # DESIGN.md section 5's numbers for the classes both count the same way (docs/operators.md
    # explains the 13 overloads of difference in the total and the split of the border classes).
    assert (counts["npu"], counts["delegated"], counts["cpu-fallback"]) == (1081, 24, 299)


def test_every_release_has_operator_data():
    for release in release_data.releases():
        data = operator_data.operators(release)
        assert data.counts["total"] == sum(data.counts[c] for c in operator_data.CLASSES)
        assert data.apis, release


def test_ascend_lists_are_merged_where_a_list_exists():
    assert operator_data.operators("2.13.0").ascend_list == "pytorch_2-13-0"
    assert operator_data.operators("2.14.0").ascend_list == "pytorch_2-13-0"  # newest older list
    assert operator_data.operators("2.8.0").ascend_list == "pytorch_2-7-1"
    old = operator_data.operators("2.1.0")
    assert old.ascend_list == "none" and not old.ascend and not old.unverified


def test_dtype_facts_are_read_from_the_wheel():
    data = operator_data.operators("2.13.0")
    assert data.unsupported_dtypes == {"quint8", "qint8", "qint32", "quint4x2", "quint2x4"}
    assert "uint64" in data.no_arithmetic_dtypes


def test_docs_page_lists_the_counts_of_the_data():
    page = (REPO / "docs" / "operators.md").read_text(encoding="utf-8")
    for release in release_data.releases():
        counts = operator_data.operators(release).counts
        row = next(line for line in page.splitlines() if line.startswith(f"| {release} |"))
        cells = [c.strip().replace(",", "") for c in row.strip("|").split("|")]
        assert [int(c) for c in cells[2:2 + len(operator_data.CLASSES) + 1]] == \
            [counts[c] for c in operator_data.CLASSES + ("total",)], release
    assert "DESIGN.md's reading, reproduced" in page
    for cls in operator_data.CLASSES:
        assert f"### {cls} (" in page


def test_installed_package_never_reads_the_ascend_lists():
    for path in (REPO / "npu_lint").rglob("*.py"):
        if "generate" in path.relative_to(REPO / "npu_lint").parts:
            continue
        assert "ascend-api-support" not in path.read_text(encoding="utf-8"), path


# -- the loader -------------------------------------------------------------------------------------

def _data_text() -> str:
    return (REPO / "data" / operator_data.DATA_FILE).read_text(encoding="utf-8")


def test_committed_file_validates_every_release():
    data = operator_data.parse_operator_data(_data_text(), "operator_support.yaml")
    assert data.releases == release_data.releases()


@pytest.mark.parametrize("edit, field", [
    (("class: cpu-fallback", "class: sometimes", 1), "apis/"),
    (("schema: 1", "schema: 9", 1), "schema"),
    (("  torch_sha256:", "  torch_sha: ", 1), "torch_sha256"),
])
def test_broken_data_names_file_and_field(edit, field):
    old, new, count = edit
    text = _data_text().replace(old, new, count)
    with pytest.raises(ValueError) as error:
        operator_data.parse_operator_data(text, "operator_support.yaml")
    assert "operator_support.yaml" in str(error.value) and field in str(error.value)


def test_unknown_release_is_a_clear_error():
    with pytest.raises(ValueError, match="no operator data for torch_npu release '1.8'"):
        operator_data.operators("1.8")


@pytest.mark.parametrize("text, chip", [
    ("Atlas A2", "A2"), ("atlas-a3", "A3"), ("A3", "A3"), ("Ascend 950DT", "950DT"), ("950dt", "950DT"),
    (None, "A2"),
])
def test_chip_names(text, chip):
    assert operator_data.normalize_chip(text) == chip


def test_unknown_chip_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown npu-chip 'Atlas 300'"):
        operator_data.normalize_chip("Atlas 300")


def test_trigger_grammar():
    trigger = operator_data.Trigger.parse("mode='lanczos'@3", "here")
    assert (trigger.argument, trigger.value, trigger.position, trigger.by_default) == ("mode", "lanczos", 3, False)
    keyword = operator_data.Trigger.parse("reduce", "here")
    assert keyword.argument == "reduce" and not keyword.has_value
    assert operator_data.Trigger.parse("antialias=True@6|default", "here").by_default


# -- the documented examples ------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    "F.gelu(x)",
    "torch.argmax(x, dim=1)",
    "torch.scatter(x, 1, index, x)",
    "x.scatter(1, index, x)",
    "F.softmax(x, dim=-1)",
    "torch.matmul(x, x.t())",
    "F.scaled_dot_product_attention(x, x, x)",
    "F.interpolate(x[None, None], scale_factor=2, mode='bilinear')",
    "torch.frexp(x)",
    "x.cpu().digamma()",
    "torch.lgamma(x.cpu())",
    "nn.MultiheadAttention(16, 2)",
    "F.gelu(x.double().float())",
])
def test_runs_on_the_npu_is_quiet(engine, call):
    assert _codes(engine, PRELUDE + f"y = {call}\n") == []


@pytest.mark.parametrize("call, code, operator", [
    ("x.digamma()", "NPU301", "aten::digamma"),
    ("torch.digamma(x)", "NPU301", "aten::digamma"),
    ("torch.linalg.eig(x)", "NPU301", "aten::linalg_eig"),
    ("torch.special.i1(x)", "NPU301", "aten::special_i1"),
    ("F.huber_loss(x, x)", "NPU301", "aten::huber_loss"),
    ("torch.scatter(x, 1, index, x, reduce='add')", "NPU301", "aten::scatter.reduce"),
    ("torch.frexp(x, out=(x, index))", "NPU301", "aten::frexp.Tensor_out"),
    ("F.interpolate(x[None, None], scale_factor=2, mode='lanczos', antialias=True)", "NPU301",
     "aten::_upsample_lanczos2d_aa"),
    ("nn.TransformerEncoderLayer(d_model=16, nhead=2)", "NPU301", "aten::_transformer_encoder_layer_fwd"),
    ("torchvision.ops.nms(x[:, :4], x[:, 0], 0.5)", "NPU301", "torchvision::nms"),
    ("torch.cudnn_convolution(x, x, [1], [1], [1], 1, False, False, True)", "NPU302", "aten::cudnn_convolution"),
])
def test_falls_back_or_fails(engine, call, code, operator):
    findings = _findings(engine, PRELUDE + f"y = {call}\n")
    assert [f.code for f in findings] == [code]
    message = findings[0].message
    assert operator in message and f"torch_npu {release_data.default_release()}" in message


def test_a_fallback_selected_by_an_argument_marks_that_argument(engine):
    line = "y = torch.scatter(x, 1, index, x, reduce='add')"
    [finding] = _findings(engine, PRELUDE + line + "\n")
    assert finding.start.column == line.index("reduce=") and finding.end.column == len(line) - 1
    line = "y = torch.digamma(x, out=x)"  # falls back with or without out=: the whole call
    [finding] = _findings(engine, PRELUDE + line + "\n")
    assert finding.start.column == line.index("torch")


def test_messages_name_the_workaround(engine):
    messages = {f.code: f.message for f in _findings(engine, PRELUDE + "y = x.digamma()\n")}
    assert "move that computation to the CPU explicitly" in messages["NPU301"]
    nms = _findings(engine, PRELUDE + "y = torchvision.ops.nms(x[:, :4], x[:, 0], 0.5)\n")[0].message
    assert "torch_npu.npu_nms_v4" in nms and "torchvision_npu" in nms
    layer = _findings(engine, PRELUDE + "y = nn.TransformerEncoderLayer(16, 2)\n")[0].message
    assert "torch_npu.npu_fusion_attention" in layer and "set_fastpath_enabled(False)" in layer
    dtype = _findings(engine, PRELUDE + "y = F.gelu(x.double())\n")[0].message
    assert "cast to float32" in dtype and "float64" in dtype


@pytest.mark.parametrize("text", [
    "y = F.gelu(x.double())",
    "y = F.gelu(torch.randn(3, dtype=torch.float64, device=x.device))",
    "d = torch.randn(3, device=\"npu\").double()\ny = F.gelu(d)",
    "y = F.gelu(torch.cuda.DoubleTensor(3))",
    "y = F.gelu(x.to(torch.float64))",
])
def test_float64_literal_or_inferred(engine, text):
    assert _codes(engine, PRELUDE + text + "\n") == ["NPU304"]


@pytest.mark.parametrize("text", [
    "y = F.gelu(x.double().to(torch.float32))",
    "y = F.gelu(x)",
    "d = x.double()\nd = d.float()\ny = F.gelu(d)",
])
def test_float64_not_written_down_is_quiet(engine, text):
    assert _codes(engine, PRELUDE + text + "\n") == []


@pytest.mark.parametrize("text", [
    "y = F.gelu(torch.randn(3, dtype=torch.float64))",
    "d = torch.randn(3).double()\ny = F.gelu(d)",
    "d = torch.linspace(-6, 6, 10, dtype=torch.float64)\ny = torch.sigmoid(d[1:])",
])
def test_float64_made_on_the_cpu_is_quiet(engine, text):
    """A torch factory without `device=` makes the tensor on the CPU, and the computation stays
    there: nothing reaches an NPU kernel."""
    assert _codes(engine, PRELUDE + text + "\n") == []


def test_float64_of_a_factory_is_reported_under_a_default_device(engine):
    text = "torch.set_default_device('npu')\ny = F.gelu(torch.randn(3, dtype=torch.float64))\n"
    assert _codes(engine, PRELUDE + text) == ["NPU304"]


def test_quantized_and_uint64_dtypes(engine):
    assert _codes(engine, PRELUDE + "q = torch.zeros(3, dtype=torch.uint64)\n") == ["NPU305"]
    assert "NPU305" in _codes(engine, PRELUDE + "q = torch.quantize_per_tensor(x, 0.1, 0, torch.qint8)\n")


def test_chip_option_changes_the_verdict():
    text = PRELUDE + "flag = torch.is_storage(x)\n"
    assert _codes(Engine(Settings()), text) == []
    assert _codes(Engine(Settings(npu_chip="Ascend 950DT")), text) == ["NPU303"]
    message = _findings(Engine(Settings(npu_chip="Ascend 950DT")), text)[0].message
    assert "Ascend 950DT" in message and "Atlas A2" in message  # where it is supported


def test_target_release_changes_the_data():
    # No Ascend list for 2.1: the chip rule has nothing to say there.
    text = PRELUDE + "v, m = torch.var_mean(x, dim=0)\n"
    assert _codes(Engine(Settings()), text) == ["NPU303"]
    assert _codes(Engine(Settings(target_torch_npu="2.1.0")), text) == []


def test_opt_in_rules_are_off_by_default(engine):
    assert _codes(engine, PRELUDE + "y = torch.rot90(x)\ns = torch.std(x)\n") == []
    selected = Engine(Settings(select=("NPU930", "NPU931")))
    assert sorted(_codes(selected, PRELUDE + "y = torch.rot90(x)\ns = torch.std(x)\n")) == ["NPU930", "NPU931"]


def test_files_without_operator_names_never_reach_astroid(engine, monkeypatch):
    import npu_lint.engine.engine as engine_module

    def no_astroid(*_args, **_kwargs):
        raise AssertionError("astroid was built for a file no rule can fire on")

    monkeypatch.setattr(engine_module, "build_module", no_astroid)
    text = "import os\nimport torch\nvalue = 'lu digamma cuda'  # cuda, digamma\nprint(os.getcwd(), torch.ones(1))\n"
    assert engine.check_text(text, "plain.py").findings == []


# -- the generator's readers (no wheels needed) -------------------------------------------------------

def test_classification_rules():
    from npu_lint.generate.aten_ops import read_native_functions
    from npu_lint.generate.op_classes import classify

    yaml_text = textwrap.dedent("""\
        - func: gelu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
          structured: True
          dispatch:
            CPU: gelu_out_cpu
            CUDA: gelu_out_cuda
        - func: gelu(Tensor self) -> Tensor
          structured_delegate: gelu.out
        - func: digamma.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
          dispatch:
            CPU, CUDA: digamma_out
        - func: digamma(Tensor self) -> Tensor
          structured_delegate: digamma.out
        - func: linear(Tensor input, Tensor weight) -> Tensor
          dispatch:
            CompositeImplicitAutograd: linear
            NestedTensorCPU: nested_linear
        - func: cudnn_thing(Tensor self) -> Tensor
          dispatch:
            CUDA: cudnn_thing
          autogen: cudnn_thing.out
        - func: to_sparse_thing(Tensor self) -> Tensor
          dispatch:
            SparseCPU, SparseCUDA: to_sparse_thing
        - func: _foreach_exp(Tensor[] self) -> Tensor[]
          dispatch:
            CompositeExplicitAutograd: foreach_tensor_exp_slow
            CUDA: foreach_tensor_exp_cuda
        - func: copy_(Tensor(a!) self, Tensor src) -> Tensor(a!)
          dispatch:
            CompositeExplicitAutograd: copy_
        """)
    native = read_native_functions(yaml_text)
    classes = classify(native.overloads, frozenset({"gelu.out", "copy_"}))
    assert classes == {
        "gelu.out": "npu", "gelu": "delegated", "digamma.out": "cpu-fallback", "digamma": "cpu-fallback",
        "linear": "composite-implicit", "cudnn_thing": "no-kernel", "cudnn_thing.out": "composite-explicit",
        "to_sparse_thing": "layout", "_foreach_exp": "composite-explicit", "copy_": "npu",
    }
    assert native.overloads["digamma.out"].is_out and not native.overloads["copy_"].is_out
    assert native.overloads["cudnn_thing.out"].is_out


def test_python_paths_pick_the_argument_that_selects_the_fallback():
    from npu_lint.generate.aten_ops import read_native_functions
    from npu_lint.generate.python_apis import aten_paths

    yaml_text = textwrap.dedent("""\
        - func: scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor
          variants: function, method
        - func: scatter.reduce(Tensor self, int dim, Tensor index, Tensor src, *, str reduce) -> Tensor
          variants: function, method
        - func: frexp.Tensor(Tensor self) -> (Tensor mantissa, Tensor exponent)
          variants: function, method
        - func: frexp.Tensor_out(Tensor self, *, Tensor(a!) mantissa, Tensor(b!) exponent) -> (Tensor(a!), Tensor(b!))
        """)
    overloads = read_native_functions(yaml_text).overloads
    classes = {"scatter.src": "delegated", "scatter.reduce": "cpu-fallback",
               "frexp.Tensor": "composite-explicit", "frexp.Tensor_out": "cpu-fallback"}
    names = {
        "torch.scatter": [(overloads["scatter.src"], False), (overloads["scatter.reduce"], False)],
        "torch.frexp": [(overloads["frexp.Tensor"], False), (overloads["frexp.Tensor_out"], False)],
    }
    paths, ambiguous = aten_paths(names, classes)
    assert paths["torch.scatter"].overloads == ("scatter.reduce",) and paths["torch.scatter"].when == ("reduce",)
    assert paths["torch.frexp"].overloads == () and paths["torch.frexp"].out == ("frexp.Tensor_out",)
    assert not ambiguous


def test_functional_conditions_are_read_from_the_source():
    from npu_lint.generate.python_apis import ApiPath, FunctionalResolver

    source = textwrap.dedent("""\
        import torch
        def interpolate(input, size=None, mode="nearest", antialias=False):
            if has_torch_function_unary(input):
                return handle_torch_function(interpolate, (input,), input)
            if input.dim() == 4 and mode == "lanczos":
                return torch._C._nn._upsample_lanczos2d_aa(input, size)
            return torch._C._nn.upsample_nearest2d(input, size)
        def huber_loss(input, target):
            return torch._C._nn.huber_loss(input, target)
        huber = huber_loss
        """)
    aten = {"torch._C._nn._upsample_lanczos2d_aa": ApiPath("torch._C._nn._upsample_lanczos2d_aa", "cpu-fallback",
                                                         ("_upsample_lanczos2d_aa",)),
            "torch._C._nn.huber_loss": ApiPath("torch._C._nn.huber_loss", "cpu-fallback", ("huber_loss",))}
    resolver = FunctionalResolver(source, aten)
    [lanczos] = resolver.resolve("interpolate")
    assert lanczos.when == ("mode='lanczos'@2",) and lanczos.overloads == ("_upsample_lanczos2d_aa",)
    [alias] = resolver.resolve("huber")
    assert alias.when == () and alias.overloads == ("huber_loss",)


ASCEND_SAMPLE = """\
### torch.is_storage

<div style="margin-left: 2em">

**原生文档**：[torch.is_storage](https://pytorch.org/docs/2.13/generated/torch.is_storage.html)

**支持情况**：

| 硬件 | 是否支持 |
| ---- | :----: |
| <term>Atlas A2 训练系列产品</term> | ✔ |
| <term>Atlas A3 训练系列产品</term> | ✔ |
| <term>Ascend 950DT</term> | ✘ |

</div>

> <font size="3">acos_()</font>

<div style="margin-left: 2em">

**原生文档**：[Tensor.acos_](https://pytorch.org/docs/2.13/generated/torch.Tensor.acos_.html)

**支持情况**：

| 硬件 | 是否支持 |
| ---- | :----: |
| <term>Atlas A2 训练系列产品</term> | ✔ |
| <term>Atlas A3 训练系列产品</term> | ✔ |
| <term>Ascend 950DT</term> | ✔ |

**限制与说明**：

- `self`仅支持fp16，fp32
- <term>Atlas A3 训练系列产品</term>额外支持bf16
- 可能回退至CPU执行

</div>
"""


def test_ascend_list_parser():
    from npu_lint.generate.ascend_lists import parse_file

    storage, acos = parse_file(ASCEND_SAMPLE, "torch.md")
    assert storage.name == "torch.is_storage" and storage.unsupported_on == ("950DT",)
    assert acos.name == "torch.Tensor.acos_" and acos.falls_back == "may"
    assert acos.dtypes == {"self": ("fp16", "fp32")}
    assert acos.allowed("A3", "self") == ("fp16", "fp32", "bf16")
    assert acos.rejects("A2", "self", "fp64") and not acos.rejects("A2", "self", "fp32")


def test_ascend_list_2_13_from_the_shared_folder():
    from npu_lint.generate.ascend_lists import read_list

    listed = read_list(_needs_ascend_lists() / "pytorch_2-13-0")
    assert listed.torch == "2.13.0" and listed.files == 62 and len(listed.entries) > 3000
    gelu = listed.entries["torch.nn.functional.gelu"]
    assert gelu.dtypes["input"] == ("bf16", "fp16", "fp32")
    assert listed.entries["torch.Tensor.nextafter_"].falls_back == "yes"


# -- regenerating -------------------------------------------------------------------------------------

@pytest.mark.network
def test_committed_data_matches_the_wheels():
    _needs_ascend_lists()
    proc = subprocess.run([sys.executable, "-m", "npu_lint.generate.operators", "--check", "--quiet"],
                          cwd=REPO, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.network
def test_design_reading_reproduces_design_counts():
    """docs/operators.md's explanation: four counting choices turn our 2.13 classes into DESIGN.md's."""
    _needs_ascend_lists()
    from npu_lint.generate import operators
    from npu_lint.generate.operator_docs import DESIGN_COUNTS, design_reading
    from npu_lint.generate.operator_facts import read_release
    from npu_lint.generate.wheel_cache import fetch_wheel

    release = next(r for r in operators.RELEASES if r.torch_npu == "2.13.0")
    wheel, sha = operators.TORCH_WHEELS["2.13.0"]
    torch_path = fetch_wheel("torch==2.13.0", wheel, sha, operators.PIP_PLATFORM_ARGS)
    npu_path = fetch_wheel("torch-npu==2.13.0", release.wheel, release.sha256, operators.PIP_PLATFORM_ARGS)
    result = read_release("2.13.0", "2.13.0", str(torch_path), str(npu_path), None, frozenset())
    reading, _groups = design_reading(result)
    assert {c: reading[c] for c in DESIGN_COUNTS} == DESIGN_COUNTS
    assert result.classes["gelu"] == result.classes["argmax"] == result.classes["scatter.src"] == "delegated"
    assert re.match(r"^(npu|delegated)$", result.classes["isin.Tensor_Tensor_out"])
