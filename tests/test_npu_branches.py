"""Which paths an NPU machine never takes (analysis/npu_branches.py), one pattern per case."""
from __future__ import annotations

import re
import textwrap

import pytest

from npu_lint.config.settings import Settings
from npu_lint.engine.engine import engine_for

HEADER = "import torch\nimport torch_npu\n"


def codes(body: str, header: str = HEADER) -> list[tuple[int, str]]:
    text = header + textwrap.dedent(body)
    result = engine_for(Settings()).check_text(text, "snippet.py")
    assert not result.problems
    return [(f.start.line - header.count("\n"), f.code) for f in result.findings]


@pytest.mark.parametrize("body", [
    # nested `else: if` is an `elif`
    """
    if torch_npu is not None:
        device = "npu"
    else:
        if torch.cuda.is_available():
            device = "cuda"
    """,
    # a chain of conditional expressions
    """
    device = "npu" if hasattr(torch, "npu") else "cuda" if torch.cuda.is_available() else "cpu"
    """,
    # `and` keeps the NPU test's meaning; `not` turns it
    """
    if not (hasattr(torch, "npu") and torch.npu.is_available()):
        torch.cuda.synchronize()
    """,
    # `or` with an NPU test covers the NPU, whichever comes first
    """
    accelerated = torch.npu.is_available() or torch.cuda.is_available()
    accelerated = torch.cuda.is_available() or torch.npu.is_available()
    """,
    # a def in a branch the NPU skips is never defined there
    """
    if torch.npu.is_available():
        def sync():
            torch.npu.synchronize()
    else:
        def sync():
            torch.cuda.synchronize()
    """,
    # a `raise` for the NPU ends the module there
    """
    if torch.npu.is_available():
        raise ImportError("use the NPU build of this package")
    torch.cuda.synchronize()
    """,
    # one `if` per device, each test narrowed by an `and` (GPTQModel 7.7 utils/threadx.py)
    """
    def discover(include_cuda, include_xpu, include_npu, HAS_NPU):
        discovered = []
        if include_cuda and torch.cuda.is_available():
            for i in range(torch.cuda.device_count()):
                discovered.append(torch.device("cuda", i))
        if include_xpu and hasattr(torch, "xpu") and torch.xpu.is_available():
            for i in range(torch.xpu.device_count()):
                discovered.append(torch.device("xpu", i))
        if include_npu and HAS_NPU:
            for i in range(torch.npu.device_count()):
                discovered.append(torch.device("npu", i))
        return discovered
    """,
    """
    def normalize(d, HAS_NPU):
        if torch.cuda.is_available():
            return torch.device("cuda", d)
        if hasattr(torch, "xpu") and torch.xpu.is_available():
            return torch.device("xpu", d)
        if HAS_NPU:
            return torch.device("npu", d)
        return torch.device("cpu")
    """,
])
def test_off_the_npu_path(body):
    assert codes(body) == []


@pytest.mark.parametrize("body, expected", [
    # `or` does not say which device
    ("""
    if torch.npu.is_available() or torch.cuda.is_available():
        torch.cuda.synchronize()
    """, [(3, "NPU101")]),
    # a count compared with a number says nothing about which branch the NPU takes
    ("""
    npu_count = 0
    if npu_count == 0:
        torch.cuda.synchronize()
    """, [(4, "NPU101")]),
    # the NPU's own branch runs on the NPU
    ("""
    if torch.npu.is_available():
        device = torch.device("cuda")
    """, [(3, "NPU110")]),
    # an early return that is not about the NPU
    ("""
    def f(x):
        if x:
            return 1
        torch.cuda.synchronize()
    """, [(5, "NPU101")]),
    # a branch naming the NPU in a chain that does not test the device
    ("""
    import sys
    if "--profile" in sys.argv:
        torch.cuda.synchronize()
    else:
        model = torch.nn.Linear(2, 2).npu()
    """, [(4, "NPU101")]),
    # an `and` with something else than a device test does not make a family of device tests
    ("""
    def normalize(d, use_fast, HAS_NPU):
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        if use_fast and d > 0:
            d = 0
        if HAS_NPU:
            d = torch.device("npu", d)
        return d
    """, [(3, "NPU101"), (4, "NPU101")]),
    # a list beside something else than the NPU
    ("""
    DEVICES = ["cuda", "xpu"]
    """, [(2, "NPU111")]),
])
def test_still_reported(body, expected):
    assert codes(body) == expected


def test_the_text_precheck_finds_every_way_the_rules_name_the_npu():
    """`may_name_npu` lets ModuleContext skip the walk up from each finding in a module that
    cannot name the NPU; it must hold wherever `names_npu` or an "npu" device string would."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from npu_lint.analysis.names import identifier_words
    from npu_lint.analysis.npu_branches import _NPU_STRING, may_name_npu

    pieces = st.sampled_from(["npu", "NPU", "Npu", "nPu", "npU", "in", "put", "is_", "_", "A", "ccel", "2", ":0",
                              ".", "torch", "Input", "x", "S", "s"])

    @settings(max_examples=400, deadline=None)
    @given(st.lists(pieces, min_size=1, max_size=6))
    def check(parts):
        text = "".join(parts)
        if "npu" in identifier_words(text) or _NPU_STRING.fullmatch(text):
            assert may_name_npu(text), text

    check()
    assert not may_name_npu("def forward(self, input):\n    return self.inputs(input)\n")
    assert may_name_npu("if is_torch_npu_available():") and may_name_npu("class NPUAccelerator:")
    assert may_name_npu('if device_type in ["cuda", "ascend"]:') and may_name_npu("device == 'Ascend'")


# The one regex `may_name_npu` was written as first: the faster code must answer as it does.
_MAY_NAME_NPU_SPEC = re.compile(
    r"(?<![a-z])npu(?![a-z])|N[Pp][Uu]|n(?:P[Uu]|pU)|version\.(?:cuda|hip)\b|[\"'](?i:ascend)[\"']"
    r"|[\"'](?i:hccl)[\"']|getattr\(torch,|hasattr\(torch,|torch\.(?:musa|mlu|xpu|hpu|mps|sdaa)\.is_available"
    r"|(?<![A-Za-z0-9])is_(?:rocm|hip|musa|mlu|xpu|hpu|mps|sdaa|tpu|out_of_tree)(?:_runtime)?\b"
    r"|(?<![A-Za-z0-9])IS_(?:ROCM|HIP|MUSA|MLU|XPU|HPU|MPS|SDAA|TPU)\b"
    r"|\bdefault_device_backend_map\b")


def test_the_text_precheck_answers_as_its_one_regex_spec():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from npu_lint.analysis.npu_branches import may_name_npu

    pieces = st.sampled_from(["npu", "NPU", "nPu", "npU", "Npu", "i", "put", "is_", "IS_", "hip", "HIP", "rocm",
                              "_runtime", "out_of_tree", "tpu", "x", "9", " ", ".", "'", '"', "ascend", "ASCEND",
                              "hccl", "Hccl", "version", "cuda", "torch", "xpu", "is_available", "getattr(", "hasattr(",
                              "torch,", "default_device_backend_map", "é", "\n", "'hccl'", '"HCCL"', '"Ascend"', "'ascend'",
                              "version.cuda", "version.hip", "torch.xpu.is_available", "is_rocm", "IS_TPU"])

    @settings(max_examples=1500, deadline=None)
    @given(st.lists(pieces, min_size=1, max_size=8))
    def check(parts):
        text = "".join(parts)
        assert may_name_npu(text) is (_MAY_NAME_NPU_SPEC.search(text) is not None), text

    check()


# `torch.version.cuda` and `torch.version.hip` are None on the CPU build of torch that torch_npu
# runs on (transfer_to_npu leaves them alone): a test that needs either is false on every NPU
# machine, whether or not the module names the NPU anywhere.
CUDA_BUILD_HEADER = "import torch\n"


def codes_without_npu(body: str) -> list[tuple[int, str]]:
    return codes(body, CUDA_BUILD_HEADER)


@pytest.mark.parametrize("body", [
    # optimum-quanto 0.2.7 tensor/weights/qbits.py: the AWQ kernel needs a CUDA build
    """
    def create(qtype, data, scale):
        if (
            scale.dtype == torch.float16
            and (data.device.type == "cuda" and torch.version.cuda)
            and torch.cuda.get_device_capability(data.device)[0] >= 8
        ):
            return "awq"
        return "generic"
    """,
    # torchao 0.18 utils.py: an SM-version probe
    """
    def is_sm_at_least_90():
        return (
            torch.cuda.is_available()
            and torch.version.cuda
            and torch.cuda.get_device_capability() >= (9, 0)
        )
    """,
    # an `elif` after a test of a CUDA build: the NPU takes the `else`
    """
    def version_of_build():
        if torch.version.cuda:
            return torch.cuda.get_device_capability()
        elif torch.version.hip:
            return torch.cuda.get_device_properties(0).gcnArchName
        return None
    """,
    # bitsandbytes' cuda_specs.py: a ROCm build is not the NPU's either; `is not None` alike
    """
    if torch.version.hip:
        torch.cuda.synchronize()
    if torch.version.cuda is not None:
        torch.cuda.synchronize()
    """,
])
def test_a_test_of_a_cuda_build_is_off_the_npu_path(body):
    assert codes_without_npu(body) == []


@pytest.mark.parametrize("body, expected", [
    # the branch for a build without CUDA is the NPU's: still reported
    ("""
    if torch.version.cuda is None:
        torch.cuda.synchronize()
    """, [(3, "NPU101")]),
    # `not torch.version.cuda` holds on every build without CUDA: a `raise` under it is no NPU
    # branch, and what follows stays reported (GPTQModel 7.7 exllamav3/util/arch_list.py)
    ("""
    if not torch.version.cuda:
        raise RuntimeError("needs a CUDA build")
    torch.cuda.synchronize()
    """, [(4, "NPU101")]),
    # a test beside it in an `or` still runs on the NPU
    ("""
    if torch.version.cuda or torch.cuda.is_available():
        torch.cuda.synchronize()
    """, [(2, "NPU101"), (3, "NPU101")]),
    # another module's `version.cuda` is not torch's
    ("""
    import mylib
    if mylib.version.cuda:
        torch.cuda.synchronize()
    """, [(4, "NPU101")]),
])
def test_a_cuda_build_test_leaves_the_rest_reported(body, expected):
    assert codes_without_npu(body) == expected


@pytest.mark.parametrize("body", [
    # FastVideo's distributed/parallel_state.py: the platform layer asks for the NPU too
    """
    def graph_capture(current_platform):
        if current_platform.is_cuda_alike():
            stream = torch.cuda.Stream()
            return stream
        elif current_platform.is_npu():
            return None
    """,
    # SGLang's modules store the answers once: `_is_cuda = is_cuda()`, `_is_npu = is_npu()`
    """
    from sglang.srt.utils import is_cuda, is_npu
    _is_cuda = is_cuda()
    _is_npu = is_npu()
    if _is_cuda:
        torch.cuda.synchronize()
    """,
    # a default the NPU's branch replaces right after (FastVideo's init_distributed_environment)
    """
    def init(platform):
        backend = "nccl"
        if platform.is_cuda_alike():
            print("nccl")
        elif platform.is_npu():
            backend = "hccl"
        return backend
    """,
    """
    def pick(is_torch_npu_available):
        device = "cuda"
        if is_torch_npu_available():
            device = "npu"
        return device
    """,
    # a parameter's default that the first statement replaces on the NPU (ATorch's build_mesh)
    """
    def build_mesh(slicing_dim, pg_name_prefix="", device_type="cuda"):
        device_type = "npu" if is_torch_npu_available() else device_type
        return device_type
    """,
    """
    def build_mesh(slicing_dim, *, device_type="cuda"):
        device_type = device_type if not is_torch_npu_available() else "npu"
        return device_type
    """,
    # however far after the checks of other arguments, none reading it (SGLang 0.5.23's weight
    # exporter, eight statements)
    """
    def init_weights_send_group(ports, tp_rank, tp_size, group_name, backend="nccl"):
        reason = unsupported_reason()
        if reason is not None:
            return False, reason
        assert torch.distributed.is_initialized()
        assert group_name != ""
        ports_list = ports.split(",")
        assert len(ports_list) == tp_size
        group_port = ports_list[tp_rank]
        group_name = f"{group_name}_{group_port}_{tp_rank}"
        backend = "hccl" if backend == "nccl" and is_npu() else backend
        return backend
    """,
    # an assignment's default, chosen again the same way
    """
    def pick():
        device = "cuda"
        device = "npu" if is_torch_npu_available() else device
        return device
    """,
    # CUDA's clause of a device-name dispatch that gives the NPU its own (FunASR's AutoModel)
    """
    def build(kwargs, is_npu_available):
        device = kwargs.get("device")
        if (
            (device.startswith("cuda") and not torch.cuda.is_available())
            or (device.startswith("npu") and not is_npu_available())
        ):
            device = "cpu"
        return device
    """,
    # a test of a value that the NPU's branch replaced before it (ATorch's init_distributed)
    """
    def init_distributed(backend, is_torch_npu_available):
        if backend in ["accl", "gloo"]:
            return backend
        if is_torch_npu_available():
            backend = "hccl"
        if backend == "nccl":
            torch.cuda.nccl.version()
        return backend
    """,
    # what runs after an exit unless torch has another accelerator (DLRover's musa_patch)
    """
    def patch_after_import_torch():
        if not hasattr(torch, "musa"):
            return

        def patched_empty(*args, **kwargs):
            if "device" in kwargs and kwargs["device"] == "cuda":
                kwargs["device"] = "musa"
            return args

        torch.empty = patched_empty
        torch.cuda.synchronize()
    """,
    """
    def use_xpu():
        if not torch.xpu.is_available():
            return
        torch.cuda.synchronize()
    """,
])
def test_platform_questions_and_replaced_defaults_are_off_the_npu_path(body):
    assert codes(body) == []


@pytest.mark.parametrize("body, expected", [
    # a module whose platform layer never asks for the NPU: its CUDA question is the one to port
    ("""
    def graph_capture(current_platform):
        if current_platform.is_cuda_alike():
            return torch.cuda.Stream()
    """, [(4, "NPU101")]),
    # only a value that computes nothing counts as a default (a call's is computed on the NPU too)
    ("""
    def pick(is_torch_npu_available, make_device):
        device = make_device("cuda")
        if is_torch_npu_available():
            device = "npu"
        return device
    """, [(3, "NPU111")]),
    # the default is read before the NPU's test replaces it
    ("""
    def pick(is_torch_npu_available):
        device = "cuda"
        print(device)
        if is_torch_npu_available():
            device = "npu"
        return device
    """, [(3, "NPU111")]),
    # a parameter's default read before the NPU's choice, or kept on the NPU's branch
    ("""
    def build_mesh(slicing_dim, device_type="cuda"):
        print(device_type)
        device_type = "npu" if is_torch_npu_available() else device_type
        return device_type
    """, [(2, "NPU111")]),
    ("""
    def init_weights_send_group(ports, tp_rank, group_name, backend="nccl"):
        assert torch.distributed.is_initialized()
        ports_list = ports.split(",")
        group_port = ports_list[tp_rank]
        log(f"group {group_name}_{group_port} on {backend}")
        group_name = f"{group_name}_{group_port}_{tp_rank}"
        backend = "hccl" if backend == "nccl" and is_npu() else backend
        return backend
    """, [(2, "NPU204")]),
    ("""
    def build_mesh(slicing_dim, device_type="cuda"):
        device_type = device_type if is_torch_npu_available() else "cpu"
        return device_type
    """, [(2, "NPU111")]),
    # a device-name test in a function that never tests the name for the NPU
    ("""
    def build(kwargs):
        device = kwargs.get("device")
        if device.startswith("cuda") and not torch.cuda.is_available():
            device = "cpu"
        return device
    """, [(4, "NPU101")]),
    # the NPU's test stands elsewhere, not as a clause of the same `or`
    ("""
    def build(kwargs):
        device = kwargs.get("device")
        if (device.startswith("cuda") and not torch.cuda.is_available()) or kwargs.get("ngpu") == 0:
            device = "cpu"
        if device.startswith("npu"):
            device = "npu:0"
        return device
    """, [(4, "NPU101")]),
    # the NPU's branch replaces the value after the test: the test runs on the NPU first
    ("""
    def init_distributed(backend, is_torch_npu_available):
        if backend == "nccl":
            torch.cuda.nccl.version()
        if is_torch_npu_available():
            backend = "hccl"
        return backend
    """, [(3, "NPU204"), (4, "NPU102")]),
    # an exit unless torch has the NPU (or CUDA) leaves the rest to run on the NPU
    ("""
    def patch_after_import_torch():
        if not hasattr(torch, "npu"):
            return
        torch.cuda.synchronize()
    """, [(5, "NPU101")]),
])
def test_platform_questions_and_defaults_still_reported(body, expected):
    assert codes(body) == expected


def test_exit_unless_other_accelerator_needs_no_npu_in_the_module():
    # DLRover's musa_patch names no NPU at all: its torch.empty wrapper runs on MUSA hosts alone
    body = """
    def patch_after_import_torch():
        if not hasattr(torch, "musa"):
            return

        def patched_empty(*args, **kwargs):
            if "device" in kwargs and kwargs["device"] == "cuda":
                kwargs["device"] = "musa"
            return args

        torch.empty = patched_empty
    """
    assert codes(body, header="import torch\n") == []


# vLLM's tests of ROCm and XPU kernels skip unless the platform layer says so; they run on that
# accelerator alone (the NPU's platform is a plugin), and name no NPU.
PLATFORM_HEADER = "import pytest\nimport torch\nfrom vllm.platforms import current_platform\n"


@pytest.mark.parametrize("body", [
    # tests/kernels/moe/test_rocm_aiter_topk.py
    """
    if not current_platform.is_rocm():
        pytest.skip("This test can only run on ROCm.", allow_module_level=True)

    def test_rocm_aiter_grouped_topk():
        gating_output = torch.randn((4, 8), dtype=torch.bfloat16, device="cuda")
    """,
    # an `or` of reasons to skip, and `not (rocm and ...)`
    """
    if not current_platform.is_rocm() or not is_aiter_found_and_supported():
        pytest.skip("requires AITER on ROCm", allow_module_level=True)
    torch.cuda.synchronize()
    """,
    """
    if not (current_platform.is_rocm() and on_gfx950()):
        pytest.skip("gfx950 only", allow_module_level=True)
    torch.cuda.synchronize()
    """,
    # a module's pytestmark, also in a list
    """
    pytestmark = pytest.mark.skipif(not current_platform.is_rocm(), reason="ROCm-specific tests")

    def test_mxfp8_linear():
        x = torch.randn(16, 32, device="cuda")
    """,
    """
    pytestmark = [pytest.mark.skipif(not current_platform.is_xpu(), reason="XPU only"), pytest.mark.slow]

    class TestXpuOps:
        def test_op(self):
            torch.cuda.synchronize()
    """,
    # one test's mark
    """
    @pytest.mark.skipif(not current_platform.is_rocm(), reason="Only ROCm is supported")
    def test_rocm_aiter_mla_sink():
        torch.cuda.synchronize()
    """,
])
def test_a_test_that_runs_on_another_accelerator_alone_is_off_the_npu_path(body):
    assert codes(body, PLATFORM_HEADER) == []


@pytest.mark.parametrize("body, expected", [
    # skipped unless CUDA: a CUDA test, which the port reads
    ("""
    if not current_platform.is_cuda():
        pytest.skip("This test can only run on CUDA.", allow_module_level=True)
    torch.cuda.synchronize()
    """, [(4, "NPU101")]),
    # skipped *on* ROCm: runs on CUDA (and the NPU)
    ("""
    @pytest.mark.skipif(current_platform.is_rocm(), reason="not on ROCm")
    def test_op():
        torch.cuda.synchronize()
    """, [(4, "NPU101")]),
    # a skip that does not leave on every path, and a call that is no skip
    ("""
    if not current_platform.is_rocm():
        if slow:
            pytest.skip("slow", allow_module_level=True)
        print("not ROCm")
    torch.cuda.synchronize()
    """, [(6, "NPU101")]),
    # a skip mark bound to another name marks no test
    ("""
    mark = pytest.mark.skipif(not current_platform.is_rocm(), reason="ROCm only")

    def test_op():
        torch.cuda.synchronize()
    """, [(5, "NPU101")]),
])
def test_a_test_that_may_run_on_the_npu_is_still_reported(body, expected):
    assert codes(body, PLATFORM_HEADER) == expected


# vLLM's NPU platform is a plugin (vllm-ascend): a module that asks the platform layer
# `is_out_of_tree()` gives the NPU its own branch, and names no NPU.
@pytest.mark.parametrize("body, expected", [
    # vllm/distributed/parallel_state.py `_platform_device_type()`
    ("""
    def _platform_device_type():
        if current_platform.is_cuda_alike():
            return "cuda"
        elif current_platform.is_xpu():
            return "xpu"
        elif current_platform.is_out_of_tree():
            return current_platform.device_name
        else:
            return "cpu"
    """, []),
    # near miss: no plugin's branch in the module, so the CUDA branch is the one to port
    ("""
    def _platform_device_type():
        if current_platform.is_cuda_alike():
            return "cuda"
        elif current_platform.is_xpu():
            return "xpu"
        return "cpu"
    """, [(4, "NPU111")]),
])
def test_a_platform_plugin_branch_is_the_npus(body, expected):
    assert codes(body, PLATFORM_HEADER) == expected


@pytest.mark.parametrize("body, expected", [
    # vllm/models/hy_v4/amd/triton_ihc.py: under transfer_to_npu too, is_rocm() is False on the NPU
    ("""
    def _use_triton(x):
        if current_platform.is_rocm() and x.is_cuda:
            torch.cuda.synchronize()
        return current_platform.is_rocm() and x.is_cuda
    """, []),
    # vllm/utils/torch_utils.py: the ROCm branch
    ("""
    if current_platform.is_rocm():
        torch.cuda.synchronize()
    """, []),
    # near miss: `not is_rocm()` holds on CUDA and the NPU alike
    ("""
    if not current_platform.is_rocm():
        torch.cuda.synchronize()
    """, [(3, "NPU101")]),
    # near miss: an `or` with the ROCm question runs the rest on the NPU
    ("""
    def _use_triton(x):
        if current_platform.is_rocm() or x.is_cuda:
            torch.cuda.synchronize()
    """, [(3, "NPU104"), (4, "NPU101")]),
])
def test_a_question_for_rocm_keeps_its_branch_off_the_npu(body, expected):
    assert codes(body, PLATFORM_HEADER) == expected


@pytest.mark.parametrize("body, expected", [
    # tests/kernels/models/amd/test_dsv41_mono_gfx942.py
    ("""
    def _on_gfx942() -> bool:
        if not current_platform.is_rocm():
            return False
        from vllm.platforms.rocm import on_gfx942

        return on_gfx942()

    if not _on_gfx942():
        pytest.skip("the gfx942 mono kernels need a gfx942 GPU", allow_module_level=True)
    torch.cuda.synchronize()
    """, []),
    # tests/models/kimi_k3/amd_specialized_decode/test_numerics.py: a mark bound to a name
    ("""
    def _on_gfx950() -> bool:
        \"\"\"True on MI355X.\"\"\"
        if not current_platform.is_rocm():
            return False
        return on_gfx950()

    needs_gfx950 = pytest.mark.skipif(not _on_gfx950(), reason="the K3 mono kernels need gfx950 (MI355X)")

    @needs_gfx950
    def test_decode():
        torch.cuda.synchronize()
    """, []),
    # near miss: a helper that answers True off ROCm too
    ("""
    def _on_gpu() -> bool:
        if not current_platform.is_rocm():
            return True
        return on_gfx950()

    if not _on_gpu():
        pytest.skip("needs a GPU", allow_module_level=True)
    torch.cuda.synchronize()
    """, [(9, "NPU101")]),
    # near miss: a helper that takes the platform to ask
    ("""
    def _on(platform) -> bool:
        if not platform.is_rocm():
            return False
        return True

    needs_rocm = pytest.mark.skipif(not _on(current_platform), reason="ROCm")

    @needs_rocm
    def test_decode():
        torch.cuda.synchronize()
    """, [(11, "NPU101")]),
])
def test_a_helper_that_asks_for_rocm_keeps_its_tests_off_the_npu(body, expected):
    assert codes(body, PLATFORM_HEADER) == expected


# torchtune's training/_distributed.py names no NPU: torch's table of each device's backend is
# where the NPU's HCCL comes from, and the module is read for it all the same.
def test_default_replaced_from_torchs_backend_table_in_a_module_naming_no_npu():
    body = """
    def get_distributed_backend(device_type: str) -> str:
        default_device_backend_map = dist.Backend.default_device_backend_map
        backend = "nccl"
        if device_type in default_device_backend_map:
            backend = default_device_backend_map[device_type]
        return backend

    def get_backend_of(device_type: str, backends: dict) -> str:
        backend = "nccl"
        if device_type in backends:
            backend = backends[device_type]
        return backend
    """
    assert codes(body, header="import torch.distributed as dist\n") == [(10, "NPU204")]


@pytest.mark.parametrize("body, expected", [
    # xDiT's tests/test_aiter_mixed_attention.py: a requirement helper that skips unless ROCm,
    # called first by each AITER test
    ("""
    def _require_mha_v4_aiter(backend_name):
        if not torch.cuda.is_available() or torch.version.hip is None:
            pytest.skip("AITER mixed-precision attention requires a ROCm GPU.")
        arch_name = getattr(torch.cuda.get_device_properties(0), "gcnArchName", "")

    def test_aiter_backend(backend_name):
        _require_mha_v4_aiter(backend_name)
        query = torch.randn((1, 4, 128), device="cuda", dtype=torch.bfloat16)
    """, [(3, "NPU101")]),
    # a module-level skip unless a ROCm build
    ("""
    if not torch.version.hip:
        pytest.skip("ROCm only", allow_module_level=True)
    torch.cuda.synchronize()
    """, []),
    # near miss: what comes before the call may run on the NPU
    ("""
    def _require_rocm():
        if torch.version.hip is None:
            raise RuntimeError("requires ROCm")

    def test_registry():
        tensor = torch.empty((1, 128), device="cuda")
        _require_rocm()
    """, [(7, "NPU110")]),
    # near miss: a helper that returns instead of skipping leaves only itself
    ("""
    def _check_rocm():
        if torch.version.hip is None:
            return

    def test_op():
        _check_rocm()
        torch.cuda.synchronize()
    """, [(8, "NPU101")]),
])
def test_a_call_that_skips_unless_rocm_keeps_what_follows_off_the_npu(body, expected):
    assert codes(body, "import pytest\nimport torch\n") == expected


# Ray 2.60 train/torch/config.py: the process group setup tests the backend for NCCL and, in its
# own branch, for HCCL; the module names the NPU nowhere else.
HCCL_HEADER = "import os\nimport torch\nimport torch.distributed as dist\n"


@pytest.mark.parametrize("body, expected", [
    ("""
    def setup(backend):
        if _is_backend_nccl(backend):
            os.environ["TORCH_NCCL_ASYNC_ERROR_HANDLING"] = "1"
        elif backend in ("hccl", "tpu_dist"):
            register_custom_torch_dist_backend(backend)
    """, []),
    ("""
    def setup(backend):
        if backend == "nccl":
            os.environ["TORCH_NCCL_ASYNC_ERROR_HANDLING"] = "1"
        elif backend == "hccl":
            register_custom_torch_dist_backend(backend)
    """, []),
    # the private test function it calls is called nowhere else: its body is off the NPU too
    ("""
    def _is_backend_nccl(backend):
        return backend == "nccl" or any(item.split(":")[1] == "nccl" for item in backend.split(","))

    def setup(backend):
        if _is_backend_nccl(backend):
            os.environ["TORCH_NCCL_ASYNC_ERROR_HANDLING"] = "1"
        elif backend in ("hccl", "tpu_dist"):
            register_custom_torch_dist_backend(backend)
    """, []),
    # near misses: a public function, or one also called on the NPU's path, is still reported
    ("""
    def is_backend_nccl(backend):
        return backend == "nccl"

    def setup(backend):
        if is_backend_nccl(backend):
            os.environ["TORCH_NCCL_ASYNC_ERROR_HANDLING"] = "1"
        elif backend in ("hccl", "tpu_dist"):
            register_custom_torch_dist_backend(backend)
    """, [(3, "NPU204")]),
    ("""
    def _is_backend_nccl(backend):
        return backend == "nccl"

    def setup(backend):
        if _is_backend_nccl(backend):
            os.environ["TORCH_NCCL_ASYNC_ERROR_HANDLING"] = "1"
        elif backend in ("hccl", "tpu_dist"):
            register_custom_torch_dist_backend(backend)
        log(_is_backend_nccl(backend))
    """, [(3, "NPU204")]),
    # near miss: no HCCL branch beside it, so the NPU's port still renames
    ("""
    def setup(backend):
        if _is_backend_nccl(backend):
            os.environ["TORCH_NCCL_ASYNC_ERROR_HANDLING"] = "1"
        elif backend in ("gloo", "tpu_dist"):
            register_custom_torch_dist_backend(backend)
    """, [(4, "NPU211")]),
])
def test_a_branch_beside_a_test_for_hccl_is_off_the_npu_path(body, expected):
    assert codes(body, HCCL_HEADER) == expected


def test_under_transfer_to_npu_the_nccl_branch_beside_hccl_is_still_the_npus():
    # the program keeps asking for "nccl" there, and transfer_to_npu maps it to HCCL
    body = """
    def setup(backend):
        if backend == "nccl":
            os.environ["TORCH_NCCL_ASYNC_ERROR_HANDLING"] = "1"
        elif backend == "hccl":
            register_custom_torch_dist_backend(backend)
    """
    text = HCCL_HEADER + textwrap.dedent(body)
    result = engine_for(Settings(strategy="auto")).check_text(text, "snippet.py")
    assert [(f.start.line - HCCL_HEADER.count("\n"), f.code) for f in result.findings] == [(4, "NPU211")]


# SGLang asks its utils for the host (`from sglang.srt.utils import is_hip, is_npu`) and keeps
# the answers in module flags (`_is_hip = is_hip()`); its kernels ask `is_hip_runtime()`, its
# arg groups the property `get_platform().is_hip`. Each is false on the NPU, as vLLM's
# `current_platform.is_rocm()` is, and names no NPU.
SGLANG_HEADER = ("import torch\nfrom sglang.srt.utils import is_cuda, is_hip, is_npu, is_xpu\n"
                 "from sglang.srt.runtime_context import get_platform\n")


@pytest.mark.parametrize("body, expected", [
    # sglang/srt/layers/quantization/quark_int4fp8_moe.py: the ROCm branch of a module flag
    ("""
    _is_hip = is_hip()
    if _is_hip:
        ON_GFX950 = "gfx950" in torch.cuda.get_device_properties("cuda").gcnArchName
    """, []),
    # sglang/kernels/jit/utils/arch.py
    ("""
    from sglang.kernels.jit.utils.runtime import is_hip_runtime
    def get_default_target_flags():
        if is_hip_runtime():
            device = torch.cuda.current_device()
    """, []),
    # sglang/srt/layers/engram.py: what follows the flag in an `and`
    ("""
    _is_hip = is_hip()
    def lookup(values):
        if _is_hip and values.is_cuda:
            torch.cuda.synchronize()
    """, []),
    # sglang/srt/models/deepseek_v2.py: what follows `not _is_hip` in an `or` runs on ROCm alone
    ("""
    _is_hip = is_hip()
    use_fp8 = not _is_hip or torch.cuda.get_device_capability("cuda") < (9, 4)
    """, []),
    # sglang/srt/arg_groups: the platform's property
    ("""
    if get_platform().is_hip:
        torch.cuda.synchronize()
    """, []),
    # near miss: `not _is_hip` holds on CUDA and the NPU alike
    ("""
    _is_hip = is_hip()
    if not _is_hip:
        torch.cuda.synchronize()
    """, [(4, "NPU101")]),
    # near miss: an operand before `not _is_hip` in the `or` runs on the NPU
    ("""
    _is_hip = is_hip()
    use_fp8 = torch.cuda.get_device_capability("cuda") < (9, 4) or not _is_hip
    """, [(3, "NPU101")]),
    # near miss: a flag bound to another question
    ("""
    _is_hip = is_hip_enabled()
    if _is_hip:
        torch.cuda.synchronize()
    """, [(4, "NPU101")]),
])
def test_sglang_module_flags_for_other_hosts_keep_their_branch_off_the_npu(body, expected):
    assert codes(body, SGLANG_HEADER) == expected


@pytest.mark.parametrize("body, expected", [
    # sglang/srt/utils/common.py get_device_module(): each question of the `or` is false on the NPU
    ("""
    def get_device_module():
        if is_cuda() or is_hip():
            return torch.cuda
        if is_npu():
            return torch.npu
    """, []),
    # near miss: `not (is_cuda() or is_hip())` holds on the NPU and on every other host
    ("""
    def get_device_module():
        if not (is_cuda() or is_hip()):
            return torch.cuda
        if is_npu():
            return torch.npu
    """, [(4, "NPU101")]),
    # near miss: an `or` with a question the NPU may answer "yes" to
    ("""
    def get_device_module(force):
        if is_cuda() or force:
            return torch.cuda
        if is_npu():
            return torch.npu
    """, [(4, "NPU101")]),
])
def test_an_or_of_questions_for_other_hosts_is_off_the_npu(body, expected):
    assert codes(body, SGLANG_HEADER) == expected


# GPTQModel keeps its ROCm answer in a flag of its utils (utils/rocm.py: `IS_ROCM =
# torch.version.hip is not None`) that its modules import; eora/eora.py picks MAGMA for ROCm's
# linalg under it. The imported flag names its question, false on the NPU.
ROCM_FLAG_HEADER = "import torch\nfrom ..utils.rocm import IS_ROCM\n"


@pytest.mark.parametrize("body, expected", [
    # gptqmodel/eora/eora.py
    ("""
    def eigen(matrix, torch_gte_210):
        if IS_ROCM and not torch_gte_210:
            torch.backends.cuda.preferred_linalg_library(backend="magma")
        return torch.linalg.eigh(matrix)
    """, []),
    # near miss: `not IS_ROCM` holds on CUDA and the NPU alike
    ("""
    def eigen(matrix):
        if not IS_ROCM:
            torch.backends.cuda.preferred_linalg_library(backend="magma")
        return torch.linalg.eigh(matrix)
    """, [(4, "NPU131")]),
])
def test_an_imported_flag_named_for_rocm_keeps_its_branch_off_the_npu(body, expected):
    assert codes(body, ROCM_FLAG_HEADER) == expected


@pytest.mark.parametrize("body, expected", [
    # flash-attn 2.8.3's setup.py: the module sets its own flag, to True or False only
    ("""
    if BUILD_TARGET == "rocm" or IS_HIP_EXTENSION:
        IS_ROCM = True
    else:
        IS_ROCM = False
    if not SKIP_CUDA_BUILD and IS_ROCM:
        arch = torch.cuda.get_device_properties("cuda").gcnArchName.split(":")[0]
    """, []),
    # near miss: a flag also set from something else answers more than its name says
    ("""
    if BUILD_TARGET == "rocm":
        IS_ROCM = True
    else:
        IS_ROCM = torch.cuda.is_available()
    if not SKIP_CUDA_BUILD and IS_ROCM:
        arch = torch.cuda.get_device_properties("cuda").gcnArchName.split(":")[0]
    """, [(5, "NPU101"), (7, "NPU101")]),
])
def test_a_flag_the_module_sets_to_true_or_false_named_for_rocm_keeps_its_branch_off_the_npu(body, expected):
    assert codes(body, "import torch\n") == expected


def test_an_imported_flag_named_for_something_else_is_no_rocm_question():
    header = "import torch\nfrom ..utils.rocm import USE_MAGMA\n"
    body = """
    if USE_MAGMA:
        torch.backends.cuda.preferred_linalg_library(backend="magma")
    """
    assert codes(body, header) == [(3, "NPU131")]


@pytest.mark.parametrize("text", ["backend = 'hccl\"", "name = \"Ascend'", "x = 'ascend'", "ascend_home = 1"])
def test_the_text_precheck_takes_either_quote_around_ascend_and_hccl(text):
    """The spec's `["'](?i:ascend)["']` takes a quote of either kind on each side; the fast check
    must answer the same (hypothesis found `'ascend"`)."""
    from npu_lint.analysis.npu_branches import may_name_npu

    assert may_name_npu(text) is (_MAY_NAME_NPU_SPEC.search(text) is not None)
