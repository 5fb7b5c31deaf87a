"""Where a device or environment-variable string is no device choice (analysis/environment.py,
analysis/cuda_library_guards.py), one pattern per case."""
from __future__ import annotations

import textwrap

import astroid
import pytest

from npu_lint.analysis.cuda_library_guards import guards_cuda_library
from npu_lint.analysis.environment import environment_use
from npu_lint.config.settings import Settings
from npu_lint.engine.engine import engine_for
from npu_lint.run.fixer import Fixer


def findings(body: str, select: str) -> list[tuple[int, str, str]]:
    result = engine_for(Settings(select=(select,))).check_text(textwrap.dedent(body), "snippet.py")
    assert not result.problems
    return [(f.start.line, f.code, f.fix.applicability.value if f.fix else "") for f in result.findings]


def marked(body: str) -> astroid.nodes.NodeNG:
    """The node the `#<` comment's line points at: its first "cuda" string or `.is_cuda`."""
    text = textwrap.dedent(body)
    line = next(number for number, row in enumerate(text.splitlines(), 1) if row.endswith("#<"))
    module = astroid.parse(text)
    for node in module.nodes_of_class((astroid.nodes.Const, astroid.nodes.Attribute)):
        if node.lineno == line and (getattr(node, "value", None) == "cuda"
                                    or getattr(node, "attrname", None) in ("is_cuda", "is_available")):
            return node
    raise AssertionError("no marked node")


@pytest.mark.parametrize("body", [
    # the branch uses the library
    """
    import cupy
    def f(x):
        if x.device.type == "cuda":  #<
            return cupy.asarray(x)
    """,
    # a module bound by an optional import
    """
    cp, has_cp = optional_import("cupy")
    def f(x):
        return cp.asarray(x) if x.is_cuda else x.numpy()  #<
    """,
    # the test held by a name
    """
    import numpy
    def f(x):
        is_cuda = x.is_cuda  #<
        return (convert_to_cupy if is_cuda else numpy.asarray)(x)
    """,
    # an `and` beside the library's availability
    """
    def f(x, has_xformers):
        use_fast = has_xformers and x.device.type == "cuda"  #<
        return use_fast
    """,
    # a test that ends the path before the library (diffusers attention_processor.py)
    """
    import torch
    import xformers.ops
    def f(q):
        if not torch.cuda.is_available():  #<
            raise ValueError("xformers needs CUDA")
        return xformers.ops.memory_efficient_attention(q, q, q)
    """,
])
def test_cuda_library_guard(body):
    assert guards_cuda_library(marked(body))


@pytest.mark.parametrize("body", [
    """
    import cupy
    def f(x):
        if x.device.type == "cuda":  #<
            x = x.cpu()
        return cupy.asarray(x.numpy())
    """,
    """
    import cupy
    device = "cuda"  #<
    if device == "npu":
        cupy.zeros(3)
    """,
])
def test_not_a_cuda_library_guard(body):
    assert not guards_cuda_library(marked(body))


@pytest.mark.parametrize("expression, on_environment", [
    ('os.environ["CUDA_VISIBLE_DEVICES"]', True),
    ('os.environ.get("CUDA_VISIBLE_DEVICES")', True),
    ('"CUDA_VISIBLE_DEVICES" in os.environ', True),
    ('os.getenv("CUDA_VISIBLE_DEVICES")', True),
    ('monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")', True),
    ('mock.patch.dict(os.environ, {"CUDA_VISIBLE_DEVICES": "0"})', True),
    ('subprocess.run(cmd, env={"CUDA_VISIBLE_DEVICES": "0"})', True),
    ('current_env["CUDA_VISIBLE_DEVICES"]', True),
    ('copied["CUDA_VISIBLE_DEVICES"]', True),
    ('settings["CUDA_VISIBLE_DEVICES"]', False),
    ('["CUDA_VISIBLE_DEVICES"]', False),
])
def test_environment_use(expression, on_environment):
    module = astroid.parse(f"import os\ncopied = dict(os.environ)\nx = {expression}\n")
    string = next(node for node in module.nodes_of_class(astroid.nodes.Const)
                  if node.value == "CUDA_VISIBLE_DEVICES")
    assert environment_use(string) is on_environment


def test_environment_variable_fix_is_safe_only_on_an_environment():
    body = """
    import os
    def launch(settings, names=("CUDA_VISIBLE_DEVICES",)):
        env = os.environ.copy()
        env["CUDA_VISIBLE_DEVICES"] = settings["CUDA_VISIBLE_DEVICES"]
        return env
    """
    assert findings(body, "NPU210") == [(3, "NPU210", "unsafe"), (5, "NPU210", "safe")]


def test_a_table_of_getters_keeps_its_keys():
    # xDiT's envs.py (vLLM's layout): the keys are the names the module's __getattr__ answers to
    # (`envs.CUDA_VISIBLE_DEVICES`); renamed, its callers would find nothing. The getter's own
    # read of the environment is the use to port. A dict of values under such a name is an
    # environment (a child's), and its key is ported.
    body = """
    import os
    environment_variables = {
        "CUDA_VISIBLE_DEVICES": lambda: os.environ.get("CUDA_VISIBLE_DEVICES", None),
    }
    child_environment = {"CUDA_VISIBLE_DEVICES": "0,1"}
    """
    result = engine_for(Settings(select=("NPU210",))).check_text(textwrap.dedent(body), "snippet.py")
    assert [(f.start.line, f.start.column, f.fix.applicability.value) for f in result.findings] \
        == [(4, 51, "safe"), (6, 21, "safe")]


@pytest.mark.parametrize("lightning, expected", [
    # sam2's training/trainer.py: its own Trainer's `accelerator` becomes `torch.device("cuda", rank)`,
    # a device name like any other ("npu" there is the port)
    ("", [(3, "NPU111", "unsafe"), (4, "NPU111", "unsafe"), (5, "NPU110", "safe"), (6, "NPU113", ""),
          (8, "NPU113", ""), (10, "NPU111", "unsafe")]),
    # near miss: where Lightning is imported the name is its accelerator's, which has no "npu"
    ("import lightning as L", [(3, "NPU113", ""), (4, "NPU113", ""), (5, "NPU110", "safe"), (6, "NPU113", ""),
                               (8, "NPU113", ""), (10, "NPU113", "")]),
])
def test_accelerator_names_are_lightnings_where_lightning_is_imported(lightning, expected):
    # line 6, near miss too: beside Lightning's `devices`, Fabric's arguments built where it is not
    # imported; line 8 likewise, set on one configuration beside `devices` (PyG GraphGym's
    # auto_select_device, whose cfg its train.py hands to Lightning's Trainer); line 10 has no such sibling
    body = f"""
    import torch; {lightning}
    def setup_device(local_rank, accelerator: str = "cuda"):
        if accelerator == "cuda":
            return torch.device("cuda", local_rank)
    fabric_kwargs = {{"accelerator": "cuda", "devices": 1}}
    def auto_select_device(cfg, run):
        cfg.accelerator = "cuda"
        cfg.devices = 1
        run.accelerator = "cuda"
        run.seed = 1
    """
    assert findings(body, "NPU11") == expected


def test_a_table_of_choices_gets_the_npu_entry_beside_cuda():
    # lm-eval 0.4.13's onnxruntime_ort.py: renamed, the "cuda" alias would pick the CANN provider on
    # a CUDA host; the NPU's entry goes beside it, once, and a key that names no device gets none.
    text = textwrap.dedent("""\
    _EP_ALIASES = {
        "cpu": "CPUExecutionProvider",
        "cuda": "CUDAExecutionProvider",
        "rocm": "ROCMExecutionProvider",
        "trt": "TensorrtExecutionProvider",
    }
    NAMED = {"gpu": "CUDAExecutionProvider", "cpu": "CPUExecutionProvider", "dml": "DmlExecutionProvider"}
    """)
    fixed = Fixer(unsafe=True).fix_text(text, "a.py").text
    assert fixed == text.replace('"cuda": "CUDAExecutionProvider",\n',
                                 '"cuda": "CUDAExecutionProvider",\n    "npu": "CANNExecutionProvider",\n')
    assert Fixer(unsafe=True).fix_text(fixed, "a.py").text == fixed
    assert findings(text, "NPU404") == [(3, "NPU404", "unsafe"), (7, "NPU404", "display-only")]


def test_build_variants_of_a_packaging_script_are_no_devices():
    # torch_cluster 1.6.3's setup.py: setuptools' setup() makes the module a packaging script, whose
    # "cuda" names the CUDA build; a module that only calls a setup() of its own is no such script.
    body = """
    from setuptools import setup
    suffices = ["cpu", "cuda"]
    if __name__ == "__main__":
        setup(name="torch_cluster")
    """
    assert findings(body, "NPU111") == []
    own = """
    def setup(args):
        return args
    suffices = ["cpu", "cuda"]
    setup(suffices)
    """
    assert findings(own, "NPU111") == [(4, "NPU111", "unsafe")]
