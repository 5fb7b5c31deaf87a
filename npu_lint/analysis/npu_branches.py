"""Code the NPU never runs: the other branches of a test that already handles the NPU.

Projects that support several devices pick one in a chain of tests:

    if is_npu_available():            # the NPU's branch
        DEVICE = "npu"
    elif torch.cuda.is_available():   # never reached on an NPU machine
        DEVICE = "cuda"

A human port leaves such a chain alone: its CUDA branch is right for CUDA, and rewriting
`torch.cuda.is_available()` to `torch.npu.is_available()` would send NPU machines into the CUDA
branch with a "cuda" device. So a finding whose node lies on a path an NPU machine does not
take is not reported. A path is off the NPU when

- it is a branch (or a test) of an `if`/`elif`/`else` chain or conditional expression in which
  another branch is the NPU's: its test says "NPU" (`is_npu_available()`, `device.type == "npu"`,
  `torch_npu is not None`, `hasattr(torch, "npu")`, `device_type == "ascend"` (lmdeploy's name
  of the NPU, read so where the tested value is a device), a list of devices that holds the NPU
  (`device_type in {"npu", "xpu"}`: true on the NPU), an environment switch such as
  `os.getenv("FORCE_NPU", "0") == "1"`, mmcv's setup.py), or its body names the NPU (`"npu"`,
  `torch.npu`, `torch_npu`) while its test does not say "not NPU", or it is an `else:` that is
  one `try:` of importing torch_npu (`else: try: import torch_npu; device = "npu"`, xtuner's
  get_device), which imports on an Ascend host alone;
- it is a branch (or a test) of a chain in which another branch tests the backend for HCCL, the
  NPU's own (`elif backend in ("hccl", "tpu_dist"):`, Ray Train's process group setup); not on
  the transfer_to_npu route, where the program keeps asking for "nccl";
- it is the body of a private function of the module (`_is_backend_nccl`) that the module calls
  only on such paths;
- it is the body of a test that says "not NPU" (`if not is_npu_available():`);
- an earlier statement of the same block leaves on the NPU
  (`if is_npu_available(): return "npu"`, also when every branch inside it leaves), also through
  one operand of an `or` (FastVideo's `if current_platform.is_cpu() or current_platform.is_mps()
  or current_platform.is_npu(): return False`) or through `not` a test false on the NPU (`if not
  current_platform.is_cuda_alike(): return None`, where the module asks `is_npu()` too);
- it follows an NPU test that ends an `or` (or a "not NPU" test that ends an `and`), or it
  compares a value with CUDA's name in an `and` with an NPU test (SGLang's weight exporter:
  `backend = "hccl" if backend == "nccl" and is_npu() else backend`): the NPU's own test asks
  whether the value is still CUDA's, to replace it;
- it is listed beside the NPU: `device in ("cuda", "npu")`, `{"cuda": ..., "npu": ...}`, also
  across a `+` of lists and comprehensions (`["cuda"] + [f"npu:{i}" for i in ids]`);
- it is one device's record in a table that holds the NPU's record: a list of calls to one
  constructor, one per device (xinference's `DeviceSpec(name="cuda", ...)` beside
  `DeviceSpec(name="npu", ...)`), or the value of the "cuda" key of a mapping with an "npu" key;
- it is CUDA's case in a run of assertions on one function that holds the NPU's case
  (`assert resolve_device_type("cuda:0") == "cuda"` beside `... ("npu:1") == "npu"`, FunASR's
  tests of its device helper);
- it is the value of a constant named for CUDA in a class or module whose constant named for
  the NPU holds "npu" (MindStudio Probe's `Const`: `NPU_LOWERCASE = 'npu'` beside
  `CUDA_LOWERCASE = 'cuda'`, which the code compares devices with);
- it is the default of `.get` on a mapping with the NPU's own entry
  (`{"npu": "hccl", "xpu": "xccl"}.get(device_type, "nccl")`, ultralytics' trainer; also a
  mapping bound once by name, mineru's `_VISIBLE_DEVICE_ENV_NAMES.get(device_type,
  "CUDA_VISIBLE_DEVICES")`);
- it is the test or body of `if device == "cuda":` whose body leaves or rewrites `device`, in a
  function that also tests `device` for the NPU (`device in {"npu", "xpu"}`,
  `device.startswith("npu")`): "npu" there would take the NPU out of its own test;
- it is a test that lets every device but CUDA into a body holding the NPU's own branch
  (`if device.type != "cuda":` then, inside, `elif hasattr(torch, "npu") and
  torch.npu.is_available(): return torch.npu.synchronize`, torchrl's collector): NPU devices pass
  it into the branch the project wrote for them, and "npu" there would shut them out of it;
- it is the test or body of an `if` that asks whether CUDA is available (or whether the device
  is CUDA: `if "cuda" in str(device):`), next to an `if` that asks for the NPU and does the
  NPU's part (`if is_torch_cuda_available(): ...` then
  `if is_torch_npu_available(): ... torch.npu.get_device_name()`, LLaMA-Factory's env.py;
  axolotl's utils/distributed.py), also past other devices' tests (`if device == "xpu":`
  between, Liger-Kernel's utils.py), also when an `and` narrows the tests
  (`if include_cuda and torch.cuda.is_available():` ... `if include_npu and HAS_NPU:`,
  GPTQModel's utils/threadx.py): each device has its own test;
- it does CUDA's part of what a statement of the same block, `if <NPU test>:`, does for the NPU:
  every torch.cuda name it uses (beyond the test) has its torch.npu twin in that body
  (transformers' Trainer saves and restores each device's RNG state in an `if` per device, and
  `set_seed` seeds CUDA and then, under `if is_torch_npu_available():`, the NPU); also when
  that `if` stands in a `try:` of its own and CUDA's part is a conditional expression
  (MindStudio Probe: `cuda_state = torch.cuda.get_rng_state_all() if torch.cuda.is_available()
  else None`, then `try: import torch_npu` / `if torch.npu.is_available(): npu_state = ...`);
- its test asks for a CUDA (or ROCm) build of torch: `torch.version.cuda` and `torch.version.hip`
  are None on the CPU build of torch that torch_npu runs on, under transfer_to_npu too, so
  `if torch.version.cuda:` and `x.device.type == "cuda" and torch.version.cuda and ...` are
  CUDA's alone (optimum-quanto picks its AWQ and Marlin kernels so, torchao and axolotl probe SM
  versions so) -- this needs no NPU code in the module. Their negations (`not
  torch.version.cuda`, `torch.version.cuda is None`) hold on every build without CUDA, so they
  do not make a branch the NPU's own;
- it stores a CUDA test (false on the NPU) and its NPU twin stands in the same block, the same
  text with `npu` for `cuda` (timm's data loader: `self.is_cuda = device.type == 'cuda' and
  torch.cuda.is_available()`, then `self.is_npu = device.type == 'npu' and
  torch.npu.is_available()`), or stores the NPU's own answer under the twin name (verl:
  `is_cuda_available = torch.cuda.is_available()` beside `is_npu_available = ...`). A statement
  that acts, such as `torch.cuda.synchronize()`, runs on the NPU beside its twin, so it is still
  reported;
- it stores a CUDA test in a flag that only tests off the NPU path read (ChatTTS' select_device:
  `has_cuda = torch.cuda.is_available()`, then `if has_cuda or is_npu_available():` and
  `provider = torch.cuda if has_cuda else torch.npu`): the flag is the project's CUDA-or-NPU
  switch, false on the NPU as it should be; written as one test it would be left alone too;
- it gives torch's name to CUDA's alias in a rename that passes every other name through
  (`device_name = "cuda" if device_name == "gpu" else device_name`, LLaMA-Factory's
  get_torch_device, whose device helper answers "npu" on the NPU), in a module whose own NPU
  value is "npu";
- it is the fallback for a device without a namespace: `except AttributeError: return torch.cuda`
  after `try: return getattr(torch, device_name)` (torchtune), or the default of that lookup
  (`getattr(torch, device_type, torch.cuda)`, torch's save_on_cpu, bitsandbytes' Triton ops);
  on an Ascend host `torch.npu` is there;
- its test asks a platform layer for CUDA (`current_platform.is_cuda_alike()`, `is_cuda()`, or a
  name bound once to one) in a module that asks it for the NPU too (`is_npu()`): FastVideo's and
  SGLang's platform layers answer "CUDA" on CUDA hosts alone; also where the module asks for a
  platform plugin instead (vLLM's `is_out_of_tree()`: the NPU's platform is a plugin, vllm-ascend);
- it is the default of a parameter, of a class's field, or of an option a local name takes
  (`device = kwargs.get("device", "cuda")`, FunASR's AutoModel), that the function, or the class's
  methods, test for the NPU (lmdeploy's `device_type: str = 'cuda'` beside `assert
  self.device_type in ['cuda', 'ascend', 'maca', 'camb']`): the NPU is a value the code takes
  from its callers, and the default is the CUDA hosts';
- it is CUDA's value that a test passes for a parameter of the module's own function whose
  default is the NPU's (vllm-ascend's `_make_group(module_env, backend="nccl")` beside `def
  _make_group(..., backend="hccl")`, in `test_non_hccl_destroy_path_...`): the test asks for the
  other case on purpose;
- it is a default that torch's table of each device's backend replaces right after it
  (`backend = "nccl"` then `if device_type in dist.Backend.default_device_backend_map: backend =
  ...[device_type]`, torchtune's get_distributed_backend): torch_npu registers HCCL for "npu" there;
- it is a default that the NPU's branch of a test right after it replaces (`device = "cuda"`
  then `if is_torch_npu_available(): device = "npu"`), read by nothing in between; a
  parameter's default too, replaced by the function's first statements (`device_type =
  "npu" if is_torch_npu_available() else device_type`); a module's `from torch.cuda import
  manual_seed as device_manual_seed` that, past other imports, `if envs._is_npu(): from torch.npu
  import manual_seed as device_manual_seed` binds anew (xDiT's runtime_state.py);
- it follows, in an `and`, a test of a value for CUDA (`device.startswith("cuda")`) where an
  `or` asks the same of that value for the NPU in a clause of its own (FunASR's AutoModel:
  `device.startswith("cuda") and not torch.cuda.is_available()` or `device.startswith("npu") and
  not is_npu_available()`);
- its test asks whether a value is still CUDA's (`if backend == "nccl":`) after the NPU's branch
  of an earlier test in the function stored the NPU's own (`if is_torch_npu_available():
  backend = "hccl"`, ATorch's init_distributed);
- it is the handler of a failed torch_npu import (`try: import torch_npu` / `except ImportError:
  current_device = "cuda"`, MindStudio Probe's accuracy checker), when nothing else in the `try:`
  can fail: torch_npu imports on an Ascend host;
- it follows `if not hasattr(torch, "musa"): return` (or another accelerator's
  `torch.xpu.is_available()`): the rest runs on that accelerator alone (DLRover's musa_patch);
  also when a platform layer is asked for that accelerator (`if not current_platform.is_rocm():
  pytest.skip(..., allow_module_level=True)`, vLLM's tests of ROCm and XPU kernels: a skip leaves
  as a `raise` does; also `torch.version.hip is None`, and past a call of a function of the module
  whose first statement skips so: xDiT's `_require_mha_v4_aiter(backend_name)` at the top of its
  AITER tests), and in a test that `pytest.mark.skipif(not current_platform.is_rocm(), ...)`
  marks, or in every test of a module whose `pytestmark` is such a mark; the body of
  `if current_platform.is_rocm():` and what follows that question in an `and`
  (`current_platform.is_rocm() and x.is_cuda`, vLLM's hy_v4 ROCm kernels) are that accelerator's
  alone too, and so is what follows `not` such a question in an `or` (SGLang's `not _is_hip or
  torch.cuda.get_device_capability("cuda") < (9, 4)`); the question may be a function, a property
  or a name bound once to one (SGLang's `_is_hip = is_hip()`, its kernels' `is_hip_runtime()`,
  `get_platform().is_hip`, a flag named so that the module imports: GPTQModel's `IS_ROCM`), and
  an `or` of questions each false on the NPU is one (SGLang's
  `if is_cuda() or is_hip(): return torch.cuda`, before `if is_npu(): return torch.npu`); so is what a function of the module asks that answers False unless so
  (`def _on_gfx950(): if not current_platform.is_rocm(): return False`), and a mark bound to a
  name (`needs_gfx950 = pytest.mark.skipif(not _on_gfx950(), ...)`, then `@needs_gfx950`).

A CUDA name inside the NPU's own branch is still reported: that branch runs on the NPU.
"""
from __future__ import annotations

import re
import weakref
from typing import Iterable, Optional

from astroid import nodes
from astroid.exceptions import NoDefault

from npu_lint.analysis.arguments import parameter_of_default
from npu_lint.analysis.environment import environment_use
from npu_lint.analysis.flags import flag_reads
from npu_lint.analysis.names import bindings, identifier_words, is_chain_top, last_name, qualified_name, single_value
from npu_lint.analysis.test_code import in_test_function

POSITIVE, NEGATIVE, UNKNOWN = 1, -1, 0
_NPU_STRING = re.compile(r"npu(?::\d*)?", re.IGNORECASE)
_EXITS = (nodes.Return, nodes.Raise, nodes.Continue, nodes.Break)
_COMPOUND = (nodes.If, nodes.For, nodes.While, nodes.With, nodes.Try, nodes.FunctionDef, nodes.ClassDef)
_SHORT_BRANCH = 3
_DEVICE_WORDS = frozenset({"cuda", "gpu", "gpus", "device", "devices", "accelerator", "cudnn"})
_CUDA_STRING = re.compile(r"cuda(:|$)", re.IGNORECASE)
_DEVICE_NAME = re.compile(r"[a-z]+(:\d*)?", re.IGNORECASE)  # "xpu", "mps", "cuda:0"
_DISPLAYS = (nodes.Tuple, nodes.List, nodes.Set)
_COMPREHENSIONS = (nodes.ListComp, nodes.SetComp, nodes.GeneratorExp)
_OFF_VALUES = frozenset({"", "0", "false", "no", "off", "none"})


# Every way a module can say "NPU" that the rules below read (an identifier word `npu`, an "npu"
# device string or variable name in any case, a quoted "ascend") is found by `may_name_npu`, and a
# device's namespace looked up by name (`getattr(torch, device)`); "input" is not. One regex of all
# of them had no literal to jump to and cost 3% of `check`; these each start with one.
_BUILD_OR_DEVICE_TEST = re.compile(r"version\.(?:cuda|hip)\b|torch\.(?:musa|mlu|xpu|hpu|mps|sdaa)\.is_available")
_OTHER_DEVICE_FLAG = re.compile(r"is_(?:rocm|hip|musa|mlu|xpu|hpu|mps|sdaa|tpu|out_of_tree)(?:_runtime)?\b"
                                r"|IS_(?:ROCM|HIP|MUSA|MLU|XPU|HPU|MPS|SDAA|TPU)\b")
_BACKEND_MAP = re.compile(r"\bdefault_device_backend_map\b")
_ASCII_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_ASCII_ALNUM = _ASCII_LOWER | frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
# torch's table of each device type's default backend: torch_npu's registration of HCCL
# (`Backend.register_backend("hccl", ..., devices=["npu"])`) puts "npu": "hccl" in it.
_DEVICE_BACKEND_TABLES = frozenset({"torch.distributed.Backend.default_device_backend_map",
                                    "torch.distributed.distributed_c10d.Backend.default_device_backend_map"})
# torch's build versions that are None on the build torch_npu runs on.
_CUDA_BUILD_VERSIONS = frozenset({"torch.version.cuda", "torch.version.hip"})


def may_name_npu(text: str) -> bool:
    """False when the source text cannot hold a test or body that names the NPU, nor a test of
    a CUDA build of torch: then no path of it is off the NPU's, and `off_npu_path` need not walk
    up from each finding."""
    lowered = text.lower()
    start = lowered.find("npu")
    while start >= 0:  # `npu` as a word of its own, or with a capital anywhere (`NPU`, `isNpu`)
        written = text[start:start + 3]
        if written != "npu" or (start == 0 or text[start - 1] not in _ASCII_LOWER) \
                and text[start + 3:start + 4] not in _ASCII_LOWER:
            return True
        start = lowered.find("npu", start + 1)
    for word in ("ascend", "hccl"):  # in quotes of either kind: `"ascend"`, also `'ascend"` as the spec says
        start = lowered.find(word)
        while start >= 0:
            end = start + len(word)
            if start > 0 and lowered[start - 1] in "'\"" and lowered[end:end + 1] in ("'", '"'):
                return True
            start = lowered.find(word, start + 1)
    if "getattr(torch," in text or "hasattr(torch," in text or _BUILD_OR_DEVICE_TEST.search(text):
        return True
    if any(match.start() == 0 or text[match.start() - 1] not in _ASCII_ALNUM
           for match in _OTHER_DEVICE_FLAG.finditer(text)):
        return True
    return "default_device_backend_map" in text and _BACKEND_MAP.search(text) is not None


def off_npu_path(node: nodes.NodeNG, ctx=None) -> bool:
    """Is `node` evaluated only where an NPU machine does not go (see the module doc)? With the
    module context `ctx`, a stored CUDA test is judged by the tests that read its flag too."""
    if _beside_npu(node):
        return True
    if isinstance(node, nodes.ImportFrom) and _import_replaced_on_npu(node):
        return True
    # Through function and class bodies too: a `def` in a branch the NPU skips is never defined
    # there, and a `def` after `if is_npu(): raise ...` is never reached.
    child, parent = node, node.parent
    while parent is not None:
        if isinstance(parent, (nodes.If, nodes.IfExp)) and _renames_cuda_alias(parent, child):
            return True
        if isinstance(parent, (nodes.If, nodes.IfExp)):
            verdict = _in_chain(parent, child)
            if verdict is not None:
                return verdict
        if isinstance(parent, nodes.BoolOp) and _short_circuited_on_npu(parent, child):
            return True
        if isinstance(parent, nodes.Call) and _default_beside_npu_key(
                parent, child, named=ctx is None or ctx.settings.strategy != "auto"):
            return True
        if isinstance(parent, nodes.If) and (ctx is None or ctx.settings.strategy != "auto") \
                and _beside_hccl_branch(parent, child):
            # not under transfer_to_npu: there the program keeps asking for "nccl", which it maps
            # to HCCL, so the NCCL branch is the one the NPU takes
            return True
        if (ctx is None or ctx.settings.strategy != "auto") and _record_beside_npu_record(parent, child):
            # not under transfer_to_npu: torch.cuda.is_available() is true on the NPU there, and a
            # registry that probes CUDA's record first picks it (xinference's env_name)
            return True
        if (ctx is None or ctx.settings.strategy != "auto") and _case_beside_npu_case(parent, child):
            # not under transfer_to_npu, whose torch.device("cuda:0") is the NPU's: a helper that
            # parses through it answers "npu" for CUDA's case there
            return True
        if _after_npu_exit(parent, child):
            return True
        if isinstance(parent, nodes.Assign) and child is parent.value and _constant_beside_npu_constant(parent):
            return True
        if _mirrored_by_npu_part(parent, child):
            return True
        if isinstance(parent, nodes.ExceptHandler) and (_fallback_for_missing_namespace(parent)
                                                        or _torch_npu_import_failed(parent)):
            return True
        if isinstance(parent, nodes.Call) and _default_of_namespace_lookup(parent, child):
            return True
        if isinstance(parent, (nodes.FunctionDef, nodes.ClassDef)) and child is not parent.decorators \
                and _skipped_unless_other_accelerator(parent):
            return True
        if isinstance(parent, nodes.FunctionDef) and child is not parent.decorators \
                and _called_only_off_npu(parent, ctx):
            return True
        if ctx is not None and isinstance(parent, (nodes.Assign, nodes.AnnAssign)) and child is parent.value \
                and _is_cuda_test(child):
            reads = flag_reads(parent, ctx)
            if reads and all(off_npu_path(read) for read in reads):
                return True
        if isinstance(parent, (nodes.Assign, nodes.AnnAssign)) and child is parent.value and _replaced_on_npu(parent):
            return True
        if isinstance(parent, nodes.Arguments) and _default_replaced_on_npu(parent, child):
            return True
        if _default_of_value_tested_for_npu(parent, child):
            return True
        if isinstance(parent, nodes.If) and child is parent.test and _admits_npu_to_own_branch(parent):
            return True
        if _test_argument_over_npu_default(parent, child):
            return True
        if isinstance(parent, nodes.If) and (child is parent.test or any(child is stmt for stmt in parent.body)) \
                and _cuda_probe_beside_npu_probe(parent):
            return True
        if isinstance(parent, nodes.If) and (child is parent.test or any(child is stmt for stmt in parent.body)) \
                and _tests_value_replaced_on_npu(parent):
            return True
        if isinstance(parent, nodes.If) and (child is parent.test or any(child is stmt for stmt in parent.body)) \
                and _cuda_test_shadows_npu_test(parent):
            return True
        child, parent = parent, parent.parent
    return False


_CUDA_ALIASES = frozenset({"gpu"})  # what a project's own device helper may call CUDA


def _renames_cuda_alias(branching: nodes.If | nodes.IfExp, child: nodes.NodeNG) -> bool:
    """`device_name = "cuda" if device_name == "gpu" else device_name` (LLaMA-Factory's
    get_torch_device, whose get_device_name answers "npu" on the NPU and "gpu" for CUDA), or
    `if device_name == "gpu": device_name = "cuda"`: torch's name given to CUDA's alias, every
    other name passing through as it is, in a module whose own NPU value is "npu". The NPU's name
    never takes this branch; "npu" there would send CUDA hosts to the NPU's namespace."""
    test = branching.test
    if not (isinstance(test, nodes.Compare) and len(test.ops) == 1 and test.ops[0][0] == "=="):
        return False
    left, right = test.left, test.ops[0][1]
    subject = left if _is_cuda_alias(right) else right if _is_cuda_alias(left) else None
    if not isinstance(subject, (nodes.Name, nodes.Attribute)):
        return False
    name = subject.as_string()
    if isinstance(branching, nodes.IfExp):
        renamed = child is branching.body and _is_cuda_string(child) and branching.orelse.as_string() == name
    else:
        renamed = not branching.orelse and len(branching.body) == 1 and child is branching.body[0] \
            and isinstance(child, nodes.Assign) and len(child.targets) == 1 \
            and child.targets[0].as_string() == name and _is_cuda_string(child.value)
    return renamed and any(_is_npu_string(const) for const in branching.root().nodes_of_class(nodes.Const))


def _is_cuda_alias(node: nodes.NodeNG) -> bool:
    return isinstance(node, nodes.Const) and isinstance(node.value, str) and node.value.lower() in _CUDA_ALIASES


def _replaced_on_npu(assign: nodes.Assign | nodes.AnnAssign) -> bool:
    """`device = "cuda"` then `if is_torch_npu_available(): device = "npu"`; `backend = "nccl"`
    then `if platform.is_cuda_alike(): ... elif platform.is_npu(): backend = "hccl"` (FastVideo's
    init_distributed_environment): the first value is the default of the hosts that are no NPU,
    and the NPU's branch of a test right after it stores the NPU's own. "npu" there would be the
    CUDA hosts' device. Nothing may read the name between the two, and the first value computes
    nothing (a literal, `torch.device("cuda")`)."""
    targets = assign.targets if isinstance(assign, nodes.Assign) else [assign.target]
    if len(targets) != 1 or not isinstance(targets[0], (nodes.AssignName, nodes.AssignAttr)) \
            or not _computes_nothing(assign.value):
        return False
    return _replaced_from(assign.next_sibling(), targets[0].as_string())


def _default_replaced_on_npu(arguments: nodes.Arguments, default: nodes.NodeNG) -> bool:
    """A parameter's default that the function's first statements replace on the NPU: ATorch's
    `def build_mesh(..., device_type="cuda"): device_type = "npu" if
    is_torch_npu_available() else device_type`. The default is what the hosts that are no NPU
    get; written "npu", it would be the CUDA hosts' device too."""
    function = arguments.parent
    if not isinstance(function, nodes.FunctionDef) or not function.body:
        return False
    name = parameter_of_default(arguments, default)
    return name is not None and _replaced_from(function.body[0], name)


def _default_of_value_tested_for_npu(parent: nodes.NodeNG, child: nodes.NodeNG) -> bool:
    """A parameter's, a class field's or an option's (`.get(key, "cuda")` stored in a local name)
    "cuda" default where the function, or the class's methods,
    test that value for the NPU (lmdeploy's `device_type: str = 'cuda'` beside `assert
    self.device_type in ['cuda', 'ascend', 'maca', 'camb']`, its `is_bf16_supported(device_type=
    'cuda')` with an `elif device_type == 'ascend':` branch): the NPU is a value the code already
    takes, which its callers pass; the default is the CUDA hosts', and "npu" there would be theirs
    too, or fail the code's own check where it names the NPU otherwise ("ascend")."""
    if not _computes_nothing(child):
        return False
    if isinstance(parent, nodes.Arguments):
        function = parent.parent
        if not isinstance(function, (nodes.FunctionDef, nodes.Lambda)):
            return False
        name = parameter_of_default(parent, child)
        return name is not None and name in _npu_subjects(function)
    if isinstance(parent, (nodes.Assign, nodes.AnnAssign)) and child is parent.value \
            and isinstance(parent.parent, nodes.ClassDef):
        targets = parent.targets if isinstance(parent, nodes.Assign) else [parent.target]
        if len(targets) != 1 or not isinstance(targets[0], nodes.AssignName):
            return False
        return f"self.{targets[0].name}" in _npu_subjects(parent.parent)
    if isinstance(parent, nodes.Call) and isinstance(parent.func, nodes.Attribute) and parent.func.attrname == "get" \
            and len(parent.args) == 2 and child is parent.args[1]:
        # `device = kwargs.get("device", "cuda")`, then `device.startswith("npu") and not
        # is_npu_available()` (FunASR's AutoModel): the option's default, as a parameter's is
        statement = parent.parent
        if not (isinstance(statement, nodes.Assign) and statement.value is parent and len(statement.targets) == 1
                and isinstance(statement.targets[0], nodes.AssignName)):
            return False
        function = statement.scope()
        return isinstance(function, nodes.FunctionDef) and statement.targets[0].name in _npu_subjects(function)
    return False


def _test_argument_over_npu_default(parent: nodes.NodeNG, child: nodes.NodeNG) -> bool:
    """CUDA's value passed, in a test, for a parameter of the module's own function whose default
    is the NPU's (vllm-ascend's tests/ut/patch/worker/patch_common/test_patch_distributed.py:
    `def _make_group(module_env, *, backend="hccl", ...)`, then
    `test_non_hccl_destroy_path_destroys_device_group_directly` calls `_make_group(module_env,
    backend="nccl", group_name="tp")`): the NPU's case is the default, and the test asks for the
    other one on purpose; "hccl" there would test the NPU's path twice."""
    if isinstance(parent, nodes.Keyword):
        call, name, position = parent.parent, parent.arg, None
    elif isinstance(parent, nodes.Call) and any(child is arg for arg in parent.args):
        call, name, position = parent, None, next(i for i, arg in enumerate(parent.args) if arg is child)
    else:
        return False
    if not isinstance(call, nodes.Call) or not isinstance(call.func, nodes.Name) or not _is_cuda_value_string(child) \
            or not in_test_function(call):
        return False
    found = bindings(call.func)
    if len(found) != 1 or not isinstance(found[0], nodes.FunctionDef):
        return False
    default = _default_of(found[0].args, name, position)
    return default is not None and (_is_npu_string(default) or _names_hccl(default))


def _default_of(arguments: nodes.Arguments, name: Optional[str], position: Optional[int]) -> Optional[nodes.NodeNG]:
    """The default of the parameter a call's keyword `name` (or argument at `position`) fills."""
    if name is None:
        positional = [*(arguments.posonlyargs or []), *(arguments.args or [])]
        if position is None or position >= len(positional):
            return None
        name = positional[position].name
    try:
        return arguments.default_value(name)
    except NoDefault:
        return None


def _import_replaced_on_npu(statement: nodes.ImportFrom) -> bool:
    """`from torch.cuda import manual_seed as device_manual_seed` at the top of xDiT's
    runtime_state.py, then, past other imports, `if envs._is_npu(): from torch.npu import
    manual_seed as device_manual_seed`: the first binding is the default of the hosts that are no
    NPU, and the NPU's branch binds the NPU's own. Renamed, the first import would fail on CUDA
    hosts, where torch.npu is missing. Every name the statement binds must be replaced so."""
    if not isinstance(statement.parent, nodes.Module):
        return False
    names = [alias or name for name, alias in statement.names]
    return "*" not in names and all(_replaced_from(statement.next_sibling(), name)
                                    for name in names)


def _replaced_from(statement: nodes.NodeNG | None, name: str) -> bool:
    """Does a later statement of the same block store the NPU's own value in `name` on its NPU
    branch (an `if` whose NPU branch assigns it, or `name = "npu" if is_npu() else name`), with
    nothing reading the name before? However far: SGLang's weight exporter checks its arguments
    in eight statements before `backend = "hccl" if backend == "nccl" and is_npu() else backend`,
    and none of them reads `backend`, so no path uses the default on the NPU."""
    while statement is not None:
        if _stores_npu_value(statement, name):
            return True
        if any(node.as_string() == name for node in statement.nodes_of_class((nodes.Name, nodes.Attribute))):
            return False  # read (or changed) before the NPU's test: the first value is used there
        statement = statement.next_sibling()
    return False


def _computes_nothing(value: nodes.NodeNG | None) -> bool:
    """A literal, or `torch.device` of literals: evaluated on the NPU too before the NPU's branch
    replaces it, it asks nothing of CUDA (`torch.cuda.current_device()` there would raise)."""
    if isinstance(value, (nodes.Const, nodes.JoinedStr)):
        return True
    return isinstance(value, nodes.Call) and qualified_name(value.func) == "torch.device" \
        and all(isinstance(arg, (nodes.Const, nodes.JoinedStr)) for arg in value.args) and not value.keywords


def _stores_npu_value(statement: nodes.NodeNG, name: str) -> bool:
    """Does `statement` store the NPU's own value in `name` on its NPU branch: an `if` whose NPU
    branch assigns it, or `name = "npu" if is_npu() else name`?"""
    if isinstance(statement, nodes.If) and any(
            test is not None and _polarity(test) == POSITIVE and _stores(body, name)
            for test, body in _branches(statement)):
        return True
    return _chosen_on_npu(statement, name) or _looked_up_in_backend_table(statement, name)


def _looked_up_in_backend_table(statement: nodes.NodeNG, name: str) -> bool:
    """`if device_type in default_device_backend_map: backend = default_device_backend_map[
    device_type]` (torchtune's get_distributed_backend, copied by several projects), the table
    being torch's `dist.Backend.default_device_backend_map`: torch_npu registers HCCL for "npu"
    in it, so the NPU's device finds its own backend there."""
    if not (isinstance(statement, nodes.If) and isinstance(statement.test, nodes.Compare)
            and len(statement.test.ops) == 1 and statement.test.ops[0][0] == "in"):
        return False
    table = statement.test.ops[0][1]
    if not _is_device_backend_table(table):
        return False
    key = statement.test.left.as_string()
    return any(isinstance(stmt, nodes.Assign) and len(stmt.targets) == 1 and stmt.targets[0].as_string() == name
               and isinstance(stmt.value, nodes.Subscript) and stmt.value.value.as_string() == table.as_string()
               and stmt.value.slice.as_string() == key
               for stmt in statement.body)


def _is_device_backend_table(node: nodes.NodeNG) -> bool:
    if isinstance(node, nodes.Name):
        value = single_value(node)
        node = value if value is not None else node
    return qualified_name(node) in _DEVICE_BACKEND_TABLES


def _chosen_on_npu(statement: nodes.NodeNG, name: str) -> bool:
    """`name = "npu" if is_torch_npu_available() else name`: the NPU's branch of the choice reads
    nothing of the old value."""
    if not (isinstance(statement, nodes.Assign) and len(statement.targets) == 1
            and statement.targets[0].as_string() == name and isinstance(statement.value, nodes.IfExp)):
        return False
    choice = statement.value
    polarity = _polarity(choice.test)
    npu_branch = choice.body if polarity == POSITIVE else choice.orelse if polarity == NEGATIVE else None
    return npu_branch is not None and not any(
        node.as_string() == name for node in npu_branch.nodes_of_class((nodes.Name, nodes.Attribute)))


_LOOKBACK = 8  # statements before a test where the NPU's branch may have replaced its value


def _tests_value_replaced_on_npu(statement: nodes.If) -> bool:
    """`if backend == "nccl":` after `if is_torch_npu_available(): backend = "hccl"` in the same
    function (ATorch's init_distributed, whose branch then asks torch.cuda.nccl.version()): on
    the NPU the value is the one its branch stored, so the test is false there and what it
    guards is CUDA's; "hccl" in the test would run CUDA's branch on the NPU."""
    test = statement.test
    if not (isinstance(test, nodes.Compare) and len(test.ops) == 1 and test.ops[0][0] in ("==", "is")):
        return False
    left, right = test.left, test.ops[0][1]
    subject = right if _is_cuda_value_string(left) else left if _is_cuda_value_string(right) else None
    if subject is None or not isinstance(subject, (nodes.Name, nodes.Attribute)):
        return False
    name = subject.as_string()
    current: nodes.NodeNG | None = statement
    while current is not None and not isinstance(current, (nodes.FunctionDef, nodes.Module, nodes.ClassDef)):
        previous = current.previous_sibling()
        for _step in range(_LOOKBACK):
            if previous is None:
                break
            if _stores_npu_value(previous, name):
                return True
            previous = previous.previous_sibling()
        current = current.parent
    return False


def _is_cuda_value_string(node: nodes.NodeNG) -> bool:
    return _is_cuda_string(node) or (isinstance(node, nodes.Const) and node.value == "nccl")


def _stores(body: list[nodes.NodeNG], name: str) -> bool:
    """Does a statement of `body` assign `name`, or import a name under it?"""
    return any(isinstance(stmt, (nodes.Assign, nodes.AnnAssign))
               and any(target.as_string() == name
                       for target in (stmt.targets if isinstance(stmt, nodes.Assign) else [stmt.target]))
               or isinstance(stmt, nodes.ImportFrom) and any((alias or imported) == name
                                                             for imported, alias in stmt.names)
               for stmt in body)


def _fallback_for_missing_namespace(handler: nodes.ExceptHandler) -> bool:
    """`try: return getattr(torch, device_name) except AttributeError: return torch.cuda`
    (torchtune's get_torch_device_namespace, copied by LLaMA-Factory and ms-swift): the handler
    runs only for a device without a `torch.<name>` module, and on an Ascend host `torch.npu` is
    there, so the NPU never takes it."""
    caught = handler.type
    names = caught.elts if isinstance(caught, nodes.Tuple) else [caught]
    if not any(isinstance(name, nodes.Name) and name.name == "AttributeError" for name in names):
        return False
    attempt = handler.parent
    if not isinstance(attempt, nodes.Try) or len(attempt.body) > _SHORT_BRANCH:
        return False
    return any(_is_namespace_lookup(call) for statement in attempt.body for call in statement.nodes_of_class(nodes.Call))


def _default_of_namespace_lookup(call: nodes.Call, child: nodes.NodeNG) -> bool:
    """`getattr(torch, device_type, torch.cuda)` (torch's save_on_cpu, bitsandbytes' Triton ops,
    transformers' FP8 layers): the default stands in only for a device without a `torch.<name>`
    module, and on an Ascend host `torch.npu` is there. `torch.npu` written there instead would
    fail on a CUDA host, where the default is evaluated before the lookup. A constant name is
    no lookup."""
    return _is_namespace_lookup(call) and len(call.args) == 3 and child is call.args[2]


def _is_namespace_lookup(call: nodes.Call) -> bool:
    """`getattr(torch, name, ...)` with a name that is not written out."""
    return isinstance(call.func, nodes.Name) and call.func.name == "getattr" and len(call.args) >= 2 \
        and not isinstance(call.args[1], nodes.Const) and qualified_name(call.args[0]) == "torch"


_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def _torch_npu_import_failed(handler: nodes.ExceptHandler) -> bool:
    """`try: import torch_npu` / `except ImportError: current_device = "cuda"` (MindStudio
    Probe's accuracy checker, its monitor's `device = "npu"` after the import): the handler runs
    only where torch_npu does not import, and on an Ascend host it does. Only when nothing else
    in the `try:` can fail: its other statements import torch or torch_npu, or store, return or
    do nothing without calling anything."""
    caught = handler.type
    names = [] if caught is None else caught.elts if isinstance(caught, nodes.Tuple) else [caught]
    if names and not any(isinstance(name, nodes.Name) and name.name in _IMPORT_ERRORS for name in names):
        return False
    attempt = handler.parent
    if not isinstance(attempt, nodes.Try) or handler not in attempt.handlers:
        return False
    return _only_imports_torch_npu(attempt)


def _only_imports_torch_npu(attempt: nodes.Try) -> bool:
    """Does the `try:` import torch_npu, and nothing else in it can fail (its other statements
    import torch or torch_npu, or store, return or do nothing without calling anything)?"""
    imports_npu = False
    for statement in attempt.body:
        if isinstance(statement, (nodes.Import, nodes.ImportFrom)):
            modules = [name for name, _alias in statement.names] if isinstance(statement, nodes.Import) \
                else [] if statement.level else [statement.modname]
            tops = {module.split(".", 1)[0] for module in modules}
            if not tops or not tops <= {"torch", "torch_npu"}:
                return False
            imports_npu = imports_npu or "torch_npu" in tops
        elif not isinstance(statement, (nodes.Assign, nodes.AnnAssign, nodes.Return, nodes.Pass)) \
                or any(True for _call in statement.nodes_of_class(nodes.Call)):
            return False
    return imports_npu


def _beside_npu(node: nodes.NodeNG) -> bool:
    """An element of a literal that also holds the NPU: `device in ("cuda", "npu")`,
    `{"cuda": torch.cuda, "npu": torch.npu}[kind]` list the devices a project supports."""
    if isinstance(node.parent, nodes.Call) and node.parent.func is node:
        node = node.parent  # `{"cuda": torch.cuda.device_count(), "npu": torch.npu.device_count()}`
    parent = node.parent
    if isinstance(parent, _DISPLAYS) or (isinstance(parent, _COMPREHENSIONS) and parent.elt is node):
        siblings = [elt for part in _joined_parts(parent) for elt in _members(part) if elt is not node]
    elif isinstance(parent, nodes.Dict):
        siblings = [part for key, value in parent.items if node is not key and node is not value
                    for part in (key, value)]
    else:
        return False
    if _is_cuda_string(node) and any(_is_ascend_string(sibling) for sibling in siblings):
        return True  # `device_type not in ["cuda", "ascend", "maca", "camb"]` (mineru's lmdeploy server)
    return any(names_npu(sibling) for sibling in siblings)


def _record_beside_npu_record(parent: nodes.NodeNG, child: nodes.NodeNG) -> bool:
    """`child` is one device's record in a table of them that holds the NPU's own: a list of
    calls to one constructor (xinference's DEVICE_REGISTRY: `DeviceSpec(name="cuda",
    device_count_fn=lambda: torch.cuda.device_count(), ...)` beside `DeviceSpec(name="npu", ...
    torch.npu.device_count() ...)`), or the value of a "cuda" key in a mapping with an "npu" key."""
    if isinstance(parent, _DISPLAYS) and isinstance(child, nodes.Call) and len(parent.elts) > 1:
        callee = child.func.as_string()
        return not names_npu(child) and any(
            other is not child and isinstance(other, nodes.Call) and other.func.as_string() == callee
            and names_npu(other) for other in parent.elts)
    if isinstance(parent, nodes.Dict):
        key = next((key for key, value in parent.items if value is child), None)
        return key is not None and _is_cuda_string(key) and any(_is_npu_string(other) for other, _value in parent.items)
    return False


def _case_beside_npu_case(block_owner: nodes.NodeNG, child: nodes.NodeNG) -> bool:
    """`child` is CUDA's case in a run of assertions on one function that holds the NPU's case:
    `assert device_utils.resolve_autocast_device_type("cuda:0") == "cuda"` beside
    `assert device_utils.resolve_autocast_device_type("npu:1") == "npu"` (FunASR's tests of its
    device helper). The case checks how the function treats CUDA's name, right on every host;
    "npu" there would check the NPU twice and CUDA never."""
    callee = _asserted_callee(child)
    if callee is None or names_npu(child):
        return False
    for field in ("body", "orelse", "finalbody"):
        block = getattr(block_owner, field, None)
        if isinstance(block, list) and any(child is statement for statement in block):
            return any(other is not child and _asserted_callee(other) == callee and names_npu(other)
                       for other in block)
    return False


def _asserted_callee(statement: nodes.NodeNG) -> Optional[str]:
    """The function whose answer the statement asserts: `assert f(...) == ...`, or
    `self.assertEqual(f(...), ...)`."""
    if isinstance(statement, nodes.Assert) and isinstance(statement.test, nodes.Compare):
        checked = statement.test.left
    elif isinstance(statement, nodes.Expr) and isinstance(statement.value, nodes.Call) \
            and isinstance(statement.value.func, nodes.Attribute) \
            and statement.value.func.attrname.startswith("assert") and statement.value.args:
        checked = statement.value.args[0]
    else:
        return None
    return checked.func.as_string() if isinstance(checked, nodes.Call) else None


def _constant_name(assign: nodes.Assign) -> Optional[str]:
    if len(assign.targets) == 1 and isinstance(assign.targets[0], nodes.AssignName):
        return assign.targets[0].name
    return None


def _constant_beside_npu_constant(assign: nodes.Assign) -> bool:
    """`CUDA_LOWERCASE = 'cuda'` in a class or module of device-name constants that holds
    `NPU_LOWERCASE = 'npu'` too (MindStudio Probe's Const): the constant is CUDA's own name,
    read where the code compares a device with it (`module.device == Const.CUDA_LOWERCASE`);
    "npu" there would make it a second NPU constant under CUDA's name."""
    name = _constant_name(assign)
    if name is None or "cuda" not in identifier_words(name) or not _is_cuda_string(assign.value):
        return False
    return any(isinstance(other, nodes.Assign) and other is not assign and _is_npu_string(other.value)
               and "npu" in identifier_words(_constant_name(other) or "")
               for other in assign.parent.get_children())


def _default_beside_npu_key(call: nodes.Call, child: nodes.NodeNG, named: bool = True) -> bool:
    """The default of `.get` on a mapping that has the NPU's own entry:
    `{"npu": "hccl", "xpu": "xccl"}.get(device_type, "nccl")` (ultralytics' trainer) takes
    `"nccl"` only for devices other than the NPU."""
    func = call.func
    if not (isinstance(func, nodes.Attribute) and func.attrname == "get") or len(call.args) < 2 \
            or child is not call.args[1]:
        return False
    # `named`: off the transfer_to_npu route, where a device probed CUDA-first is "cuda" on the
    # NPU (mineru's get_device) and the default serves it
    mapping = func.expr if isinstance(func.expr, nodes.Dict) else _named_dict(func.expr) if named else None
    return mapping is not None and any(_is_npu_string(key) for key, _value in mapping.items)


def _named_dict(node: nodes.NodeNG) -> Optional[nodes.Dict]:
    """The literal of a mapping bound once by name (mineru's `_VISIBLE_DEVICE_ENV_NAMES = {"npu":
    "ASCEND_RT_VISIBLE_DEVICES", "xpu": "ZE_AFFINITY_MASK"}` read by
    `_VISIBLE_DEVICE_ENV_NAMES.get(device_type, "CUDA_VISIBLE_DEVICES")`)."""
    if not isinstance(node, nodes.Name):
        return None
    bound = bindings(node)
    if len(bound) != 1 or not isinstance(bound[0], nodes.AssignName):
        return None
    statement = bound[0].parent
    if isinstance(statement, (nodes.Assign, nodes.AnnAssign)) and isinstance(statement.value, nodes.Dict):
        return statement.value
    return None


def _joined_parts(collection: nodes.NodeNG) -> list[nodes.NodeNG]:
    """The collections that `+` (`|` for sets) joins with `collection` into one:
    `["cuda", "cpu"] + [f"cuda:{i}" for i in ids] + [f"npu:{i}" for i in ids]` (lm-eval's
    models/huggingface.py lists the devices it accepts so)."""
    top = collection
    while isinstance(top.parent, nodes.BinOp) and top.parent.op in ("+", "|"):
        top = top.parent
    parts, stack = [], [top]
    while stack:
        current = stack.pop()
        if isinstance(current, nodes.BinOp) and current.op in ("+", "|"):
            stack.extend((current.left, current.right))
        else:
            parts.append(current)
    return parts


def _members(collection: nodes.NodeNG) -> list[nodes.NodeNG]:
    if isinstance(collection, _DISPLAYS):
        return list(collection.elts)
    if isinstance(collection, _COMPREHENSIONS):
        return [collection.elt]
    return []


def _in_chain(branching: nodes.If | nodes.IfExp, child: nodes.NodeNG) -> Optional[bool]:
    """True: `child` is off the NPU path; False: it is on the NPU's own branch; None: no verdict
    at this chain (look further out)."""
    branches = _branches(_chain_top(branching))
    here = next((i for i, (test, body) in enumerate(branches)
                 if child is test or any(child is stmt for stmt in body)), None)
    if here is None:
        return None
    test, body = branches[here]
    in_test = child is test
    own = _polarity(test) if test is not None else UNKNOWN
    if not in_test and own == POSITIVE:
        return False  # the NPU's own branch
    if not in_test and own == NEGATIVE:
        return True
    about_devices = any(_about_devices(branch_test) for branch_test, _body in branches if branch_test is not None)
    others = (branch for i, branch in enumerate(branches) if i != here)
    if any(_is_npu_branch(other_test, other_body, about_devices) for other_test, other_body in others):
        return True
    return None


def _short_circuited_on_npu(boolop: nodes.BoolOp, child: nodes.NodeNG) -> bool:
    """`is_npu_available() or torch.cuda.is_available()`: the `or` already covers the NPU."""
    # After it, the operand is not evaluated on the NPU; before it, it is a probe the NPU answers
    # "no" to (`torch.cuda.is_available() or is_npu_available()`), and rewriting it would answer "yes".
    stop = POSITIVE if boolop.op == "or" else NEGATIVE
    if any(value is not child and _polarity(value) == stop for value in boolop.values):
        return True
    if boolop.op == "and" and _compares_with_cuda_value(child) \
            and any(value is not child and _polarity(value) == POSITIVE for value in boolop.values):
        # `backend = "hccl" if backend == "nccl" and is_npu() else backend` (SGLang's weight
        # exporter): the NPU's own test asks whether the value is still CUDA's, to replace it
        return True
    if boolop.op == "or":
        # `not _is_hip or torch.cuda.get_device_capability("cuda") < (9, 4)` (SGLang's models):
        # true on the NPU and on CUDA, so what follows runs on ROCm alone
        for value in boolop.values:
            if value is child:
                break
            if _unless_other_accelerator(value):
                return True
    if boolop.op != "and":
        return False
    # `device.startswith("cuda") and not torch.cuda.is_available()` or `device.startswith("npu")
    # and not is_npu_available()` (FunASR's AutoModel): the project tells its devices apart on
    # that value and asks the NPU its own question, so what follows CUDA's test is CUDA's, and
    # the test itself ("npu" there would hand the NPU's name to CUDA's question)
    tests = []
    for value in boolop.values:
        tests.append(value)
        if value is child:
            break
    if tests[-1] is boolop.values[-1]:
        tests.pop()  # the last operand decides alone: what it tests is the clause's answer
    subjects = {subject for value in tests for subject in [_cuda_test_subject(value)] if subject}
    either = boolop.parent
    if not subjects or not (isinstance(either, nodes.BoolOp) and either.op == "or"):
        return False  # a stored test (`self.is_cuda = device.type == "cuda" and ...`) is judged as a flag
    return any(other is not boolop and subjects & _subjects_tested_for_npu(other) for other in either.values)


def _compares_with_cuda_value(node: nodes.NodeNG) -> bool:
    """`backend == "nccl"`, `device != "cuda"`: a comparison with CUDA's device or backend name."""
    return isinstance(node, nodes.Compare) and len(node.ops) == 1 \
        and node.ops[0][0] in ("==", "!=", "is", "is not") \
        and (_is_cuda_value_string(node.left) or _is_cuda_value_string(node.ops[0][1]))


def _npu_subjects(scope: nodes.NodeNG) -> set[str]:
    known = _NPU_SUBJECTS.get(scope)
    if known is None:
        known = _NPU_SUBJECTS[scope] = _subjects_tested_for_npu(scope)
    return known


def _chain_top(branching: nodes.If | nodes.IfExp) -> nodes.If | nodes.IfExp:
    """The first `if` of an `elif` chain (astroid nests each `elif` in the `else` before it)."""
    top = branching
    while isinstance(top, nodes.If) and isinstance(top.parent, nodes.If) and top.parent.orelse == [top]:
        top = top.parent
    while isinstance(top, nodes.IfExp) and isinstance(top.parent, nodes.IfExp) and top.parent.orelse is top:
        top = top.parent
    return top


def _branches(top: nodes.If | nodes.IfExp) -> list[tuple[Optional[nodes.NodeNG], list[nodes.NodeNG]]]:
    """(test, body) of each branch, `else` last with no test."""
    branches: list[tuple[Optional[nodes.NodeNG], list[nodes.NodeNG]]] = []
    current = top
    while True:
        if isinstance(current, nodes.IfExp):
            branches.append((current.test, [current.body]))
            if isinstance(current.orelse, nodes.IfExp):
                current = current.orelse
                continue
            branches.append((None, [current.orelse]))
            return branches
        branches.append((current.test, current.body))
        if len(current.orelse) == 1 and isinstance(current.orelse[0], nodes.If):
            current = current.orelse[0]
            continue
        if current.orelse:
            branches.append((None, current.orelse))
        return branches


def _is_npu_branch(test: Optional[nodes.NodeNG], body: list[nodes.NodeNG], about_devices: bool) -> bool:
    polarity = _polarity(test) if test is not None else UNKNOWN
    if polarity != UNKNOWN:
        return polarity == POSITIVE
    if len(body) == 1 and isinstance(body[0], nodes.Try) and body[0].body \
            and _guarding_try(body[0].body[-1]) is body[0] and _polarity(body[0].body[-1].test) == POSITIVE:
        return True  # `else: try: if torch_npu.npu.is_available(): return "npu"` (mineru's config_reader)
    if test is None and len(body) == 1 and isinstance(body[0], nodes.Try) and _only_imports_torch_npu(body[0]):
        return True  # `else: try: import torch_npu; device = "npu"` (xtuner's get_device): it imports on Ascend alone
    # A test that does not say "NPU" picks the NPU only when the chain tests the device
    # (`torch.cuda.is_available()`, `device == "cuda"`) and the branch is short and about it
    # (`else: device = "npu"`). `if args.profile: ... else: x.npu()` is about something else,
    # and so is a long branch naming the NPU somewhere deep inside.
    return about_devices and len(body) <= _SHORT_BRANCH \
        and not any(isinstance(stmt, _COMPOUND) for stmt in body) and any(names_npu(stmt) for stmt in body)


def _about_devices(test: nodes.NodeNG) -> bool:
    for word in _words(test):
        if _DEVICE_WORDS.intersection(identifier_words(word)):
            return True
    return any(_is_cuda_string(node) for node in test.nodes_of_class(nodes.Const))


def _is_cuda_string(node: nodes.NodeNG) -> bool:
    return isinstance(node, nodes.Const) and isinstance(node.value, str) and bool(_CUDA_STRING.match(node.value))


def _admits_npu_to_own_branch(statement: nodes.If) -> bool:
    """`if device.type != "cuda":` (or `"cuda" not in str(device)`, `device.type not in ("cuda",
    "meta")`) whose body holds an `if` that asks for the NPU (torchrl's `_get_sync_fn`: `elif
    hasattr(torch, "npu") and torch.npu.is_available(): return torch.npu.synchronize`): the NPU's
    devices pass the test into the branch written for them. A test that CUDA passes (`==`), or a
    body with no NPU test, is still CUDA's to port."""
    if not any(_tests_not_cuda(compare) for compare in statement.test.nodes_of_class(nodes.Compare)):
        return False
    return any(_polarity(inner.test) == POSITIVE
               for stmt in statement.body for inner in stmt.nodes_of_class(nodes.If))


def _tests_not_cuda(compare: nodes.Compare) -> bool:
    """`x != "cuda"`, `x is not "cuda"`, `"cuda" not in x`, `x not in ("cuda", ...)`."""
    if len(compare.ops) != 1:
        return False
    op, right = compare.ops[0]
    if op in ("!=", "is not"):
        return _is_cuda_string(compare.left) or _is_cuda_string(right)
    if op == "not in":
        return _is_cuda_string(compare.left) or any(_is_cuda_string(element) for element in _members(right))
    return False


def _cuda_probe_beside_npu_probe(statement: nodes.If) -> bool:
    """`if torch.cuda.is_available():` (or `if "cuda" in str(device):`) next to
    `if is_npu_available():` whose body is the NPU's own (it names the NPU:
    `torch.npu.get_device_name()`)."""
    if statement.orelse or not (_is_cuda_test(statement.test) or _reads_stored_cuda_test(statement.test)):
        return False  # `_is_cuda_test`: also `include_cuda and torch.cuda.is_available()`
    return any(_polarity(other.test) == POSITIVE and any(names_npu(stmt) for stmt in other.body)
               for other in _device_tests_beside(statement))


def _reads_stored_cuda_test(test: nodes.NodeNG) -> bool:
    """`if IS_CUDA_AVAILABLE:` where the module stores `IS_CUDA_AVAILABLE =
    torch.cuda.is_available()` once (DiffSynth-Studio's npu_compatible_device.py, which asks
    `if IS_NPU_AVAILABLE:` next): the stored test is the test."""
    if isinstance(test, nodes.BoolOp) and test.op == "and":
        return any(_reads_stored_cuda_test(value) for value in test.values)
    return isinstance(test, nodes.Name) and _is_cuda_test(single_value(test))


def _device_tests_beside(statement: nodes.If) -> Iterable[nodes.If]:
    """The `if` statements (without `else`) next to `statement`, and past them while each tests
    for one device: `if device == "cuda": ...`, `if device == "xpu": ...`, `if device == "npu":
    ...` (Liger-Kernel's infer_device_arch) is one test per device, the NPU's two steps away; each
    may sit in a `try:` of its own (mineru's get_device)."""
    unit = _guarding_try(statement) or statement
    for step in (lambda node: node.previous_sibling(), lambda node: node.next_sibling()):
        other = step(unit)
        while other is not None:
            test = other.body[-1] if isinstance(other, nodes.Try) and other.body \
                and _guarding_try(other.body[-1]) is other else other
            if not isinstance(test, nodes.If) or test.orelse:
                break
            yield test
            if not _tests_one_device(test.test):
                break
            other = step(other)


def _guarding_try(statement: Optional[nodes.NodeNG]) -> Optional[nodes.Try]:
    """The `try:` whose body `statement` ends, when it only guards the probe (`try: import torch_npu;
    if torch_npu.npu.is_available(): return "npu"` / `except Exception: pass`, mineru's get_device
    probes each device so): the probes are then the tries' neighbours."""
    parent = statement.parent if statement is not None else None
    if isinstance(parent, nodes.Try) and parent.body and parent.body[-1] is statement and parent.handlers \
            and not parent.orelse and not parent.finalbody and isinstance(statement, nodes.If):
        return parent
    return None


def _tests_one_device(test: nodes.NodeNG) -> bool:
    """`device == "xpu"`, `"mps" in str(device)`, `torch.xpu.is_available()`: a test for one
    device, as a family of per-device `if` statements has one each; an `and` narrows one
    (`include_xpu and torch.xpu.is_available()`, GPTQModel's device discovery)."""
    if isinstance(test, nodes.BoolOp) and test.op == "and":
        return any(_tests_one_device(value) for value in test.values)
    if isinstance(test, nodes.Call):
        return not test.args and not test.keywords and "available" in {
            word for name in _words(test.func) for word in identifier_words(name)}
    if not isinstance(test, nodes.Compare) or len(test.ops) != 1 or test.ops[0][0] not in ("==", "in", "is"):
        return False
    return any(isinstance(side, nodes.Const) and isinstance(side.value, str) and _DEVICE_NAME.fullmatch(side.value)
               for side in (test.left, test.ops[0][1]))


def _probes_cuda(test: nodes.NodeNG) -> bool:
    """A call that asks whether CUDA is available: `torch.cuda.is_available()`,
    `is_torch_cuda_available()`."""
    if not isinstance(test, nodes.Call) or test.args or test.keywords:
        return False
    words = {word for name in _words(test.func) for word in identifier_words(name)}
    return {"cuda", "available"} <= words and "npu" not in words


def _tests_cuda_device(test: nodes.NodeNG) -> bool:
    """`device == "cuda"`, `"cuda" in str(device)`: true for a CUDA device only, so false on the
    NPU whatever else the device is."""
    if not isinstance(test, nodes.Compare) or len(test.ops) != 1 or test.ops[0][0] not in ("==", "in", "is"):
        return False
    return _is_cuda_string(test.left) or _is_cuda_string(test.ops[0][1])


def _cuda_test_shadows_npu_test(statement: nodes.If) -> bool:
    """`if device.type == "cuda": return ""` (or `device = "0"`) in a function that also tests
    `device.type` for the NPU (`device.type in {"npu", "xpu"}`, `device.startswith("npu")`): the
    project tells its devices apart on that value and gives the NPU its own test, so this one is
    false there and its body CUDA's own. Its body leaves or changes the value the NPU's test
    reads, so "npu" in place of "cuda" would take the NPU out of its own path (ultralytics'
    parse_device). A CUDA test whose body only does CUDA's work is still reported."""
    if statement.orelse:
        return False
    test = statement.test
    operands = test.values if isinstance(test, nodes.BoolOp) and test.op == "and" else [test]
    subjects = {subject for operand in operands for subject in [_cuda_test_subject(operand)] if subject}
    if not subjects:
        return False
    subjects &= _npu_subjects(statement.scope())
    if not subjects:
        return False
    assigned = {target.as_string() for stmt in statement.body if isinstance(stmt, nodes.Assign)
                for target in stmt.targets}
    return _always_leaves(statement.body) or bool(subjects & assigned)


_NPU_SUBJECTS: "weakref.WeakKeyDictionary[nodes.NodeNG, set[str]]" = weakref.WeakKeyDictionary()


def _cuda_test_subject(test: nodes.NodeNG) -> Optional[str]:
    """`S` of `S == "cuda"`, `S is "cuda"`, `"cuda" in S` or `S.startswith("cuda")`."""
    if _tests_cuda_device(test):
        left, right = test.left, test.ops[0][1]
        return (right if _is_cuda_string(left) else left).as_string()
    if isinstance(test, nodes.Call) and isinstance(test.func, nodes.Attribute) and test.func.attrname == "startswith" \
            and len(test.args) == 1 and _is_cuda_string(test.args[0]):
        return test.func.expr.as_string()
    return None


def _subjects_tested_for_npu(scope: nodes.NodeNG) -> set[str]:
    """The values that the scope compares with an NPU device: `S == "npu"`, `S in {"npu", "xpu"}`,
    `S.startswith(("npu", "xpu"))`, `S.startswith(backend)` in `for backend in ("npu", "xpu"):`."""
    npu_loop_names = {target.name for loop in scope.nodes_of_class(nodes.For)
                      if isinstance(loop.target, nodes.AssignName) and _holds_npu_device(loop.iter)
                      for target in [loop.target]}
    subjects = set()
    for compare in scope.nodes_of_class(nodes.Compare):
        if len(compare.ops) != 1:
            continue
        left, right = compare.left, compare.ops[0][1]
        ascend = _about_devices(left)  # `device_type == "ascend"` (lmdeploy's backend selector)
        if _is_npu_string(right) or _holds_npu_string(right, ascend) or (ascend and _is_ascend_string(right)):
            subjects.add(left.as_string())
        elif _is_npu_string(left):
            subjects.add(right.as_string())
    for call in scope.nodes_of_class(nodes.Call):
        if isinstance(call.func, nodes.Attribute) and call.func.attrname == "startswith" and len(call.args) == 1:
            arg = call.args[0]
            if _is_npu_string(arg) or _holds_npu_device(arg) \
                    or (isinstance(arg, nodes.Name) and arg.name in npu_loop_names):
                subjects.add(call.func.expr.as_string())
    return subjects


def _holds_npu_device(node: nodes.NodeNG) -> bool:
    return isinstance(node, (nodes.Tuple, nodes.List, nodes.Set)) and any(_is_npu_string(elt) for elt in node.elts)


def _after_npu_exit(block_owner: nodes.NodeNG, child: nodes.NodeNG) -> bool:
    """Is `child` a statement after `if <NPU test>: ... return` in the same block?"""
    for field in ("body", "orelse", "handlers", "finalbody"):
        block = getattr(block_owner, field, None)
        if not isinstance(block, list) or not any(child is stmt for stmt in block):
            continue
        for stmt in block:
            if stmt is child:
                return False
            if isinstance(stmt, nodes.If) and not stmt.orelse and _always_leaves(stmt.body) \
                    and (_holds_on_npu(stmt.test) or _unless_other_accelerator(stmt.test)):
                return True
            if _calls_skip_unless_other_accelerator(stmt):
                return True
    return False


def _holds_on_npu(test: nodes.NodeNG) -> bool:
    """Is the test true on the NPU, whether or not it is true elsewhere too? A test true only on
    the NPU; an `or` with such an operand (FastVideo's `if current_platform.is_cpu() or
    current_platform.is_mps() or current_platform.is_npu(): return False`); an `and` of such
    operands; `not` a test false on the NPU (FastVideo's `if not current_platform.is_cuda_alike():
    return None`, where the module asks its platform layer `is_npu()` too). Not `not
    torch.version.cuda`: that asks for no NPU code, and what follows it is CUDA code a port still
    needs (GPTQModel's `if not torch.version.cuda: raise RuntimeError(...)`)."""
    if _polarity(test) == POSITIVE:
        return True
    if isinstance(test, nodes.BoolOp):
        held = [_holds_on_npu(value) for value in test.values]
        return any(held) if test.op == "or" else all(held)
    if isinstance(test, nodes.UnaryOp) and test.op == "not":
        return _polarity(test.operand) == NEGATIVE and not _asks_for_cuda_build(test.operand)
    return False


def _calls_skip_unless_other_accelerator(statement: nodes.NodeNG) -> bool:
    """`_require_mha_v4_aiter(backend_name)` at the top of xDiT's AITER tests, a function of the
    module whose first statement is `if not torch.cuda.is_available() or torch.version.hip is
    None: pytest.skip("... requires a ROCm GPU.")`: what follows the call runs on that
    accelerator alone. Only a skip or a raise counts: a `return` leaves the function alone."""
    if not (isinstance(statement, nodes.Expr) and isinstance(statement.value, nodes.Call)
            and isinstance(statement.value.func, nodes.Name)):
        return False
    definitions = bindings(statement.value.func)
    if len(definitions) != 1 or not isinstance(definitions[0], nodes.FunctionDef):
        return False
    body = [stmt for stmt in definitions[0].body
            if not (isinstance(stmt, nodes.Expr) and isinstance(stmt.value, nodes.Const))]  # a docstring
    if not body or not isinstance(body[0], nodes.If) or body[0].orelse or not body[0].body:
        return False
    last = body[0].body[-1]
    raises = isinstance(last, nodes.Raise) or isinstance(last, nodes.Expr) and isinstance(last.value, nodes.Call) \
        and qualified_name(last.value.func) in _LEAVING_CALLS
    return raises and _unless_other_accelerator(body[0].test)


# The torch namespaces of accelerators that are neither CUDA nor the NPU (torch_musa's torch.musa,
# torch_mlu's torch.mlu, Intel's torch.xpu, Habana's torch.hpu, Apple's torch.mps).
OTHER_ACCELERATORS = frozenset({"musa", "mlu", "xpu", "hpu", "mps", "sdaa"})


# What a platform layer is asked for an accelerator that is neither CUDA nor the NPU (vLLM's
# `current_platform.is_rocm()`, `is_xpu()`, `is_tpu()`): false on an NPU host, whose platform is
# a plugin of its own. ROCm counts although it answers through torch.cuda: code that runs on ROCm
# alone is AMD's, and the CUDA code beside it is what the port reads.
_OTHER_PLATFORM_QUERIES = frozenset({f"is_{name}" for name in OTHER_ACCELERATORS | {"rocm", "hip", "tpu"}})
# The same question as a function of the project's own (SGLang's `is_hip()`, `is_xpu()` from its
# utils, its kernels' `is_hip_runtime()`, `is_musa_runtime()`).
_OTHER_ACCELERATOR_FUNCTION = re.compile(
    r"is_(?:%s)(?:_runtime)?" % "|".join(sorted(OTHER_ACCELERATORS | {"rocm", "hip", "tpu"})))


def _unless_other_accelerator(test: nodes.NodeNG) -> bool:
    """`not hasattr(torch, "musa")` (DLRover's musa_patch: `if not hasattr(torch, "musa"):
    return` before it patches torch for MUSA), `not current_platform.is_rocm()` (vLLM's tests of
    ROCm kernels: `if not current_platform.is_rocm(): pytest.skip(...)`), `torch.version.hip is
    None` and `not torch.version.hip` (no ROCm build: xDiT's AITER tests): what follows the exit
    runs on that accelerator alone, neither on the NPU nor on CUDA. Also when an `or` adds
    reasons to leave (`not current_platform.is_rocm() or not aiter_found()`), or the `not` holds
    an `and` with such a question (`not (current_platform.is_rocm() and on_gfx950())`)."""
    if isinstance(test, nodes.BoolOp) and test.op == "or":
        return any(_unless_other_accelerator(value) for value in test.values)
    if isinstance(test, nodes.Compare) and len(test.ops) == 1 and test.ops[0][0] == "is" \
            and isinstance(test.ops[0][1], nodes.Const) and test.ops[0][1].value is None:
        return _is_hip_build_version(test.left)  # `torch.version.hip is None`: no ROCm build
    if not (isinstance(test, nodes.UnaryOp) and test.op == "not"):
        return False
    if _is_hip_build_version(test.operand):
        return True
    probe = test.operand
    if isinstance(probe, nodes.BoolOp) and probe.op == "and":
        return any(_asks_platform_for_other_accelerator(value) for value in probe.values)
    if _asks_platform_for_other_accelerator(probe):
        return True
    if isinstance(probe, nodes.Call) and isinstance(probe.func, nodes.Name) and probe.func.name == "hasattr" \
            and len(probe.args) == 2 and qualified_name(probe.args[0]) == "torch":
        name = probe.args[1]
        return isinstance(name, nodes.Const) and name.value in OTHER_ACCELERATORS
    if isinstance(probe, nodes.Call) and not probe.args and isinstance(probe.func, nodes.Attribute) \
            and probe.func.attrname == "is_available":
        namespace = qualified_name(probe.func.expr) or ""
        return namespace.startswith("torch.") and namespace.split(".")[-1] in OTHER_ACCELERATORS
    return False


def _asks_platform_for_other_accelerator(node: nodes.NodeNG, through_function: bool = True) -> bool:
    """`current_platform.is_rocm()`, `is_xpu()`: a question without arguments, asked of an object.
    Also the same question as a function (SGLang's `is_hip()`, `is_hip_runtime()`), a property
    (`get_platform().is_hip`), or a name bound once to one (SGLang's module flags, `_is_hip =
    is_hip()`), and a call of the module's own function that answers False unless so (vLLM's
    tests of gfx950 kernels: `def _on_gfx950(): if not current_platform.is_rocm(): return False ...`)."""
    if isinstance(node, nodes.Name):
        value = single_value(node)
        if value is None:
            return _imported_flag_for_other_accelerator(node)
        return isinstance(value, (nodes.Call, nodes.Attribute)) \
            and _asks_platform_for_other_accelerator(value, through_function)
    if isinstance(node, nodes.Attribute) and not (isinstance(node.parent, nodes.Call) and node.parent.func is node):
        return node.attrname in _OTHER_PLATFORM_QUERIES
    if not (isinstance(node, nodes.Call) and not node.args and not node.keywords):
        return False
    if isinstance(node.func, nodes.Attribute):
        return node.func.attrname in _OTHER_PLATFORM_QUERIES
    if isinstance(node.func, nodes.Name) and _OTHER_ACCELERATOR_FUNCTION.fullmatch(node.func.name):
        return True
    return through_function and isinstance(node.func, nodes.Name) and _false_unless_other_accelerator(node.func)


def _imported_flag_for_other_accelerator(name: nodes.Name) -> bool:
    """`IS_ROCM` imported from the project's utils (GPTQModel's utils/rocm.py: `IS_ROCM =
    torch.version.hip is not None`): a flag whose name is the question answers it. So does one
    the module itself only ever sets to True or False (flash-attn 2.8's setup.py: `IS_ROCM =
    True` when `BUILD_TARGET == "rocm"` or the torch build is HIP's, else False)."""
    if name.name.lstrip("_").lower() not in _OTHER_PLATFORM_QUERIES:
        return False
    definitions = bindings(name)
    if len(definitions) == 1 and isinstance(definitions[0], nodes.ImportFrom):
        return True
    return bool(definitions) and all(
        isinstance(definition, nodes.AssignName) and isinstance(definition.parent, nodes.Assign)
        and isinstance(definition.parent.value, nodes.Const) and isinstance(definition.parent.value.value, bool)
        for definition in definitions)


def _false_unless_other_accelerator(name: nodes.Name) -> bool:
    """Is `name` a function without parameters whose first statement is `if not
    current_platform.is_rocm(): return False`?"""
    definitions = bindings(name)
    if len(definitions) != 1 or not isinstance(definitions[0], nodes.FunctionDef):
        return False
    function = definitions[0]
    if function.args.args or function.args.posonlyargs or function.args.vararg:
        return False
    body = [stmt for stmt in function.body
            if not (isinstance(stmt, nodes.Expr) and isinstance(stmt.value, nodes.Const))]  # a docstring
    if not body or not isinstance(body[0], nodes.If) or body[0].orelse or len(body[0].body) != 1:
        return False
    first, leave = body[0], body[0].body[0]
    return isinstance(leave, nodes.Return) and isinstance(leave.value, nodes.Const) and leave.value.value is False \
        and isinstance(first.test, nodes.UnaryOp) and first.test.op == "not" \
        and _asks_platform_for_other_accelerator(first.test.operand, through_function=False)


_SKIPS: "weakref.WeakKeyDictionary[nodes.NodeNG, bool]" = weakref.WeakKeyDictionary()


_CALLED_OFF_NPU: "weakref.WeakKeyDictionary[nodes.FunctionDef, bool]" = weakref.WeakKeyDictionary()


def _called_only_off_npu(function: nodes.FunctionDef, ctx) -> bool:
    """A private function of the module (`_is_backend_nccl`) that the module only calls on paths
    the NPU does not take (`if _is_backend_nccl(backend):` beside `elif backend in ("hccl",
    "tpu_dist"):`, Ray Train's process group setup): its body runs only off the NPU, and "hccl" in
    its `backend == "nccl"` would answer yes for the NPU and send it down the NCCL branch. Every
    use of its name must be a call (a name handed on may be called anywhere)."""
    name = function.name
    if not (isinstance(function.parent, nodes.Module) and name.startswith("_") and not name.startswith("__")):
        return False
    found = _CALLED_OFF_NPU.get(function)
    if found is None:
        _CALLED_OFF_NPU[function] = False  # a function that calls itself ends here
        names = ctx.nodes_of(nodes.Name) if ctx is not None else function.root().nodes_of_class(nodes.Name)
        uses = [use for use in names if use.name == name]
        found = bool(uses) and all(isinstance(use.parent, nodes.Call) and use.parent.func is use
                                   and not function.parent_of(use) and off_npu_path(use.parent, ctx)
                                   for use in uses)
        _CALLED_OFF_NPU[function] = found
    return found


def _skipped_unless_other_accelerator(scope: nodes.FunctionDef | nodes.ClassDef) -> bool:
    """A test (or test class) marked `@pytest.mark.skipif(not current_platform.is_rocm(), ...)`,
    or any test of a module whose `pytestmark` is such a mark (vLLM's tests of ROCm and XPU
    kernels): it runs on that accelerator alone."""
    found = _SKIPS.get(scope)
    if found is None:
        marks = list(scope.decorators.nodes) if scope.decorators else []
        module = scope.parent
        if isinstance(module, nodes.Module):
            for stmt in module.body:
                if isinstance(stmt, nodes.Assign) and len(stmt.targets) == 1 \
                        and isinstance(stmt.targets[0], nodes.AssignName) and stmt.targets[0].name == "pytestmark":
                    value = stmt.value
                    marks.extend(value.elts if isinstance(value, (nodes.List, nodes.Tuple)) else [value])
        marks = [single_value(mark) if isinstance(mark, nodes.Name) else mark for mark in marks]  # `@needs_gfx950`
        found = _SKIPS[scope] = any(_skipif_unless_other_accelerator(mark) for mark in marks)
    return found


def _skipif_unless_other_accelerator(mark: nodes.NodeNG) -> bool:
    return isinstance(mark, nodes.Call) and isinstance(mark.func, nodes.Attribute) \
        and mark.func.attrname == "skipif" and bool(mark.args) and _unless_other_accelerator(mark.args[0])


# Calls that leave the test or the program: `pytest.skip(..., allow_module_level=True)` raises.
_LEAVING_CALLS = frozenset({"pytest.skip", "pytest.exit", "pytest.fail", "sys.exit"})


def _always_leaves(block: list[nodes.NodeNG]) -> bool:
    """Does every path through the block end in `return`/`raise`/`continue`/`break`? Also when
    the NPU's branch picks among its own devices before it leaves (ms-swift's
    `if is_torch_npu_available(): if local_rank >= 0: return f"npu:{local_rank}" else: return "npu:0"`)."""
    if not block:
        return False
    last = block[-1]
    if isinstance(last, _EXITS):
        return True
    if isinstance(last, nodes.Expr) and isinstance(last.value, nodes.Call) \
            and qualified_name(last.value.func) in _LEAVING_CALLS:
        return True
    if isinstance(last, nodes.If):
        return _always_leaves(last.body) and _always_leaves(last.orelse)
    if isinstance(last, nodes.With):
        return _always_leaves(last.body)
    return False


def _mirrored_by_npu_part(block_owner: nodes.NodeNG, child: nodes.NodeNG) -> bool:
    """Is the statement `child` CUDA's part of what a sibling `if <NPU test>:` does for the NPU,
    or of a sibling that is its NPU twin?"""
    for field in ("body", "orelse", "handlers", "finalbody"):
        block = getattr(block_owner, field, None)
        if not isinstance(block, list) or not any(child is stmt for stmt in block):
            continue
        if isinstance(child, (nodes.Assign, nodes.AnnAssign)) and _is_cuda_test(child.value) \
                and _has_npu_twin(child, block):
            return True
        # also the NPU's `if` inside a `try:` of its own (MindStudio Probe's precision checker:
        # `try: import torch_npu` / `if torch.npu.is_available(): npu_state = ...`)
        candidates = [inner for stmt in block if stmt is not child
                      for inner in (stmt.body if isinstance(stmt, nodes.Try) else [stmt])]
        npu_parts = [stmt for stmt in candidates if isinstance(stmt, nodes.If)
                     and not stmt.orelse and _polarity(stmt.test) == POSITIVE]
        if not npu_parts:
            return False
        value = getattr(child, "value", None)
        if isinstance(child, nodes.If) and (_probes_cuda(child.test) or _tests_cuda_device(child.test)):
            cuda_part = child.body + child.orelse
        elif isinstance(child, (nodes.Assign, nodes.AnnAssign)) and isinstance(value, nodes.IfExp) \
                and _is_cuda_test(value.test):
            # `cuda_state = torch.cuda.get_rng_state_all() if torch.cuda.is_available() else None`
            cuda_part = [value.body, value.orelse]
        else:
            cuda_part = [child]
        cuda_names = _device_api_names(cuda_part, "torch.cuda.")
        return bool(cuda_names) and any(cuda_names <= _device_api_names(part.body, "torch.npu.")
                                        for part in npu_parts)
    return False


_CUDA_WORD = re.compile(r"cuda|CUDA|Cuda")
_NPU_FOR_CUDA = {"cuda": "npu", "CUDA": "NPU", "Cuda": "Npu"}


def _is_cuda_test(value: nodes.NodeNG | None) -> bool:
    """A test that is false on the NPU: `torch.cuda.is_available()`, `device.type == "cuda"`, or
    an `and` with one of them; also an `or` of one with questions for other accelerators
    (SGLang's `(hasattr(torch, "cuda") and torch.cuda.is_available()) or is_musa()`)."""
    if isinstance(value, nodes.BoolOp) and value.op == "and":
        return any(_is_cuda_test(operand) for operand in value.values)
    if isinstance(value, nodes.BoolOp) and value.op == "or":
        cuda = [operand for operand in value.values if _is_cuda_test(operand)]
        return bool(cuda) and all(operand in cuda or _asks_platform_for_other_accelerator(operand)
                                  for operand in value.values)
    return value is not None and (_probes_cuda(value) or _tests_cuda_device(value))


def _has_npu_twin(statement: nodes.NodeNG, block: list) -> bool:
    """Does `block` hold the statement again with `npu` for each `cuda` (a port already made), or
    store the NPU's own answer under the twin name (verl's utils/device.py: `is_cuda_available =
    torch.cuda.is_available()`, then `is_npu_available = is_torch_npu_available()`)?"""
    twin_name = _twin_target(statement)
    if twin_name is not None and any(other is not statement and _twin_target(other, named=twin_name)
                                     for other in block):
        return True
    text = statement.as_string()
    twin = _CUDA_WORD.sub(lambda match: _NPU_FOR_CUDA[match.group()], text)
    if twin == text:
        return False
    return any(other is not statement and type(other) is type(statement) and other.as_string() == twin
               for other in block)


def _twin_target(statement: nodes.NodeNG, named: str | None = None) -> str | None:
    """The NPU twin of the one name (or `self.` field) `statement` assigns: `is_npu_available` for
    `is_cuda_available`. With `named`, that name when `statement` assigns it."""
    targets = getattr(statement, "targets", None) or [getattr(statement, "target", None)]
    if not isinstance(statement, (nodes.Assign, nodes.AnnAssign)) or len(targets) != 1:
        return None
    target = targets[0]
    if isinstance(target, nodes.AssignName):
        name = target.name
    elif isinstance(target, nodes.AssignAttr) and isinstance(target.expr, nodes.Name):
        name = f"{target.expr.name}.{target.attrname}"
    else:
        return None
    if named is not None:
        return name if name == named else None
    twin = _CUDA_WORD.sub(lambda match: _NPU_FOR_CUDA[match.group()], name)
    return twin if twin != name else None


def _device_api_names(statements: list[nodes.NodeNG], prefix: str) -> set[str]:
    """The names after `prefix` (`torch.cuda.`) of the attribute chains the statements use."""
    found = set()
    stack = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, nodes.Attribute) and is_chain_top(node):
            qname = qualified_name(node)
            if qname is not None and qname.startswith(prefix):
                found.add(qname[len(prefix):])
        stack.extend(node.get_children())
    return found


# -- what a test says about the NPU ---------------------------------------------

def _polarity(test: nodes.NodeNG) -> int:
    """POSITIVE when the test is true only on the NPU, NEGATIVE when true only off it."""
    if isinstance(test, nodes.UnaryOp) and test.op == "not":
        if _asks_for_other_host(test.operand):
            return UNKNOWN  # true on the NPU, and on every other build without CUDA
        return -_polarity(test.operand)
    if isinstance(test, nodes.BoolOp):
        signs = {_polarity(value) for value in test.values} - {UNKNOWN}
        if test.op == "and" and len(signs) == 1:
            return signs.pop()  # every operand must hold, the NPU one included
        if test.op == "or" and len(signs) == 1 and all(_polarity(value) != UNKNOWN for value in test.values):
            # `is_npu() or hasattr(torch, "npu")`; `is_cuda() or is_hip()` (SGLang's
            # get_device_module, in a module that asks `is_npu()` next): each false on the NPU
            return signs.pop()
        return UNKNOWN
    if isinstance(test, nodes.Compare):
        return _compare_polarity(test)
    if is_cuda_build_version(test):
        return NEGATIVE  # `if torch.version.cuda:`: None on the NPU's torch
    if _asks_platform_for_cuda(test):
        return NEGATIVE  # `if current_platform.is_cuda_alike():` where the module asks `is_npu()` too
    if _asks_platform_for_other_accelerator(test):
        return NEGATIVE  # `if current_platform.is_rocm():`: AMD's, as `torch.version.hip` is
    if _reads_npu_switch(test):
        return POSITIVE  # `if os.environ.get("USE_NPU"):`
    if isinstance(test, (nodes.Name, nodes.Attribute, nodes.Call)) and names_npu(test):
        return POSITIVE  # is_npu_available(), torch.npu.is_available(), IS_NPU, hasattr(torch, "npu")
    return UNKNOWN


def _compare_polarity(test: nodes.Compare) -> int:
    if len(test.ops) != 1:
        return UNKNOWN
    op, right = test.ops[0]
    left = test.left
    if _reads_npu_switch(left) and isinstance(right, nodes.Const):
        off = right.value in (None, False, 0) or str(right.value).lower() in _OFF_VALUES
        positive, negative = (NEGATIVE, POSITIVE) if off else (POSITIVE, NEGATIVE)
        return {"==": positive, "is": positive, "!=": negative, "is not": negative}.get(op, UNKNOWN)
    if op in ("in", "not in") and _names_npu_variable(left) and environment_use(left):
        return POSITIVE if op == "in" else NEGATIVE  # `"FORCE_NPU" in os.environ`
    ascend = _about_devices(left)  # `device_type == "ascend"`: lmdeploy's and dlinfer's name of the NPU
    if _is_npu_string(left) or _is_npu_string(right) or _holds_npu_string(right, ascend) \
            or (ascend and _is_ascend_string(right)):
        return {"==": POSITIVE, "is": POSITIVE, "in": POSITIVE,
                "!=": NEGATIVE, "is not": NEGATIVE, "not in": NEGATIVE}.get(op, UNKNOWN)
    if isinstance(right, nodes.Const) and right.value is None and is_cuda_build_version(left):
        # `is None` holds on the NPU but on every build without CUDA too: it says nothing
        return {"is not": NEGATIVE, "!=": NEGATIVE}.get(op, UNKNOWN)
    if isinstance(right, nodes.Const) and right.value is None and names_npu(left):
        return {"is not": POSITIVE, "!=": POSITIVE, "is": NEGATIVE, "==": NEGATIVE}.get(op, UNKNOWN)
    # `kind == DistributedType.MULTI_NPU`: a named NPU constant against a value, not `npu_count == 0`.
    named = [side for side in (left, right) if isinstance(side, (nodes.Name, nodes.Attribute)) and names_npu(side)]
    if len(named) == 1 and not isinstance(right if named[0] is left else left, nodes.Const):
        return {"==": POSITIVE, "is": POSITIVE, "!=": NEGATIVE, "is not": NEGATIVE}.get(op, UNKNOWN)
    return UNKNOWN


def _asks_for_other_host(node: nodes.NodeNG) -> bool:
    """Is `node` NEGATIVE only because it asks for another host (a CUDA build, a platform's CUDA,
    another accelerator), also inside an `and`/`or`? Turned by `not`, it holds on the NPU and on
    the other hosts alike: `not (is_cuda() or is_hip())` is no test for the NPU."""
    if isinstance(node, nodes.BoolOp):
        return any(_asks_for_other_host(value) for value in node.values)
    return _asks_for_cuda_build(node) or _asks_platform_for_cuda(node) or _asks_platform_for_other_accelerator(node)


def _asks_for_cuda_build(node: nodes.NodeNG) -> bool:
    """Is `node` NEGATIVE through a test of a CUDA build (`torch.version.cuda`, `... and
    torch.version.cuda`)? Turned by `not`, it holds off CUDA, not on the NPU alone."""
    if isinstance(node, nodes.BoolOp):
        return any(_asks_for_cuda_build(value) for value in node.values)
    if isinstance(node, nodes.Compare) and len(node.ops) == 1:
        return is_cuda_build_version(node.left)
    return is_cuda_build_version(node)


_PLATFORM_CUDA_QUERIES = frozenset({"is_cuda", "is_cuda_alike"})
# What a platform layer is asked for the NPU: its own question, or vLLM's question for a platform
# plugin (`current_platform.is_out_of_tree()`), which is how the NPU's platform comes (vllm-ascend).
_PLATFORM_NPU_QUERIES = frozenset({"is_npu", "is_out_of_tree"})
_ASKS_FOR_NPU: "weakref.WeakKeyDictionary[nodes.Module, bool]" = weakref.WeakKeyDictionary()


def _asks_platform_for_cuda(node: nodes.NodeNG) -> bool:
    """`current_platform.is_cuda_alike()`, `is_cuda()`, or a name bound once to one (`_is_cuda =
    is_cuda()`), in a module that asks the same kind of question for the NPU (`is_npu()`, or
    `is_out_of_tree()` where the NPU's platform is a plugin: vLLM's `_platform_device_type()`
    returns "cuda" if `is_cuda_alike()`, `current_platform.device_name` if `is_out_of_tree()`): the
    project's platform layer (FastVideo's and vLLM's `current_platform`, SGLang's utils) answers
    "CUDA" on CUDA hosts alone and gives the NPU its own question, so what such a test guards is
    CUDA's."""
    if isinstance(node, nodes.Name):
        node = single_value(node)
    if not (isinstance(node, nodes.Call) and not node.args and not node.keywords
            and last_name(node.func) in _PLATFORM_CUDA_QUERIES):
        return False
    module = node.root()
    asks = _ASKS_FOR_NPU.get(module)
    if asks is None:
        asks = _ASKS_FOR_NPU[module] = any(
            not call.args and last_name(call.func) in _PLATFORM_NPU_QUERIES for call in module.nodes_of_class(nodes.Call))
    return asks


def _is_hip_build_version(node: nodes.NodeNG) -> bool:
    """`torch.version.hip`: None on every build but ROCm's, the NPU's and CUDA's included."""
    return isinstance(node, nodes.Attribute) and node.attrname == "hip" and qualified_name(node) == "torch.version.hip"


def is_cuda_build_version(node: nodes.NodeNG) -> bool:
    """`torch.version.cuda` / `torch.version.hip` (also through `from torch import version`)."""
    return isinstance(node, nodes.Attribute) and node.attrname in ("cuda", "hip") \
        and qualified_name(node) in _CUDA_BUILD_VERSIONS


def _reads_npu_switch(node: nodes.NodeNG) -> bool:
    """`os.getenv("FORCE_NPU", "0")`, `os.environ.get("USE_NPU")`, `os.environ["FORCE_NPU"]`: the
    value of an environment variable named for the NPU, which a build or launch script tests."""
    if isinstance(node, nodes.Call) and node.args:
        key = node.args[0]
    elif isinstance(node, nodes.Subscript):
        key = node.slice
    else:
        return False
    return _names_npu_variable(key) and environment_use(key)


def _names_npu_variable(node: nodes.NodeNG) -> bool:
    return isinstance(node, nodes.Const) and isinstance(node.value, str) and _word_npu(node.value)


def _is_npu_string(node: nodes.NodeNG) -> bool:
    if isinstance(node, nodes.Const) and isinstance(node.value, str):
        return _NPU_STRING.fullmatch(node.value) is not None
    if isinstance(node, nodes.JoinedStr) and node.values:
        first = node.values[0]
        return isinstance(first, nodes.Const) and str(first.value).lower().startswith("npu:")
    return False


def _beside_hccl_branch(statement: nodes.If, child: nodes.NodeNG) -> bool:
    """`if _is_backend_nccl(backend): ... elif backend in ("hccl", "tpu_dist"): ...` (Ray Train's
    process group setup): the chain gives HCCL, the NPU's backend alone, a branch of its own, so
    the NCCL branch (its test and body) is not the NPU's."""
    branches = _branches(_chain_top(statement))
    here = next((i for i, (test, body) in enumerate(branches)
                 if child is test or any(child is stmt for stmt in body)), None)
    if here is None or (branches[here][0] is not None and _tests_for_hccl(branches[here][0])):
        return False
    return any(test is not None and _tests_for_hccl(test) for i, (test, _body) in enumerate(branches) if i != here)


def _tests_for_hccl(test: nodes.NodeNG) -> bool:
    """`backend == "hccl"`, `backend in ("hccl", "tpu_dist")`, `"hccl" in backend`: true when the
    backend is HCCL."""
    if not (isinstance(test, nodes.Compare) and len(test.ops) == 1):
        return False
    op, right = test.ops[0]
    return (op in ("==", "is", "in") and _names_hccl(right)) or (op == "in" and _names_hccl(test.left))


def _names_hccl(node: nodes.NodeNG) -> bool:
    """"hccl", or a literal list of backend names that holds it (`("hccl", "tpu_dist")`)."""
    if isinstance(node, (nodes.Tuple, nodes.List, nodes.Set)):
        return any(_names_hccl(elt) for elt in node.elts) \
            and all(isinstance(elt, nodes.Const) and isinstance(elt.value, str) for elt in node.elts)
    return isinstance(node, nodes.Const) and isinstance(node.value, str) and node.value.lower() == "hccl"


def _is_ascend_string(node: nodes.NodeNG) -> bool:
    """"ascend": the NPU's device name where a library calls it so (lmdeploy's `device_type`,
    dlinfer); read as the NPU only in a device test or beside a CUDA device, since the word also
    names a sort order."""
    return isinstance(node, nodes.Const) and isinstance(node.value, str) and node.value.lower() == "ascend"


def _holds_npu_string(node: nodes.NodeNG, ascend: bool = False) -> bool:
    """`x in ("npu",)`, and `x in {"npu", "xpu"}` too: a list of device names that holds the NPU
    is true on the NPU, so the other branches of its chain are not taken there (ultralytics'
    `device_type if device_type in {"npu", "xpu"} else "cuda"`). Its own branch runs on the NPU
    and the other devices alike, and CUDA names in it are still reported. `ascend`: the tested
    value is a device, and "ascend" names the NPU too (mineru's `device_type.lower() in
    ["ascend", "maca", "camb"]`)."""
    return isinstance(node, (nodes.Tuple, nodes.List, nodes.Set)) \
        and any(_is_npu_string(elt) or (ascend and _is_ascend_string(elt)) for elt in node.elts) \
        and all(isinstance(elt, nodes.Const) and isinstance(elt.value, str) and _DEVICE_NAME.fullmatch(elt.value)
                for elt in node.elts)


def names_npu(node: nodes.NodeNG) -> bool:
    """Does the expression or statement name the NPU: an identifier with an `npu` word
    (`torch_npu`, `is_npu_available`, `NPUAccelerator`) or a string that is an NPU device?"""
    return any(_word_npu(word) for word in _words(node))


def _words(node: nodes.NodeNG) -> Iterable[str]:
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, nodes.Name):
            yield current.name
        elif isinstance(current, nodes.Attribute):
            yield current.attrname
        elif isinstance(current, (nodes.FunctionDef, nodes.ClassDef)):
            yield current.name
        elif isinstance(current, nodes.Import):
            yield from (name for name, _alias in current.names)
        elif isinstance(current, nodes.ImportFrom):
            yield current.modname or ""
            yield from (name for name, _alias in current.names)
        elif _is_npu_string(current):
            yield "npu"
        stack.extend(current.get_children())


def _word_npu(identifier: str) -> bool:
    return "npu" in identifier_words(identifier)
