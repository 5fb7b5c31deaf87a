"""The whole CUDA surface: every torch.cuda name classified, every device argument that
transfer_to_npu rewrites found statically, every replacement one torch_npu really has."""
from __future__ import annotations

import collections
import inspect

import pytest
import yaml

from npu_lint.core.findings import Applicability
from npu_lint.engine.engine import Engine
from npu_lint.knowledge import release_data, torch_model
from npu_lint.knowledge.cuda_surface import cuda_names, npu_equivalent
from npu_lint.knowledge.loader import shipped_rules
from npu_lint.knowledge.location import data_file

CUDA_SUBMODULES = ("amp", "random", "memory", "streams", "graphs", "nvtx", "jiterator", "comm", "nccl",
                   "sparse", "tunable")
DEFAULT = release_data.default_release()


def public_cuda_names() -> list[str]:
    names = [f"torch.cuda.{n}" for n in sorted(torch_model.public_names("torch.cuda")) if not n.startswith("_")]
    for sub in CUDA_SUBMODULES:
        if torch_model.has_module(f"torch.cuda.{sub}"):
            names += [f"torch.cuda.{sub}.{n}" for n in sorted(torch_model.public_names(f"torch.cuda.{sub}"))
                      if not n.startswith("_")]
    return names


@pytest.fixture(scope="module")
def engine():
    return Engine()


def _codes_per_line(engine, lines: list[str]) -> dict[int, list[str]]:
    text = "import torch\nimport torch_npu\n" + "\n".join(lines) + "\n"
    result = engine.check_text(text, "surface.py")
    assert not result.problems
    found = collections.defaultdict(list)
    for finding in result.findings:
        found[finding.start.line - 2].append(finding.code)
        # a torch.cuda call's device string is part of the call's finding, as a related location
        found[finding.start.line - 2] += [r.message.split(":", 1)[0] for r in finding.related
                                          if r.message.startswith("NPU110:")]
    return found


def test_every_public_torch_cuda_name_is_classified(engine):
    names = public_cuda_names()
    assert len(names) > 250, "the torch model lost torch.cuda names"
    found = _codes_per_line(engine, [f"{name}" for name in names])
    unclassified = [name for i, name in enumerate(names, start=1)
                    if sorted(found.get(i, [])) not in (["NPU101"], ["NPU102"])]
    assert not unclassified, f"{len(unclassified)} torch.cuda names not classified: {unclassified[:10]}"


def test_names_without_equivalent_say_what_to_do(engine):
    found = engine.check_text("import torch\ntorch.cuda.jiterator\ntorch.cuda.tunable.enable()\n", "a.py").findings
    messages = [f.message for f in found if f.code == "NPU102"]
    assert "JIT kernel compiler" in messages[0] and "TunableOp" in messages[1]


def test_is_built_as_a_device_test_points_to_npu_availability(engine):
    # neuraloperator's tests: `"cuda" if torch.backends.cuda.is_built() else "cpu"`
    text = 'import torch\ndevice = "cuda" if torch.backends.cuda.is_built() else "cpu"\n'
    found = engine.check_text(text, "a.py").findings
    messages = [f.message for f in found if f.code == "NPU131"]
    assert len(messages) == 1 and "torch.npu.is_available()" in messages[0]


def _transfer_lists():
    facts = release_data.facts(DEFAULT)
    return [
        *(f"torch.{fn}({{}})" for fn in sorted(facts.torch_fn_white_list)),
        *(f"torch.ones(1).{fn}({{}})" for fn in sorted(facts.torch_tensor_fn_white_list)),
        *(f"torch.nn.Linear(1, 1).{fn}({{}})" for fn in sorted(facts.torch_module_fn_white_list)),
        *(f"torch.cuda.{fn}({{}})" for fn in sorted(facts.torch_cuda_fn_white_list)),
    ]


@pytest.mark.parametrize("keyword", sorted(release_data.facts(DEFAULT).device_kwargs))
def test_every_device_argument_transfer_to_npu_rewrites_is_found(engine, keyword):
    calls = _transfer_lists()
    assert len(calls) == 47 + 8 + 2 + 24
    cuda = _codes_per_line(engine, [call.format(f"{keyword}='cuda:0'") for call in calls])
    missed = [call for i, call in enumerate(calls, start=1) if "NPU110" not in cuda.get(i, [])]
    assert not missed, f"device argument not found in: {missed}"
    cpu = _codes_per_line(engine, [call.format(f"{keyword}='cpu'") for call in calls])
    assert not any("NPU110" in codes or "NPU111" in codes for codes in cpu.values())


def test_positional_device_of_torch_cuda_functions_is_found(engine):
    positions = yaml.safe_load(data_file("arguments.yaml"))["roles"]["device"]["positional"]
    facts = release_data.facts(DEFAULT)
    calls = []
    for fn in sorted(facts.torch_cuda_fn_white_list):
        index = positions[f"torch.cuda.{fn}"]
        args = ["None"] * index + ["'cuda:0'"]
        calls.append(f"torch.cuda.{fn}({', '.join(args)})")
    found = _codes_per_line(engine, calls)
    missed = [call for i, call in enumerate(calls, start=1) if "NPU110" not in found.get(i, [])]
    assert not missed


@pytest.mark.torch
def test_device_positions_match_torchs_signatures():
    import torch  # noqa: F401  (the names below are evaluated against real torch)

    positions = yaml.safe_load(data_file("arguments.yaml"))["roles"]["device"]["positional"]
    for name, index in positions.items():
        if not name.startswith("torch.cuda.") or name == "torch.cuda.device":
            continue
        params = list(inspect.signature(eval(name)).parameters)
        assert params[index] == "device", (name, index, params)


@pytest.mark.torch
def test_device_mesh_positions_match_torchs_signatures():
    import importlib

    positions = yaml.safe_load(data_file("arguments.yaml"))["roles"]["device"]["positional"]
    meshes = {name: index for name, index in positions.items() if name.startswith("torch.distributed.")}
    assert meshes, "the device mesh rows are gone from data/arguments.yaml"
    for name, index in meshes.items():
        params = list(inspect.signature(_resolve(name, importlib)).parameters)
        assert params[index] == "device_type", (name, index, params)


def _resolve(name: str, importlib):
    """`torch.distributed.DeviceMesh.from_group`: the longest importable module, then attributes."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:end]))
        except ImportError:
            continue
        for attribute in parts[end:]:
            found = getattr(found, attribute)
        return found
    raise ImportError(name)


def _npu_provides(replacement: str, facts) -> bool:
    """Independent of cuda_surface: read the wheel facts directly."""
    parts = replacement.split(".")[2:]
    if not parts or ".".join(parts) in facts.npu_submodules:
        return True
    if len(parts) == 1:
        return parts[0] in facts.npu_all | facts.npu_unlisted  # torch.npu is torch_npu.npu itself
    parent = ".".join(parts[:-1])
    if parent in facts.npu_submodules and parent != "mstx":  # mstx is a class in torch.npu
        return parts[-1] in facts.npu_submodules[parent]
    return parts[0] in facts.npu_all | facts.npu_unlisted  # an attribute of a class, e.g. Event.record


@pytest.mark.parametrize("release", release_data.releases())
def test_no_replacement_names_what_torch_npu_lacks(release):
    facts = release_data.facts(release)
    for name in public_cuda_names() + list(cuda_names().renames):
        replacement = npu_equivalent(name, release)
        if replacement is not None:
            assert _npu_provides(replacement, facts), (release, name, replacement)


def test_symbol_replacements_exist_in_torch_npu():
    facts = release_data.facts(DEFAULT)
    alias_targets = {target.rsplit(".", 1)[-1] for target in facts.aliases.values()}
    backends = {new for table in facts.string_replacements.values() for new in table.values()}
    for rule in shipped_rules():
        new = rule.match.get("replace_last") if rule.kind == "symbol" else None
        if new is None:
            continue
        assert new in alias_targets or new.lower() in backends, (rule.code, new)


def test_names_outside_all_of_torch_npu_npu_have_an_equivalent():
    for release in release_data.releases():
        assert npu_equivalent("torch.cuda.default_generators", release) == "torch.npu.default_generators"
        assert npu_equivalent("torch.cuda._lazy_call", release) == "torch.npu._lazy_call"
    assert npu_equivalent("torch.cuda._no_such_name", release_data.default_release()) is None


def test_transfer_to_npu_patches_only_the_names_of_all():
    # torch_npu's _apply_patches copies `torch_npu.npu.__all__` into torch.cuda; torch.cuda's own
    # `_initialized` and `_lazy_init` stay CUDA's under the patch
    from npu_lint.knowledge.cuda_surface import patched_by_transfer_to_npu
    for release in release_data.releases():
        assert patched_by_transfer_to_npu("torch.cuda.is_initialized", release)
        assert not patched_by_transfer_to_npu("torch.cuda._initialized", release)
        assert not patched_by_transfer_to_npu("torch.cuda._lazy_init", release)


def test_a_stand_in_is_named_but_never_rewritten_by_itself():
    # torch_npu's get_device_capability returns None (unless TORCH_NPU_DEVICE_CAPABILITY is set):
    # `major, minor = ...` would raise TypeError after a rename.
    text = ("import torch\nfrom torch.cuda import get_device_capability, synchronize\n"
            "major, minor = torch.cuda.get_device_capability(0)\nsynchronize()\n")
    findings = Engine().check_text(text).findings
    capability = [f for f in findings if "get_device_capability" in f.message]
    assert [f.start.line for f in capability] == [2, 3]
    assert all("returns None" in f.message and f.fix.applicability is Applicability.DISPLAY_ONLY
               for f in capability)
    # the import moves as a whole, so the other name's fix must not move it either
    sync = [f for f in findings if f.start.line == 2 and "synchronize" in f.message]
    assert sync and not sync[0].fix.edits


@pytest.mark.parametrize("text, rewritten_line, named", [
    # f5-tts runtime/triton_trtllm/benchmark.py: `torch.cuda.current_stream().cuda_stream` for
    # TensorRT. torch_npu's streams bind `npu_stream`, not `cuda_stream`: the renamed call would
    # raise AttributeError. A stream used for anything else is still rewritten.
    ("import torch\n"
     "handle = torch.cuda.current_stream().cuda_stream\n"
     "stream = torch.cuda.Stream()\n"
     "raw = stream.cuda_stream\n"
     "torch.cuda.current_stream().synchronize()\n", 5, "npu_stream"),
    # xDiT's AITER probes: `torch.cuda.get_device_properties(0).gcnArchName if
    # torch.cuda.is_available() else ""`, then `"gfx942" in arch_name`. torch_npu's properties
    # leave gcnArchName None, so the renamed code raises TypeError where it said "" before.
    # The same call read for its memory is still rewritten.
    ("import torch\n"
     "arch_name = (torch.cuda.get_device_properties(0).gcnArchName\n"
     "             if torch.cuda.is_available() else \"\")\n"
     "total = torch.cuda.get_device_properties(0).total_memory\n", 4, "gcnArchName"),
])
def test_a_value_read_for_what_the_npu_lacks_is_named_but_not_rewritten(text, rewritten_line, named):
    findings = {f.start.line: f for f in Engine().check_text(text).findings if f.code == "NPU101"}
    assert sorted(findings) == [2, 3, rewritten_line]
    for line in (2, 3):
        assert findings[line].fix.applicability is Applicability.DISPLAY_ONLY
    assert named in findings[2].message
    assert findings[rewritten_line].fix.applicability is Applicability.SAFE and findings[rewritten_line].fix.edits


def test_a_device_string_test_before_a_use_without_fix_is_not_rewritten_alone():
    # f5-tts infer/utils_infer.py: the string test keeps get_device_properties(...).major (a
    # stand-in on the NPU, display-only) off other devices; "npu" there would run it on the NPU.
    # The comparison of `.major` is the test, as a comparison of the whole capability is, so the
    # string compared beside it is that finding's, display-only with it.
    # The same test before a use that is fixed keeps its own fix.
    text = ("import torch\n"
            "def asr_dtype(device):\n"
            "    return (torch.float16 if \"cuda\" in device\n"
            "            and torch.cuda.get_device_properties(device).major >= 7 else torch.float32)\n"
            "def whole_capability(device):\n"
            "    return \"cuda\" in device and torch.cuda.get_device_capability(device) >= (7, 0)\n"
            "def half_ok(device):\n"
            "    return \"cuda\" in device and torch.cuda.get_device_name().startswith(\"NVIDIA\")\n")
    findings = {(f.start.line, f.code): f for f in Engine().check_text(text).findings}
    for test_line, string_line in ((4, 3), (6, 6)):
        finding = findings[(test_line, "NPU101")]
        assert finding.fix.applicability is Applicability.DISPLAY_ONLY
        assert [(r.start.line, r.folded) for r in finding.related] == [(string_line, "NPU111")]
        assert (string_line, "NPU111") not in findings
    assert findings[(8, "NPU111")].fix.applicability is Applicability.UNSAFE


# farm-haystack 1.26.4 haystack/modeling/model/optimization.py (`class WrappedDataParallel(DataParallel)`
# at the top) and modeling/training/base.py: `if torch.cuda.device_count() > 1 and device.type ==
# "cuda":` around DataParallel, which fails on the NPU (NPU140) and has no fix. On an Ascend host the
# test keeps DataParallel off as the code stands; renamed, it would send the NPU into it.
GUARDS_DATA_PARALLEL = (
    "import torch\n"
    "from torch.nn import DataParallel\n"
    "class WrappedDataParallel(DataParallel):\n"
    "    pass\n"
    "def optimize(model, device):\n"
    "    if torch.cuda.device_count() > 1 and device.type == \"cuda\":\n"
    "        model = WrappedDataParallel(model) if not isinstance(model, DataParallel) else model\n"
    "    return model\n"
    "def distill(loss, device):\n"
    "    if torch.cuda.device_count() > 1 and device.type == \"cuda\":\n"
    "        loss = DataParallel(loss).to(device)\n"
    "    return loss\n"
    "def single(model, device):\n"
    "    if device.type == \"cuda\":\n"
    "        model = torch.nn.DataParallel(model)\n"
    "    return model\n"
)
# Near misses: the same tests around code the NPU runs, or that only asks whether the model is wrapped.
GUARDS_NOTHING_FAILING = (
    "import torch\n"
    "from torch.nn import DataParallel\n"
    "def optimize(model, device):\n"
    "    if torch.cuda.device_count() > 1 and device.type == \"cuda\":\n"
    "        model = model.half()\n"
    "    return model\n"
    "def unwrap(model):\n"
    "    if torch.cuda.device_count() > 1:\n"
    "        return model.module if isinstance(model, DataParallel) else model\n"
    "    return model\n"
    "def single(model, device):\n"
    "    if device.type == \"cuda\":\n"
    "        model = torch.nn.parallel.DistributedDataParallel(model)\n"
    "    return model\n"
)


def test_a_test_keeping_data_parallel_off_the_npu_is_not_rewritten_alone():
    findings = [f for f in Engine().check_text(GUARDS_DATA_PARALLEL).findings if f.code in ("NPU101", "NPU111")]
    # one test, one finding: the device string joins the torch.cuda call's, as it does where both are fixed
    assert {(f.start.line, f.code) for f in findings} == {(6, "NPU101"), (10, "NPU101"), (14, "NPU111")}
    for finding in findings:
        assert finding.fix.applicability is Applicability.DISPLAY_ONLY, finding
        assert "DataParallel" in finding.message + finding.fix.message, finding


def test_the_same_tests_around_code_the_npu_runs_keep_their_fix():
    findings = [f for f in Engine().check_text(GUARDS_NOTHING_FAILING).findings if f.code in ("NPU101", "NPU111")]
    assert {f.start.line for f in findings} == {4, 8, 12}
    for finding in findings:
        assert finding.fix.edits and finding.fix.applicability is not Applicability.DISPLAY_ONLY, finding


def test_a_neutral_name_replaces_from_its_release_on_and_is_torchs_own():
    releases = release_data.releases()
    assert cuda_names().neutral, "data/cuda_names.yaml lists no neutral names"
    for qname, (name, since) in cuda_names().neutral.items():
        module, attribute = name.rsplit(".", 1)
        assert attribute in torch_model.public_names(module), name
        for release in releases:
            expected = name if releases.index(release) >= releases.index(since) else None
            assert npu_equivalent(qname, release) == expected, (qname, release)


def test_a_neutral_entry_names_a_release_torch_npu_had():
    from npu_lint.knowledge import cuda_surface
    from npu_lint.knowledge.loader import RuleDataError

    with pytest.raises(RuleDataError, match="neutral.torch.cuda.X.since"):
        cuda_surface._neutral_table({"torch.cuda.X": {"name": "torch.X", "since": "1.0"}})
    with pytest.raises(RuleDataError, match="neutral.torch.cuda.X"):
        cuda_surface._neutral_table({"torch.cuda.X": {"since": "2.7.1"}})


def test_a_stream_or_event_kept_in_self_and_read_for_its_cuda_handle_is_not_rewritten():
    # bagua's tensor.py: `self._bagua_ready_event = torch.cuda.Event()` in one method, its raw
    # handle `self._bagua_ready_event.cuda_event` handed to the Rust backend in another. torch_npu's
    # events bind `npu_event`, not `cuda_event`, as its streams bind `npu_stream`: the renamed
    # class would raise AttributeError there. Events and streams whose handle nobody reads, and a
    # local of the same name in another class, keep their fix.
    text = ("import torch\n"
            "class Ready:\n"
            "    def __init__(self):\n"
            "        self.event = torch.cuda.Event()\n"
            "        self.stream = torch.cuda.Stream()\n"
            "        self.timer = torch.cuda.Event(enable_timing=True)\n"
            "    def mark(self, backend):\n"
            "        backend.mark_ready(self.event.cuda_event, self.stream.cuda_stream)\n"
            "        return self.timer.elapsed_time(self.event)\n"
            "class Other:\n"
            "    def __init__(self):\n"
            "        self.event = torch.cuda.Event()\n"
            "    def handle(self):\n"
            "        event = torch.cuda.Event()\n"
            "        return event.cuda_event, self.event.query()\n")
    findings = {f.start.line: f for f in Engine().check_text(text).findings if f.code == "NPU101"}
    assert sorted(findings) == [4, 5, 6, 12, 14]
    for line in (4, 5, 14):
        assert findings[line].fix.applicability is Applicability.DISPLAY_ONLY
    assert "npu_event" in findings[4].message and "npu_stream" in findings[5].message
    for line in (6, 12):
        assert findings[line].fix.applicability is Applicability.SAFE and findings[line].fix.edits
