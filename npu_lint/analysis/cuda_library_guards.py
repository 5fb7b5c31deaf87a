"""Device tests that keep a CUDA-only library's code path off other devices.

    if x.device.type == "cuda":                  CuPy takes CUDA memory only
        y = cupy.asarray(x)
    is_cuda = img.is_cuda                         the test, held by a name, picks the library
    out = (cupy if is_cuda else numpy).stack(a)
    use_cp = has_cupy and img.device.type == "cuda"
    early = x.device.type == "cuda" and nl.supports_cuda    or a flag beside it that says the
                                                  code it lets in supports CUDA
    if device.type == "cuda" and CUAEV_IS_INSTALLED:    or that a CUDA build of the project's
                                                  own loaded (analysis/extension_flags.py)
    if not torch.cuda.is_available():            the test ends the path before the library
        raise ValueError("xformers needs CUDA")
    xformers.ops.memory_efficient_attention(q, k, v)
    assert torch.cuda.is_available(), "CUDA required for bitsandbytes"   or an assert, whose
    opt_class = _import_class(name)               message may be what names the library
    if not torch.cuda.is_available():            or before a CUDA kernel built at run time
        raise ImportError("the WKV kernel needs CUDA")
    wkv = load("wkv", sources, extra_cuda_cflags=flags)
    if torch.cuda.is_available():                or the import of a project module that builds
        from .ops.spmm import csrspmm             one when imported (cogdl's operators/spmm.py)
    if torch.cuda.is_available() or os.getenv("FORCE_CUDA", "0") == "1":
        extension = CUDAExtension                 or a CUDA extension built by setup.py
    if torch.cuda.is_available():                or the CUDA toolkit a build would use
        WITH_CUDA = CUDA_HOME is not None
    def is_flash_attn_supported():               a probe named for the library answers no
        if not torch.cuda.is_available():
            return False
    loss = loss_gpu if x.is_cuda else loss_cpu    or the project's CUDA code over its CPU twin
    if not x.is_cuda:                            or a Triton/Helion kernel of the module
        return super().forward(x)                (analysis/cuda_kernels.py), also through a
    return fused_rope(x)                         function that returns the test, or one that
    def assert_supported(x):                     only checks what the kernels take (or what a
        if x.device.type != "cuda": raise RuntimeError("runs CUDA kernels")   library its callers
                                                 then call takes: llm-foundry's check_valid_inputs),
                                                 also when it hands its input back (`return
                                                 x.contiguous()`, DiffSynth-Studio's `_rows`)
    if x.is_cuda:                                or a method of the class that defines one
        return self._temporal_activate(x, w)     (`@triton.jit` in its body) and launches it
    def launch_heuristics(x):                    or only answers whether they may run
        if not x.is_cuda: return False
        return True
    @torch.library.custom_op("ns::op", device_types="cuda")   the device such a kernel is
    def op(x): _kernel[grid](x)                               registered for
    if is_cuda: loss = rnnt.tdt_loss_gpu          or over an error where there is no twin
    else: raise NotImplementedError()
    if x.is_cuda: return _bias_act_cuda().apply(x)   or the module's own function named for CUDA
    return _bias_act_ref(x)                          over its twin (mmcv's StyleGAN ops)
    if not torch.backends.cudnn.enabled: return False    a probe of a cuDNN path
    if x.device.type != "cuda": return False
    if torch.cuda.is_available():                 the flags and macro of a CUDA build
        extra_compile_args["nvcc"] += flags
    lsh.fast_hash(q, k, x.is_cuda)                a flag handed to the module's CUDA build
    "onnxruntime-gpu" if cuda else "onnxruntime"  or a library's CUDA build that pip installs
    GradCAM(model, layers, use_cuda=x.is_cuda)    or a call's switch to its CUDA path
    if not m.is_cuda: m = m.cpu()                 or a test that sends every other device's
                                                  tensors to the host, before code written for
                                                  CUDA and CPU tensors only
    with _cudnn_disabled() if x.is_cuda else nullcontext():   or one that only picks a cuDNN
                                                  setting, which the NPU ignores (NPU130)
    device = "gpu" if torch.cuda.is_available() else "cpu"   or one that picks another library's
                                                  device name ("gpu" is no torch device)
    if device == "cuda":                          or its CUDA target, which it has no NPU twin
        target = tvm.target.cuda()                of (analysis/library_modules.py)

On the NPU such a test is False and the code takes its other path (numpy, torch), which is what
the port wants: rewriting it to "npu" or `.is_npu` would send NPU tensors into CuPy. The library
itself is reported where it is used (NPU401, NPU403). A library counts when the guarded code
names it: through an import, a module bound by a call such as `optional_import("cupy")`, or an
identifier that spells its name (`convert_to_cupy`, `ToCupy`, `has_cucim`), or a flag set where it
is imported (`try: import flash_attn; _FLASH_AVAILABLE = True`) or by a probe that it is installed
(`HAS_BNB: bool = find_spec("bitsandbytes") is not None`). The libraries are
the `libraries` of data/cuda_libraries.yaml, and its `without_npu_kernels`: libraries with CPU
and CUDA kernels only (torch_scatter, pyg_lib), which PyG calls for CUDA tensors only
(`if src.is_cuda and WITH_TORCH_SCATTER:`); on the NPU the torch path is the one that runs. So
are its `rocm_only` libraries, AMD's (aiter, flydsl: `_AITER_MHA_V4.enabled and query.is_cuda`).
Under transfer_to_npu `.is_cuda` is True on the NPU, so there such a test lets NPU tensors in:
NPU194 reports it with what `guarded_cuda_code` found.
"""
from __future__ import annotations

import functools
import re
import sys
from typing import Iterator

from astroid import nodes

from npu_lint.analysis.arguments import argument_role, tables
from npu_lint.analysis.cpu_device import explicitly_on_cpu
from npu_lint.analysis.cuda_builds import CUDA_EXTENSION_CLASSES, CUDA_TOOLKIT_HOME, cuda_build_argument, \
    extension_short_names, imported_cuda_build_module, imports_cuda_build, op_of_own_build
from npu_lint.analysis.cuda_kernels import cuda_kernel_names, kernel_names, method_running_kernel, runs_cuda_kernel
from npu_lint.analysis.extension_flags import extension_of_flag
from npu_lint.analysis.imported_classes import imported_builder_of, imported_cuda_builder
from npu_lint.analysis.forwarded_keywords import hands_keyword_to_library, parameter_filled_by_position
from npu_lint.analysis.library_modules import library_cuda_function
from npu_lint.analysis.library_words import spelled_libraries, spells_library
from npu_lint.analysis.module_facts import facts_of
from npu_lint.analysis.names import bindings, identifier_words, qualified_name, single_value, statements_after, \
    unpacked_into, values_stored_in_self
from npu_lint.config.project_scripts import own_packages
from npu_lint.knowledge.library_advice import table

STRING_TESTS = frozenset({"startswith", "endswith"})  # methods that test a string's prefix or suffix
_EXITS = (nodes.Raise, nodes.Return)
_CUDA_WORDS = ("cuda", "gpu")
# What a pure-torch twin of a custom kernel is called (`_bias_act_ref`, `forward_native`, `_torch`)
_REFERENCE_WORDS = frozenset({"ref", "reference", "native", "naive", "torch", "pytorch", "python", "py",
                              "slow", "fallback"})
# What setup.py hands to a CUDA build only: nvcc's flags, the macro that compiles an extension's
# CUDA sources in (mmcv's parrots build, detectron2-style `define_macros += [("WITH_CUDA", None)]`)
_CUDA_BUILD_SETTING = re.compile(r"^(nvcc|(\w+_)?WITH_CUDA)$")
# The CUDA compiler found under a CUDA home: `osp.join(CUDA_HOME, 'bin/nvcc')` (mmcv 2.2's collect_env)
_CUDA_COMPILER_PATH = re.compile(r"(^|[/\\])nvcc(\.exe)?$")
_DEFINITIONS = (nodes.FunctionDef, nodes.ClassDef)
_CUDNN = "torch.backends.cudnn"
# torch's context managers that choose CUDA's scaled-dot-product-attention kernels, which do not
# choose torch_npu's (NPU131)
_SDPA_CHOICES = frozenset({"torch.backends.cuda.sdp_kernel", "torch.nn.attention.sdpa_kernel"})
# The distribution name at the start of a pip requirement (`paddlepaddle-gpu>=3.0.0`)
_REQUIREMENT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(?=\s*(\[|[<>=!~;]|$))")


def guards_cuda_library(node: nodes.NodeNG) -> bool:
    """Is `node` (a "cuda" string, `.is_cuda`, `torch.cuda.is_available()`) part of a test that
    decides whether code of a CUDA-only library runs, that a call takes as its CUDA switch, or
    that moves other devices' tensors to the host?"""
    return guarded_cuda_code(node) is not None or handed_to_cuda_switch(node) or moves_others_to_host(node) \
        or picks_cudnn_setting(node) or picks_gpu_word(node) or picks_setting_kept_for_cuda(node)


def picks_setting_kept_for_cuda(node: nodes.NodeNG) -> bool:
    """`config = self.cuda_config if is_cuda else self.cpu_config`, the test stored first or asked
    in place, where the class starts `self.cuda_config = None` and fills it only once it found a
    CUDA device (lucidrains' Attend, as denoising-diffusion-pytorch 2.3.4 and Coqui TTS 0.28's
    XTTS perceiver have it: the SDPA backends to allow on an A100). On the NPU the CPU twin is
    what the code takes, and it works there; `.is_npu` would pick the CUDA one, still None where
    the device query was not ported. Not under transfer_to_npu's NPU194: there the patched query
    fills the CUDA setting, and a setting runs no CUDA code."""
    test, siblings = test_expression(node)
    if siblings or (test is node and isinstance(node, (nodes.Const, nodes.JoinedStr))):
        return False
    parent = test.parent
    target = None
    if isinstance(parent, nodes.Tuple) and isinstance(parent.parent, nodes.Assign):
        target = unpacked_into(parent, test)
    elif isinstance(parent, nodes.Assign) and parent.value is test and len(parent.targets) == 1 \
            and isinstance(parent.targets[0], nodes.AssignName):
        target = parent.targets[0]
    tests = list(_uses(target)) if target is not None else [test]
    return bool(tests) and all(isinstance(use.parent, nodes.IfExp) and use.parent.test is use
                               and _setting_kept_only_for_cuda(use.parent.body, use.parent.orelse)
                               for use in tests)


def picks_gpu_word(node: nodes.NodeNG) -> bool:
    """`device = 'gpu' if torch.cuda.is_available() else 'cpu'` (NeMo's DALI datasets): "gpu" is
    no torch device, so the choice names another library's device (NVIDIA DALI's, TensorFlow's),
    one with no NPU backend. On the NPU the test says no and the library gets "cpu", which it can
    run; torch.npu there would hand it "gpu" on a host without CUDA. Not for a tensor's
    `.is_cuda`: `orig_device = "cpu" if not tensor.is_cuda else "gpu"` (sam2's
    training/utils/distributed.py) labels where the tensor is, and the program's own test of the
    label (`if tensor.is_cuda and orig_device == "cpu": tensor = tensor.cpu()`) would send an NPU
    tensor, labelled "cpu", to the host."""
    if isinstance(node, nodes.Attribute) and node.attrname == "is_cuda":
        return False
    test, _siblings = test_expression(node)
    if test is node and isinstance(node, (nodes.Const, nodes.JoinedStr)):
        return False  # a string that is not compared is no test
    choice = test.parent
    if not (isinstance(choice, nodes.IfExp) and choice.test is test):
        return False
    sides = [side.value.lower() if isinstance(side, nodes.Const) and isinstance(side.value, str) else None
             for side in (choice.body, choice.orelse)]
    # Lightning's `accelerator="gpu" if ... else "cpu"` is NPU113's, whose port the test waits for
    return sorted(map(str, sides)) == ["cpu", "gpu"] and argument_role(choice) != "accelerator"


def picks_cudnn_setting(node: nodes.NodeNG) -> bool:
    """`with _cudnn_disabled() if x.is_cuda else nullcontext():` where `_cudnn_disabled` only enters
    `torch.backends.cudnn.flags(enabled=False)` (rf-detr's segmentation head),
    `torch.backends.cudnn.flags(...) if x.is_cuda else nullcontext()`, `if x.is_cuda:
    torch.backends.cudnn.benchmark = True`: the CUDA side only sets cuDNN, which the NPU does not
    use, and the other side does nothing. NPU130 reports the setting; the test says nothing more
    about the NPU, and `.is_npu` would only run a setting that does nothing there (behind
    rf-detr's lock, which serialises every call). So does a test whose CUDA side returns such a
    context, or one that chooses CUDA's attention kernels, and whose other side returns one that
    does nothing (WhisperSpeech's inference_context: `if torch.cuda.is_available(): return
    torch.backends.cuda.sdp_kernel(enable_flash=False, ...)` / `else: return nullcontext()`;
    NPU131 reports the switch). Not under transfer_to_npu's NPU194: the setting does as little
    there."""
    test, siblings = test_expression(node)
    if (siblings and not _narrows_cuda_side(node, test)) or (test is node and isinstance(node, (nodes.Const, nodes.JoinedStr))):
        return False
    parent = test.parent
    if not (isinstance(parent, (nodes.If, nodes.IfExp)) and parent.test is test):
        return False
    cuda_side, other_side = (parent.body, parent.orelse) if _yes_means_cuda(node, test) \
        else (parent.orelse, parent.body)
    if isinstance(parent, nodes.IfExp):
        return _cudnn_context(cuda_side) and _no_context(other_side)
    if not cuda_side and _returned_context(other_side, _no_context):
        # `if x.device.type != "cuda": return nullcontext()`, then `return torch.backends.cudnn.flags(...)`
        # (MIRTorch's convolution context, which turns cuDNN's TF32 off for complex data)
        after = parent.next_sibling()
        return after is not None and _returned_context([after], _cudnn_context)
    if _returned_context(cuda_side, _cudnn_context):
        # `else: return nullcontext()`, or the `return nullcontext()` right after the `if`
        after = other_side or ([parent.next_sibling()] if parent.next_sibling() is not None else [])
        return _returned_context(after, _no_context)
    return bool(cuda_side) and not other_side and all(_sets_cudnn(statement) for statement in cuda_side)


def _narrows_cuda_side(node: nodes.NodeNG, test: nodes.NodeNG) -> bool:
    """`x.device.type != "cuda" or not x.is_complex()`, `x.is_cuda and x.is_complex()`: the other
    operands of the one `and`/`or` around the device test only narrow when its CUDA side runs, so
    that side still runs on CUDA alone."""
    if not isinstance(test, nodes.BoolOp):
        return False
    child = node
    while child.parent is not test:
        child = child.parent
        if isinstance(child, nodes.BoolOp):
            return False
    return (test.op == "and") == _yes_means_cuda(node, test)


def _returned_context(statements: list[nodes.NodeNG], kind) -> bool:
    """Is `statements` one `return` of a context manager of that kind?"""
    return len(statements) == 1 and isinstance(statements[0], nodes.Return) and statements[0].value is not None \
        and kind(statements[0].value)


def _cudnn_context(expression: nodes.NodeNG) -> bool:
    """`torch.backends.cudnn.flags(enabled=False)`, `torch.backends.cuda.sdp_kernel(...)`, or a
    call of the module's own function whose body only enters one (with a lock of its own beside
    it) and yields."""
    if not isinstance(expression, nodes.Call):
        return False
    callee = qualified_name(expression.func) or ""
    if callee.startswith(_CUDNN + ".") or callee in _SDPA_CHOICES:
        return True
    if not isinstance(expression.func, nodes.Name):
        return False
    functions = [binding for binding in bindings(expression.func) if isinstance(binding, nodes.FunctionDef)]
    return bool(functions) and all(_only_enters_cudnn(function) for function in functions)


def _only_enters_cudnn(function: nodes.FunctionDef) -> bool:
    body = [statement for statement in function.body if not _docstring(statement)]
    if len(body) != 1 or not isinstance(body[0], nodes.With):
        return False
    managers = [manager for manager, _name in body[0].items]
    inner = body[0].body
    return any(_cudnn_context(manager) for manager in managers) \
        and all(_cudnn_context(manager) or isinstance(manager, (nodes.Name, nodes.Attribute)) for manager in managers) \
        and len(inner) == 1 and isinstance(inner[0], nodes.Expr) and isinstance(inner[0].value, nodes.Yield)


def _docstring(statement: nodes.NodeNG) -> bool:
    return isinstance(statement, nodes.Expr) and isinstance(statement.value, nodes.Const) \
        and isinstance(statement.value.value, str)


def _no_context(expression: nodes.NodeNG) -> bool:
    """`contextlib.nullcontext()`, `None`: a `with` that does nothing."""
    if isinstance(expression, nodes.Const):
        return expression.value is None
    return isinstance(expression, nodes.Call) and not expression.args and not expression.keywords and (
        qualified_name(expression.func) == "contextlib.nullcontext")


def _sets_cudnn(statement: nodes.NodeNG) -> bool:
    """`torch.backends.cudnn.benchmark = True`."""
    if not isinstance(statement, nodes.Assign):
        return False
    return all(isinstance(target, nodes.AssignAttr)
               and (qualified_name(target.expr) or "") == _CUDNN for target in statement.targets)


def moves_others_to_host(node: nodes.NodeNG) -> bool:
    """`if not cost_matrices[0].is_cuda: cost_matrices = [m.cpu() for m in cost_matrices]` (rf-detr's
    batched assignment, before torch_linear_assignment, whose CPU path calls `.numpy()`; its
    matcher's `if not cost.is_cuda: cost = cost.cpu()`), `x if x.is_cuda else x.cpu()`: all the
    test does is send every other device's tensors to the host, a path an NPU tensor takes as it
    is, before code written for CUDA and CPU tensors only. `.is_npu` there would hand NPU tensors
    to that code. Not where the CUDA side is what moves (`box.cpu().numpy() if box.is_cuda else
    box.numpy()`): there an NPU tensor reaches `.numpy()`, and the test is ported. Not under
    transfer_to_npu's NPU194 either: there `.is_cuda` keeps NPU tensors where they are, as for
    CUDA. Only a test of a tensor's own device: after `if not torch.cuda.is_available()` or `if
    args.device != "cuda"` the program's other tensors go to the NPU once ported, and this one
    would stay behind on the host. The test may search the device's text (`if 'cuda' not in
    str(orig_device): logits = logits.cpu()` with `orig_device = logits.device`, robustbench 1.1.1's
    output_maps.py, before float64 work that MPS lacks and the NPU runs slowly or on its AI CPU),
    and the CUDA side may bind the same names to the same tensors unmoved (`else: power, scale =
    self.power, self.scale` beside `power, scale = self.power.cpu(), self.scale.cpu()`)."""
    if not _asks_tensor_device(node):
        return False
    test, siblings = test_expression(node)
    if siblings:
        return False
    parent = test.parent
    if isinstance(parent, (nodes.If, nodes.IfExp)) and parent.test is test:
        cuda_side, other_side = (parent.body, parent.orelse) if _yes_means_cuda(node, test) \
            else (parent.orelse, parent.body)
        if isinstance(parent, nodes.IfExp):
            return _on_host(other_side) and isinstance(cuda_side, (nodes.Name, nodes.Attribute, nodes.Subscript))
        return bool(other_side) and all(isinstance(statement, nodes.Assign) and _on_host(statement.value)
                                        for statement in other_side) \
            and all(isinstance(statement, nodes.Pass) or _kept_where_moved(statement, other_side)
                    for statement in cuda_side)
    return False


def _asks_tensor_device(node: nodes.NodeNG) -> bool:
    """`x.is_cuda`, "cuda" compared with `x.device.type`, or searched in the text of a tensor's
    device (`"cuda" in str(x.device)`, also through a name assigned `x.device`)."""
    if isinstance(node, nodes.Attribute):
        return node.attrname == "is_cuda" and qualified_name(node.expr) is None
    compare = node.parent
    if not (isinstance(node, nodes.Const) and isinstance(compare, nodes.Compare) and len(compare.ops) == 1):
        return False
    other = compare.ops[0][1] if compare.left is node else compare.left
    if compare.left is node and compare.ops[0][0] in ("in", "not in"):
        return _device_text(other)
    return isinstance(other, nodes.Attribute) and other.attrname == "type" \
        and isinstance(other.expr, nodes.Attribute) and other.expr.attrname == "device"


def _device_text(node: nodes.NodeNG) -> bool:
    """`str(x.device)`, or `str(device)` where every binding of `device` is `device = x.device`."""
    if not (isinstance(node, nodes.Call) and isinstance(node.func, nodes.Name) and node.func.name == "str"
            and len(node.args) == 1 and not node.keywords):
        return False
    device = node.args[0]
    if isinstance(device, nodes.Name):
        assignments = bindings(device)
        values = [assignment.parent.value for assignment in assignments
                  if isinstance(assignment, nodes.AssignName) and isinstance(assignment.parent, nodes.Assign)]
        if not values or len(values) != len(assignments):
            return False
        return all(_tensor_device(value) for value in values)
    return _tensor_device(device)


def _tensor_device(node: nodes.NodeNG) -> bool:
    return isinstance(node, nodes.Attribute) and node.attrname == "device" and qualified_name(node.expr) is None


def _kept_where_moved(statement: nodes.NodeNG, moving: list) -> bool:
    """`power, scale = self.power, self.scale` on the CUDA side where the other side has `power,
    scale = self.power.cpu(), self.scale.cpu()`: the same names bound to the same tensors, unmoved."""
    if not (isinstance(statement, nodes.Assign) and len(statement.targets) == 1):
        return False
    target = statement.targets[0].as_string()
    return any(isinstance(other, nodes.Assign) and len(other.targets) == 1 and other.targets[0].as_string() == target
               and _unmoved(other.value, statement.value) for other in moving)


def _unmoved(moved: nodes.NodeNG, kept: nodes.NodeNG) -> bool:
    """Is `kept` what `moved` sends to the host (`x` for `x.cpu()`, element by element in a tuple)?"""
    if isinstance(moved, (nodes.Tuple, nodes.List)):
        return type(kept) is type(moved) and len(kept.elts) == len(moved.elts) \
            and all(_unmoved(a, b) for a, b in zip(moved.elts, kept.elts))
    return isinstance(moved, nodes.Call) and isinstance(moved.func, nodes.Attribute) \
        and explicitly_on_cpu(moved) and moved.func.expr.as_string() == kept.as_string()


def _yes_means_cuda(node: nodes.NodeNG, test: nodes.NodeNG) -> bool:
    """Does `test` say yes where `node` (the CUDA part of it) says CUDA? `not`, `!=` and `not in`
    turn the answer around."""
    yes, child = True, node
    while child is not test:
        parent = child.parent
        if isinstance(parent, nodes.UnaryOp) and parent.op == "not":
            yes = not yes
        elif isinstance(parent, nodes.Compare) and any(op in ("!=", "not in") for op, _ in parent.ops):
            yes = not yes
        child = parent
    return yes


def _on_host(expression: nodes.NodeNG) -> bool:
    """`m.cpu()`, `m.to("cpu")`, and lists or tuples of them: what the expression makes is on the host."""
    if isinstance(expression, (nodes.ListComp, nodes.GeneratorExp)):
        return _on_host(expression.elt)
    if isinstance(expression, (nodes.Tuple, nodes.List)):
        return bool(expression.elts) and all(_on_host(element) for element in expression.elts)
    return isinstance(expression, nodes.Call) and explicitly_on_cpu(expression)


# The words of a keyword that takes "use CUDA or not" (`use_cuda=`, `cuda=`, `use_gpu=`), and
# those of one that takes which device or how many (`gpu_id=`, `num_gpus=`).
_SWITCH_WORDS = frozenset({"cuda", "gpu"})
_NOT_SWITCH_WORDS = frozenset({"device", "devices", "id", "ids", "idx", "index", "rank", "count", "num", "ordinal"})


def handed_to_cuda_switch(node: nodes.NodeNG) -> bool:
    """Is the test around `node` the value of a keyword that switches the callee to CUDA?
    `AblationCAM(model, layers, use_cuda=True if 'cuda' in model.device else False)` (mmyolo's
    boxam_utils, with pytorch-grad-cam), `MergeOptions(cuda=torch.cuda.is_available())` (trl,
    with mergekit), `onnx2saved_model(..., cuda=device.type == "cuda")` (ultralytics, which then
    installs onnxruntime-gpu): the callee calls `.cuda()` or picks its CUDA build when the
    switch is on. On the NPU the test says no and the callee takes its CPU path; "npu" there
    would turn the switch on and send the NPU machine down the CUDA path. Only for a library's
    callee (`_library_callee`): the project's own is ported where it uses the switch."""
    test, _siblings = test_expression(node)
    if test is node and isinstance(node, (nodes.Const, nodes.JoinedStr)):
        return False  # a string that is not compared is no test
    value, parent = test, test.parent
    if isinstance(parent, nodes.IfExp) and parent.test is value and all(
            isinstance(side, nodes.Const) for side in (parent.body, parent.orelse)):
        # `True if <test> else False`, `gpus=1 if torch.cuda.is_available() else 0` (Lightning 1.x),
        # `precision="16-mixed" if torch.cuda.is_available() else "32-true"`: a switch takes one of
        # two settings; `torch_cuda=torch.cuda.get_rng_state() if ... else None` (nanotron) is a value
        value, parent = parent, parent.parent
    if isinstance(parent, nodes.Assign) and parent.value is value and len(parent.targets) == 1 \
            and isinstance(parent.targets[0], nodes.AssignName) \
            and isinstance(parent.scope(), (nodes.FunctionDef, nodes.Lambda)):
        # `use_gpu = torch.cuda.is_available()` then `faiss.Kmeans(d, k, gpu=use_gpu)` (colbert's
        # compute_faiss_kmeans): the flag, kept in a local name, is the library's switch
        return any(_is_switch_value(use) for use in _uses(parent.targets[0]))
    if isinstance(parent, nodes.Assign) and parent.value is value and len(parent.targets) == 1 \
            and isinstance(parent.targets[0], nodes.AssignAttr):
        # `self.use_cuda = device == "cuda"` then `CLAP(..., use_cuda=self.use_cuda)` (msclap's
        # model built by an embedding wrapper): the flag kept on `self` is the library's switch
        # when the class stores it once and reads it only as such; a class that also reads it
        # itself (`x.cuda() if self.use_cuda else x`) moves its own data with it, and is ported
        reads = _self_flag_reads(parent.targets[0])
        return bool(reads) and all(_is_switch_value(read) for read in reads)
    return _is_switch_value(value)


def _self_flag_reads(target: nodes.AssignAttr) -> list[nodes.Attribute]:
    """The loads of `self.<name>` in the class whose method stores `target`, when that is the
    class's only store of the attribute; else []."""
    if not (isinstance(target.expr, nodes.Name) and target.expr.name == "self"):
        return []
    method = target.frame()
    klass = method.parent if isinstance(method, nodes.FunctionDef) else None
    if not isinstance(klass, nodes.ClassDef) or len(klass.instance_attrs.get(target.attrname, ())) != 1:
        return []
    return [use for use in klass.nodes_of_class(nodes.Attribute)
            if use.attrname == target.attrname and isinstance(use.expr, nodes.Name) and use.expr.name == "self"]


def _is_switch_value(value: nodes.NodeNG) -> bool:
    """Is `value` the value of a keyword that switches a library's callee to CUDA? Also a
    positional argument of the project's own function whose parameter it fills is only handed
    on as such a keyword (mmcls 0.x's vis_cam.py: `init_cam(method, model, layers, use_cuda)`)."""
    parent = value.parent
    if isinstance(parent, nodes.Call) and value in parent.args:
        parameter = parameter_filled_by_position(parent, value)
        return parameter is not None and _switch_name(parameter) and hands_keyword_to_library(parent, parameter)
    if not (isinstance(parent, nodes.Keyword) and parent.value is value and parent.arg):
        return False
    if not _switch_name(parent.arg):
        return False
    return _library_callee(parent.parent) or hands_keyword_to_library(parent.parent, parent.arg)


def _switch_name(keyword: str) -> bool:
    if keyword in tables().cuda_switches:
        return True
    words = set(identifier_words(keyword))
    return bool(words & _SWITCH_WORDS) and not words & _NOT_SWITCH_WORDS


def _library_callee(call: nodes.NodeNG) -> bool:
    """Is `call` into a library imported by name, neither torch nor the linted project's own?
    A switch of the project's own code is ported with it: fairseq's `task.disambiguate_pronoun(...,
    use_cuda=self.device.type == "cuda")` moves the sample with its own `move_to_cuda` (ported
    to the NPU) when the switch is on, so on the NPU the test must say yes. Also a method of an
    object the class made with a library's call (`self.comet_scorer = load_from_checkpoint(path)`)."""
    qname = qualified_name(call.func) if isinstance(call, nodes.Call) else None
    if qname is None:
        made_by = _instance_made_by(call.func) if isinstance(call, nodes.Call) else []
        return bool(made_by) and all(_library_name(qualified_name(value.func), call) for value in made_by)
    return _library_name(qname, call)


def _library_name(qname: str | None, call: nodes.NodeNG) -> bool:
    if qname is None:
        return False
    top = qname.split(".", 1)[0]
    return top not in ("torch", "torch_npu") and top not in own_packages(call.root().file or "")


def _instance_made_by(callee: nodes.NodeNG) -> list[nodes.Call]:
    """The calls that made the object whose method `callee` is, when it is `self.<name>.<method>`
    and every assignment of `self.<name>` in the class is a call (evalscope's COMET metric:
    `self.comet_scorer = load_from_checkpoint(path)`, then `self.comet_scorer.predict(...,
    gpus=1 if torch.cuda.is_available() else 0)`); else none."""
    values = values_stored_in_self(callee.expr) if isinstance(callee, nodes.Attribute) else None
    return values if values and all(isinstance(value, nodes.Call) for value in values) else []


def guarded_cuda_code(node: nodes.NodeNG) -> str | None:
    """What CUDA-only code the test around `node` keeps off other devices (`cupy.asarray`, the
    module's Triton kernel `fused_rope`, the CUDA build `deform_conv_ext`), or None."""
    test, siblings = test_expression(node)
    if test is node and isinstance(node, (nodes.Const, nodes.JoinedStr)):
        return None  # a string that is not compared is no test
    for sibling in siblings:
        found = _library_named(sibling) or _cuda_support_flag(sibling)
        if found:
            return found
        if compares_member_name(sibling):
            return "the `.cuda` method, whose name the test compares"
    parent = test.parent
    if isinstance(parent, nodes.Tuple) and isinstance(parent.parent, nodes.Assign):
        target = unpacked_into(parent, test)  # `_, heads, is_cuda = *q.shape, q.is_cuda`
        return next(filter(None, (_guarded(use) for use in _uses(target))), None) if target else None
    value = test
    if _passes_through(parent, test):
        value, parent = parent, parent.parent  # `use_triton = default(use_triton, q.is_cuda)`
    if isinstance(parent, nodes.Assign) and parent.value is value and len(parent.targets) == 1:
        target = parent.targets[0]
        if isinstance(target, nodes.AssignName):
            if spells_library(target.name) and _asks(test) and not _flag_of_absent_library(target):
                return f"`{target.name}`"
            return next(filter(None, (_guarded(use) for use in _uses(target))), None)
        if isinstance(target, nodes.AssignAttr):
            # `self.gpu_beam_blocking = blocking and torch.cuda.is_available()`, read by the class's
            # methods before the CUDA-only code they run (ParlAI's TreeSearch and NGramRepeatBlock)
            return next(filter(None, (_guarded(read) for read in _self_flag_reads(target))), None)
        return None
    found = _guarded(test)
    if found:
        return found
    kernel = _kernel_over_reference_twin(node, test)
    if kernel is not None:
        return kernel
    if _probe_answers_no(test):
        return f"the code that `{test.scope().name}` allows"
    if _returned_test_guards(test):
        return f"the CUDA kernel that `{test.scope().name}` allows"
    named = _answer_of_function_named_for_library(test, node)
    if named is not None:
        return named
    if _check_before_kernels(test):
        return f"the CUDA kernels that `{test.scope().name}` admits inputs to"
    base = library_base(test)
    if base is not None:
        return f"`{base}`, which its class extends"
    keyword = _cuda_only_keyword(test)
    if keyword is not None:
        return keyword
    return None


def _passes_through(call: nodes.NodeNG, argument: nodes.NodeNG) -> bool:
    """Is `call` a call of the module's own helper that hands back one of its arguments, with
    `argument` among them: `default(use_triton, q.is_cuda)`, whose `def default(v, d): return v
    if exists(v) else d` (lucidrains' modules) answers the test when no value was given?"""
    if not (isinstance(call, nodes.Call) and isinstance(call.func, nodes.Name) and argument in call.args
            and not call.keywords):
        return False
    function = next((statement for statement in call.root().body
                     if isinstance(statement, nodes.FunctionDef) and statement.name == call.func.name), None)
    if function is None or function.args.vararg or function.args.kwarg:
        return False
    parameters = {argument.name for argument in function.args.args}
    returns = list(function.nodes_of_class(nodes.Return))

    def handed_back(value: nodes.NodeNG | None) -> bool:
        if isinstance(value, nodes.IfExp):
            return handed_back(value.body) and handed_back(value.orelse)
        if isinstance(value, nodes.Call) and not value.args and not value.keywords:
            value = value.func  # `d() if callable(d) else d`
        return isinstance(value, nodes.Name) and value.name in parameters

    return bool(returns) and all(handed_back(statement.value) for statement in returns)


def _cuda_support_flag(sibling: nodes.NodeNG) -> str | None:
    """`self.device.type == "cuda" and NEIGHBORLIST_BACKEND_OPTIONS[nl_backend].supports_cuda`
    (nequip's ASE calculator, whose alchemiops neighbour list is the one backend marked so): the
    other side of the `and` says that the code the test lets in supports CUDA, so on another
    device the test must keep saying no."""
    if not isinstance(sibling, (nodes.Name, nodes.Attribute)):
        return None  # `not backend.supports_cuda` lets in the code that does not
    name = sibling.attrname if isinstance(sibling, nodes.Attribute) else sibling.name
    words = identifier_words(name)
    if "cuda" in words and any(word.startswith("support") for word in words):
        return f"the code that `{name}` says supports CUDA"
    return None


def _cuda_only_keyword(test: nodes.NodeNG) -> str | None:
    """`torch.linalg.svd(cov, driver="gesvd" if cov.is_cuda else None)` (Boltz's weighted rigid
    alignment): the test picks the value of a keyword only CUDA tensors take."""
    choice = test.parent
    if not (isinstance(choice, nodes.IfExp) and choice.test is test and isinstance(choice.parent, nodes.Keyword)):
        return None
    keyword = choice.parent
    qname = qualified_name(keyword.parent.func) if isinstance(keyword.parent, nodes.Call) else None
    if qname is not None and keyword.arg in tables().cuda_only_keywords.get(qname, ()):
        return f"the CUDA-only `{keyword.arg}=` of `{qname}`"
    return None


def _asks(test: nodes.NodeNG) -> bool:
    """Is `test` a question with a yes or no answer (`img.device.type == "cuda"`, `x.is_cuda`,
    `torch.cuda.is_available()`), as the flag a library's name holds is (`use_cupy = ...`)?
    `mem_after_marlin = torch.cuda.memory_allocated()` (axolotl's Marlin tests) holds a number."""
    if isinstance(test, (nodes.Compare, nodes.BoolOp, nodes.UnaryOp, nodes.Attribute)):
        return True
    if isinstance(test, nodes.Call):
        name = test.func.attrname if isinstance(test.func, nodes.Attribute) else getattr(test.func, "name", "")
        return name.startswith(("is_", "has_")) or "available" in name
    return False


def library_base(node: nodes.NodeNG) -> str | None:
    """`class _Linear8bitLt(bnb.nn.Linear8bitLt)` (Lightning's bitsandbytes precision plugin:
    `if device.type == "cuda": # re-quantize`): a test in a class that extends a CUDA-only
    library's class decides what the library does. The class is the port (NPU403); "npu" there
    would hand NPU weights to CUDA kernels. The first such base of an enclosing class, or None."""
    scope = node.scope()
    while scope is not None and not isinstance(scope, nodes.Module):
        if isinstance(scope, nodes.ClassDef):
            for base in scope.bases:
                qname = qualified_name(base)
                if qname is not None and _library(qname):
                    return qname
        scope = scope.parent.scope() if scope.parent is not None else None
    return None


def registers_cuda_kernel(node: nodes.NodeNG) -> bool:
    """Is `node` (a "cuda" string) the device that a decorator such as `torch.library.custom_op(...,
    device_types="cuda")` or `@op.register_kernel("cuda")` registers a CUDA kernel's function for?
    A function that runs one of the module's kernels, or calls a CUDA-only library (torchtitan's
    DeepEP dispatch ops, diffusers' FlashAttention-3 op): "npu" would register it for NPU tensors."""
    parent = node.parent
    if isinstance(parent, (nodes.Tuple, nodes.List)):
        parent = parent.parent
    if isinstance(parent, nodes.Keyword):
        parent = parent.parent
    if not isinstance(parent, nodes.Call):
        return False
    decorators = parent.parent
    function = decorators.parent if isinstance(decorators, nodes.Decorators) else None
    return isinstance(function, nodes.FunctionDef) and (
        runs_cuda_kernel(function) or any(_library_named(statement) for statement in function.body))


def _returned_test_guards(test: nodes.NodeNG) -> bool:
    """`def _eligible(x): return x.is_cuda and x.ndim == 4` (torchtitan's helion_rope.py): the
    test is the function's answer, and a call of it guards a CUDA kernel."""
    statement = test.parent
    if not (isinstance(statement, nodes.Return) and statement.value is test):
        return False
    function = statement.scope()
    if not isinstance(function, nodes.FunctionDef) or not kernel_names(function.root()):
        return False  # only modules with a kernel of their own, so most never look for calls
    for call in function.root().nodes_of_class(nodes.Call):
        callee = call.func
        name = callee.name if isinstance(callee, nodes.Name) else getattr(callee, "attrname", None)
        if name == function.name and _guarded(call) is not None:
            return True
    return False


def _answer_of_function_named_for_library(test: nodes.NodeNG, node: nodes.NodeNG) -> str | None:
    """`def _zp_wants_triton(device_type): ... return backend == "auto" and device_type == "cuda"`
    (auto-round's NeUQI sweeps, whose Triton kernels come from another package): the test is the
    answer of a function named for a CUDA-only library, as the flag a library's name holds is
    (`use_triton = x.is_cuda`). On the NPU it must keep saying no. Only for the device question
    itself (a device string, `.is_cuda`): `"A100" in torch.cuda.get_device_name()` in espnet's
    `is_flash_attn_supported` says no on the NPU once it runs, and it runs only as torch.npu's."""
    statement = test.parent
    if not (isinstance(statement, nodes.Return) and statement.value is test and _asks(test)):
        return None
    if not (isinstance(node, (nodes.Const, nodes.JoinedStr))
            or (isinstance(node, nodes.Attribute) and node.attrname == "is_cuda")):
        return None
    function = statement.scope()
    if isinstance(function, nodes.FunctionDef) and spells_library(function.name):
        return f"the code that `{function.name}` allows"
    return None


def _check_before_kernels(test: nodes.NodeNG) -> bool:
    """`def assert_supported(x): ... if x.device.type != "cuda": raise RuntimeError("fused RoPE runs
    CUDA kernels ...")` (DeepSpeed's ops/triton_ops/*.py): a function made only of checks that raise,
    in a module with Triton kernels of its own, is what callers run before those kernels. On the
    NPU it must go on raising, so that they keep their eager path; "npu" there would let NPU
    tensors into the kernels."""
    statement = test.parent
    refuses = (isinstance(statement, nodes.If) and statement.test is test and _raises_only(statement.body)) \
        or (isinstance(statement, nodes.Assert) and statement.test is test)
    function = statement.scope() if refuses else None
    if isinstance(function, nodes.FunctionDef) and _only_checks(_without_returned_input(function)) \
            and (bool(kernel_names(function.root())) or _called_before_library(function)):
        return True
    return _predicate_before_kernels(statement, test)


def _predicate_before_kernels(statement: nodes.NodeNG, test: nodes.NodeNG) -> bool:
    """`def spec_augment_launch_heuristics(x, length): if not x.is_cuda: return False; if length is
    None: return False; return True` (NeMo's numba SpecAugment, beside its `@cuda.jit` kernel): a
    function of checks that answer no and a last `return True`, in a module with CUDA kernels of its
    own, tells its callers whether those kernels may run. On the NPU it must go on saying no, so
    that they keep their torch path; `.is_npu` there would send NPU tensors into the kernels."""
    if not (isinstance(statement, nodes.If) and statement.test is test and not statement.orelse
            and len(statement.body) == 1 and _returns_false(statement)):
        return False
    function = statement.scope()
    if not isinstance(function, nodes.FunctionDef):
        return False
    body = [part for part in function.body if not _docstring(part)]
    if len(body) < 2 or not _returns_constant(body[-1], True):
        return False
    return all(isinstance(part, nodes.If) and not part.orelse and len(part.body) == 1 and _returns_false(part)
               for part in body[:-1]) and bool(kernel_names(function.root()))


def _returns_constant(statement: nodes.NodeNG, value: bool) -> bool:
    return isinstance(statement, nodes.Return) and isinstance(statement.value, nodes.Const) \
        and statement.value.value is value


_LAYOUT_METHODS = frozenset({"contiguous"})


def _without_returned_input(function: nodes.FunctionDef) -> list[nodes.NodeNG]:
    """The function's body without a last `return x` or `return x.contiguous()` of a parameter:
    DiffSynth-Studio's `_rows(x)` checks `if not x.is_cuda: raise ValueError("fp8 quantiser
    requires CUDA tensors")` and the shape, then hands the kernels' callers their input back
    contiguous."""
    body = function.body
    last = body[-1] if body else None
    value = last.value if isinstance(last, nodes.Return) else None
    if isinstance(value, nodes.Call) and not value.args and not value.keywords \
            and isinstance(value.func, nodes.Attribute) and value.func.attrname in _LAYOUT_METHODS:
        value = value.func.expr
    parameters = {arg.name for arg in function.args.arguments or ()}
    return body[:-1] if isinstance(value, nodes.Name) and value.name in parameters else body


def _called_before_library(function: nodes.FunctionDef) -> bool:
    """`check_valid_inputs(query, key, value)` in llm-foundry's flash_attn_fn, whose next statements
    call flash_attn's kernels: a check function of the module whose every call in it goes on to a
    CUDA-only library is what those callers run before the library."""
    if not isinstance(function.parent, nodes.Module):
        return False
    calls = [call for call in function.root().nodes_of_class(nodes.Call)
             if isinstance(call.func, nodes.Name) and call.func.name == function.name]
    return bool(calls) and all(any(_library_named(after) for after in statements_after(call.statement()))
                               for call in calls)


def _only_checks(statements: list[nodes.NodeNG]) -> bool:
    """Checks that raise (`if ...: raise`, `assert`), also in loops and under a test (OLMo-core's
    `if out is not None:` before its checks of `out`), with a docstring and the names they read:
    nothing that computes or calls."""
    for statement in statements:
        if isinstance(statement, nodes.If):
            if not ((_raises_only(statement.body) or _only_checks(statement.body))
                    and _only_checks(statement.orelse)):
                return False
        elif isinstance(statement, nodes.For):
            if not (_only_checks(statement.body) and not statement.orelse):
                return False
        elif isinstance(statement, nodes.Expr):
            if not isinstance(statement.value, nodes.Const):
                return False
        elif not isinstance(statement, (nodes.Assert, nodes.Assign, nodes.Pass)):
            return False
    return True


def argument_of_library_call(node: nodes.NodeNG) -> bool:
    """Is `node` part of an argument of a CUDA-only library's call? NeMo's numba RNNT loss hands
    torch's stream to numba: `cuda.external_stream(torch.cuda.current_stream(x.device).cuda_stream)`.
    The call is reported (NPU403) and its port takes the argument with it; renaming the argument
    alone would hand an NPU stream to a CUDA library."""
    child, parent = node, node.parent
    while parent is not None and not parent.is_statement and not isinstance(parent, nodes.Lambda):
        if isinstance(parent, nodes.Call) and child is not parent.func:
            qname = qualified_name(parent.func)
            if qname is not None and table().library_of(qname) is not None:
                return True  # CUDA-only ones: torch_scatter's CPU kernels may still get the value
            if qname is not None and _has_own_cuda_backend(qname) \
                    and argument_role(child.value if isinstance(child, nodes.Keyword) else child) != "device":
                # `WhisperModel(size, device="cuda" if torch.cuda.is_available() else "cpu")`,
                # `isaacgymenvs.make(..., graphics_device_id=0 if torch.cuda.is_available() else -1)`:
                # a test in the arguments of a library with CPU and CUDA backends of its own picks
                # what the library does with CUDA. On an Ascend host it says no, and the library
                # gets its CPU settings, the ones it can run there; torch.npu would say yes. Not
                # in a torch device it is handed (Isaac Gym's `rl_device`): that one is ported.
                return True
        child, parent = parent, parent.parent
    return isinstance(parent, nodes.Assign) and child is parent.value and all(
        _attribute_of_library_object(target) for target in parent.targets)


def _attribute_of_library_object(target: nodes.NodeNG) -> bool:
    """`flat_config.device = torch.cuda.device_count() - 1` after `flat_config =
    faiss.GpuIndexFlatConfig()` (mmselfsup's utils/clustering.py): a setting of an object a
    CUDA-only library made is handed to that library, as a call's argument is."""
    if not isinstance(target, nodes.AssignAttr) or not isinstance(target.expr, nodes.Name):
        return False
    value = single_value(target.expr)
    qname = qualified_name(value.func) if isinstance(value, nodes.Call) else None
    return qname is not None and table().library_of(qname) is not None


def given_to_cuda_only_call(expression: nodes.NodeNG) -> bool:
    """`Engine("cuda", workspace)` with libuipc's Engine (Genesis' IPC coupler), `cupy.cuda.Device(...)`:
    a value handed straight to a CUDA-only library's call. NPU403 (or NPU401, for a library used
    on every line) reports the call, whose port takes its arguments with it; renamed alone, the
    string hands "npu" to a library that knows no NPU. So is the device a tensor is moved to on its
    way into such a call, `cp.from_dlpack(x.to("cuda"))` (deepinv's ESPIRiT coil maps through
    CuPy): the library takes CUDA memory only, and the call's port moves the tensor with it. A
    value nested deeper (a torch tensor built for the call) is torch's and still ported."""
    moved = _tensor_moved_to(expression)
    if moved is not None:
        expression = moved
    holder = expression.parent
    if isinstance(holder, nodes.Keyword):
        holder = holder.parent
    elif not (isinstance(holder, nodes.Call) and expression in holder.args):
        return False
    qname = qualified_name(holder.func) if isinstance(holder, nodes.Call) else None
    if qname is None or table().library_of(qname) is None:
        return False
    advice = table().advice_for(qname)
    return advice is None or advice.runs_on_npu is None


def _tensor_moved_to(device: nodes.NodeNG) -> nodes.Call | None:
    """`x.to("cuda")`, `x.to(device="cuda")`, `x.cuda("cuda:0")`: the move whose device `device` is,
    or None."""
    holder = device.parent
    if isinstance(holder, nodes.Keyword):
        if holder.arg != "device":
            return None
        holder = holder.parent
    elif not (isinstance(holder, nodes.Call) and holder.args and holder.args[0] is device):
        return None
    if not (isinstance(holder, nodes.Call) and isinstance(holder.func, nodes.Attribute)
            and holder.func.attrname in ("to", "cuda")):
        return None
    return holder


# What lists an object's members by name: `dir(x)`, `vars(x)`, `inspect.getmembers(x, ...)` (whose
# pairs start with the name), and the keys or items of `vars(x)` or `x.__dict__`
_MEMBER_LISTINGS = frozenset({"dir", "vars", "getmembers"})


def compares_member_name(compare: nodes.NodeNG) -> bool:
    """`method_name == "cuda"` in `for method_name, method in inspect.getmembers(x,
    predicate=inspect.ismethod):` (deepinv's TensorList tests skip its `cuda` method without a
    GPU), `for name in dir(module):`: the loop walks the object's members by name, and "cuda"
    names the `.cuda` method, which keeps its name on the NPU; a CUDA query beside it asks
    whether that method can run, and on the NPU it rightly says no."""
    if not isinstance(compare, nodes.Compare):
        return False
    operands = [compare.left] + [operand for _op, operand in compare.ops]
    texts = [element for operand in operands
             for element in (operand.elts if isinstance(operand, (nodes.Tuple, nodes.List, nodes.Set)) else [operand])]
    return any(isinstance(text, nodes.Const) and text.value == "cuda" for text in texts) \
        and any(isinstance(operand, nodes.Name) and _member_name(operand) for operand in operands)


def _member_name(name: nodes.Name) -> bool:
    loop = name.scope()
    for found in loop.nodes_of_class(nodes.For):
        target = found.target
        if isinstance(target, nodes.Tuple) and target.elts:
            target = target.elts[0]
        if isinstance(target, nodes.AssignName) and target.name == name.name and _lists_members(found.iter):
            return True
    return False


def _lists_members(iterable: nodes.NodeNG) -> bool:
    if isinstance(iterable, nodes.Call) and isinstance(iterable.func, nodes.Attribute) \
            and iterable.func.attrname in ("keys", "items") and not iterable.args:
        owner = iterable.func.expr
        return (isinstance(owner, nodes.Attribute) and owner.attrname == "__dict__") or (
            isinstance(owner, nodes.Call) and getattr(owner.func, "name", None) == "vars")
    if not isinstance(iterable, nodes.Call):
        return False
    func = iterable.func
    callee = func.attrname if isinstance(func, nodes.Attribute) else getattr(func, "name", None)
    return callee in _MEMBER_LISTINGS


def _has_own_cuda_backend(qname: str) -> bool:
    """A callable of a library with CPU and CUDA backends of its own (data/arguments.yaml's
    `library_device` callees: CTranslate2, faster-whisper, XGBoost, LightGBM, Warp, Isaac Gym)."""
    role = tables().roles.get("library_device")
    return role is not None and any(qname == module or qname.startswith(module + ".") for module in role.callees)


def picked_by_cuda_query(expression: nodes.NodeNG) -> bool:
    """`"cuda" if torch.cuda.is_available() else "cpu"`: a value chosen by asking torch.cuda, which
    says no on an Ascend host (without transfer_to_npu), so the other branch is what runs there."""
    if not isinstance(expression, nodes.IfExp):
        return False
    for node in _walk(expression.test):
        if isinstance(node, nodes.Call):
            qname = qualified_name(node.func)
            if qname is not None and qname.startswith("torch.cuda."):
                return True
    return False


def _probe_answers_no(test: nodes.NodeNG) -> bool:
    """`def is_flash_attn_supported(): if not torch.cuda.is_available(): return False`: a function
    named for a CUDA-only library tells whether the library can run; on the NPU it must say no."""
    parent = test.parent
    if not (isinstance(parent, nodes.If) and parent.test is test and parent.body
            and isinstance(parent.body[-1], _EXITS)):
        return False
    scope = test.scope()
    return isinstance(scope, nodes.FunctionDef) and (spells_library(scope.name) or _probes_cudnn(scope, parent))


def _probes_cudnn(function: nodes.FunctionDef, device_test: nodes.If) -> bool:
    """`def _should_use_custom_op(x): if not torch.backends.cudnn.enabled: return False; if
    x.device.type != "cuda": return False` (StyleGAN's conv2d_gradfix in mmcv): a function that
    answers no when cuDNN is off tells whether a cuDNN path may run. `torch.backends.cudnn.enabled`
    stays True on the NPU, so the device test is what keeps NPU tensors out of cuDNN's kernels."""
    if not _returns_false(device_test):
        return False
    for statement in function.body:
        if isinstance(statement, nodes.If) and statement is not device_test and _returns_false(statement) \
                and any(_cudnn_setting(node) for node in statement.test.nodes_of_class(nodes.Attribute)):
            return True
    return False


def _returns_false(statement: nodes.If) -> bool:
    last = statement.body[-1]
    return isinstance(last, nodes.Return) and isinstance(last.value, nodes.Const) and last.value.value is False


def _cudnn_setting(node: nodes.Attribute) -> bool:
    qname = qualified_name(node) if node.attrname in ("enabled", "is_available") else None
    return qname in ("torch.backends.cudnn.enabled", "torch.backends.cudnn.is_available")


def test_expression(node: nodes.NodeNG) -> tuple[nodes.NodeNG, list[nodes.NodeNG]]:
    """The whole test around `node`, and the other operands of the `and`/`or` it is part of."""
    siblings: list[nodes.NodeNG] = []
    while True:
        parent = node.parent
        if isinstance(parent, nodes.BoolOp):
            siblings.extend(value for value in parent.values if value is not node)
        elif isinstance(parent, nodes.Call) and node in parent.args:
            func = parent.func
            if not (isinstance(func, nodes.Attribute) and func.attrname in STRING_TESTS) \
                    and not _device_compared(parent):
                return node, siblings
        elif isinstance(parent, nodes.Call) and parent.func is node:
            pass  # torch.cuda.is_available -> torch.cuda.is_available()
        elif _compared_part_of_answer(node, parent):
            pass  # torch.cuda.get_device_capability()[0] >= 8: the part of the answer compared
        elif isinstance(parent, (nodes.Tuple, nodes.List, nodes.Set)) and isinstance(parent.parent, nodes.Compare) \
                and parent is not parent.parent.left:
            pass  # device.type in ("cuda", "xpu"): the devices the comparison asks for
        elif _asked_of_each(node, parent):
            parent = parent.parent  # all(i.is_cuda for i in (q, k, v)): one answer for them all
        elif not (isinstance(parent, nodes.Compare) or (isinstance(parent, nodes.UnaryOp) and parent.op == "not")):
            return node, siblings
        node = parent


def _device_compared(call: nodes.Call) -> bool:
    """`device == torch.device("cuda")` (ludwig's llm_utils): the device built only to be compared
    is the same test as `device == "cuda"`, so both ask one question of the code they decide."""
    return isinstance(call.parent, nodes.Compare) and qualified_name(call.func) == "torch.device"


def _compared_part_of_answer(call: nodes.NodeNG, part: nodes.NodeNG) -> bool:
    """Is `part` an item or attribute of the answer of `call` that a comparison reads?
    `hasattr(flash_pack, "flash_attn_func") and torch.cuda.get_device_capability()[0] >= 8`
    (OpenNMT-py's MultiHeadedAttention, after `import_module("flash_attn")`),
    `torch.cuda.get_device_properties(0).major >= 8`: the comparison is the test, as
    `torch.cuda.get_device_capability() >= (8, 0)` is."""
    if not isinstance(call, nodes.Call) or not isinstance(part.parent, nodes.Compare):
        return False
    if isinstance(part, nodes.Subscript):
        return part.value is call
    return isinstance(part, nodes.Attribute) and part.expr is call


def _asked_of_each(node: nodes.NodeNG, comprehension: nodes.NodeNG) -> bool:
    """Is `node` the question that `all(...)` or `any(...)` asks of every item of its only
    argument, a comprehension? `assert all((i.is_cuda for i in (q, k, v)))` in Megatron's
    FlashSelfAttention (Qwen's modeling code), before flash_attn's kernel: the call is the test."""
    if not (isinstance(comprehension, (nodes.GeneratorExp, nodes.ListComp)) and comprehension.elt is node):
        return False
    call = comprehension.parent
    return isinstance(call, nodes.Call) and isinstance(call.func, nodes.Name) and call.func.name in ("all", "any") \
        and call.args == [comprehension] and not call.keywords


def decides_code_naming(node: nodes.NodeNG, names: frozenset[str]) -> str | None:
    """The first of `names` that the code decided by the test around `node` names, as a string (a
    dict key, `getattr`'s attribute), an attribute or a keyword argument; else None. InsightFace's
    person_package.py: `(p, {"use_tf32": "0"}) if p == "CUDAExecutionProvider" else p` gives the
    CUDA provider options only it takes, and onnxruntime_utils.py returns early unless
    `"CUDAExecutionProvider" in names`, before `getattr(onnxruntime, "preload_dlls")` loads the
    CUDA libraries: the test is that code's own, and on the NPU it rightly says no."""
    test, _siblings = test_expression(node)
    for part in _decided_by(test):
        for inner in _walk(part):
            if isinstance(inner, nodes.Const) and isinstance(inner.value, str) and inner.value in names:
                return inner.value
            if isinstance(inner, nodes.Attribute) and inner.attrname in names:
                return inner.attrname
            if isinstance(inner, nodes.Keyword) and inner.arg in names:
                return inner.arg
    return None


def _guarded(test: nodes.NodeNG) -> str | None:
    """What the code `test` decides about runs on CUDA only: a CUDA-only library it names, the
    project's CUDA implementation picked over its CPU counterpart, a CUDA build it is handed to."""
    test, siblings = test_expression(test)
    for part in siblings + list(_decided_by(test)):
        found = _library_named(part)
        if found:
            return found
    found = _exit_message_names_library(test)
    if found:
        return found
    build = _cuda_build_beside_cpu_build(test)
    if build:
        return build
    if _raises_before_foreign_call(test):
        return "code imported from outside torch that takes CUDA tensors only"
    if _picks_counterpart(test) or _prepares_for_counterpart_pick(test):
        return "the project's CUDA implementation"
    if _handed_to_cuda_build(test):
        return "the module's CUDA build"
    return None


def _cuda_build_beside_cpu_build(test: nodes.NodeNG) -> str | None:
    """`check_requirements(f"tensorflow{'' if torch.cuda.is_available() else '-cpu'}")` (yolov5 7.0's
    export.py, also behind `'-macos' if MACOS`): the test picks the end of a requirement whose other
    side is the library's CPU build (`tensorflow-cpu`), so its CUDA side is the build for CUDA, as
    `"onnxruntime-gpu" if cuda else "onnxruntime"` is; the NPU wants the CPU build."""
    choice = test.parent
    if not (isinstance(choice, nodes.IfExp) and choice.test is test and isinstance(choice.parent, nodes.FormattedValue)):
        return None
    joined = choice.parent.parent
    if not isinstance(joined, nodes.JoinedStr):
        return None
    before = joined.values[:joined.values.index(choice.parent)]
    if not all(isinstance(part, nodes.Const) and isinstance(part.value, str) for part in before):
        return None
    prefix = "".join(part.value for part in before)
    for text in _branch_texts(choice.orelse):
        name = _REQUIREMENT_NAME.match(prefix + text)
        if name is not None and name.group(0).lower().endswith("-cpu"):
            return f"the CUDA build of `{prefix}`, beside `{name.group(0)}`"
    return None


def _branch_texts(value: nodes.NodeNG) -> list[str]:
    """The strings a choice among literals (`'-macos' if MACOS else '-cpu'`) may give."""
    if isinstance(value, nodes.Const) and isinstance(value.value, str):
        return [value.value]
    if isinstance(value, nodes.IfExp):
        return _branch_texts(value.body) + _branch_texts(value.orelse)
    return []


def _exit_message_names_library(test: nodes.NodeNG) -> str | None:
    """`assert torch.cuda.is_available(), "CUDA required for bitsandbytes optimizers"` (timm's
    optimizer factory, where the library is then imported from a string): the assert's message
    (or a pytest skip's reason) names the library that the path past it runs, by its module name
    (`torch.sparse` is torch's, not torch_sparse). Only an assert's: a raise's message may name a
    library among other reasons ("AMP or APEX ... only on CUDA devices", where torch's AMP runs on
    the NPU too), unless the module imports that library: rf-detr's TensorRT runtime (`import
    tensorrt as trt`) checks the engine's device with `if requested.type != "cuda": raise
    ValueError("TensorRT runs on CUDA devices only, ...")`, or names a CUDA extension the project's
    setup.py builds: torchani 2.9's `if species.device.type != "cuda" and species.shape[1] != 0:
    raise ValueError("cuAEV requires inputs in a CUDA device ...")` before it runs `torchani.cuaev`."""
    parent = test.parent
    message = _skip_reason(test)
    libraries = _message_libraries()
    if message is None and isinstance(parent, nodes.Assert) and parent.test is test:
        message = parent.fail
    if message is None and isinstance(parent, nodes.If) and parent.test is test and len(parent.body) == 1 \
            and isinstance(parent.body[0], nodes.Raise) and parent.body[0].exc is not None:
        message = parent.body[0].exc
        imported = {name.split(".", 1)[0] for name in facts_of(test).imported}
        libraries = tuple(module for module in libraries if module in imported) \
            + tuple(sorted(extension_short_names(test.root())))
    if message is None:
        return None
    texts = [node.value for node in _walk(message) if isinstance(node, nodes.Const) and isinstance(node.value, str)]
    return next((f"`{module}`" for module in libraries for text in texts
                 if re.search(rf"(?<![\w.]){re.escape(module)}(?![\w])", text, re.IGNORECASE)), None)


def _skip_reason(test: nodes.NodeNG) -> nodes.NodeNG | None:
    """`pytest.mark.skipif(not torch.cuda.is_available(), reason="the nvalchemiops path needs CUDA")`
    (matgl's tests/ext): the reason of a skip the test decides, which says what the tests past it run."""
    call = test.parent
    if not (isinstance(call, nodes.Call) and call.args and call.args[0] is test):
        return None
    func = call.func
    if not (isinstance(func, nodes.Attribute) and func.attrname == "skipif"):
        return None
    return next((keyword.value for keyword in call.keywords or () if keyword.arg == "reason"), None)


@functools.lru_cache(maxsize=1)
def _message_libraries() -> tuple[str, ...]:
    return tuple(module for module in (*table().libraries, *table().without_npu_kernels, *table().rocm_only)
                 if "." not in module)


def _handed_to_cuda_build(test: nodes.NodeNG) -> bool:
    """`lsh_cumulation.fast_hash(q, k, use_cuda, 1)` (transformers' YOSO): the test is an argument of
    a function of the module's CUDA build, which asks it for its CUDA path; `True` there on the
    NPU would run the CUDA kernel on NPU memory."""
    child = test.parent if isinstance(test.parent, nodes.Keyword) else test
    call = child.parent
    if not isinstance(call, nodes.Call) or child is call.func:
        return False
    callee = call.func
    while isinstance(callee, nodes.Attribute):
        callee = callee.expr
    return isinstance(callee, nodes.Name) and callee is not call.func and _bound_by_import_call(callee)


def _picks_counterpart(test: nodes.NodeNG) -> bool:
    """`rnnt.rnnt_loss_gpu if is_cuda else rnnt.rnnt_loss_cpu` (espnet), `if p.is_cuda: from
    alignment_train_cuda_binding import ... else: from alignment_train_cpu_binding import ...`
    (fairseq), `QuantizedFunctionsCUDA.get("Quantize_forward")(x)` over the same call of
    `QuantizedFunctionsCPU`, both imported (nncf 3.4): the test picks a function or an extension
    built for CUDA over its CPU twin. On the NPU the CPU one is what runs; `.is_npu` would send
    NPU tensors into the CUDA one. Only functions picked by reference and imports count: buckets
    and states kept per device (`cuda_grad_params.append(p)`, `DeviceGPU()`, torchsnapshot's
    `slabs = gpu_slabs`) are where NPU values belong."""
    parent = test.parent
    if isinstance(parent, nodes.IfExp) and parent.test is test:
        if any(_device_shapes(_function_reference(side))[0] and _own_torch_function(side)
               for side in (parent.body, parent.orelse)):
            return False  # `shift_gpu if x.device.type == "cuda" else shift_cpu`: the faster torch code
        sides = [_function_reference(parent.body) + _imported_builds_called([parent.body]),
                 _function_reference(parent.orelse) + _imported_builds_called([parent.orelse])]
    elif isinstance(parent, nodes.If) and parent.test is test and parent.orelse:
        if _picks_cuda_function(parent.body) and _raises_only(parent.orelse):
            return True  # `if is_cuda: loss_func = rnnt.tdt_loss_gpu else: raise ...` (NeMo): no twin
        sides = [_imported_names(side) + _assigned_references(side) + _imported_builds_called(side)
                 for side in (parent.body, parent.orelse)]
        if _calls_own_twins(parent.body, parent.orelse):
            return True
    elif isinstance(parent, nodes.If) and parent.test is test and parent.body and isinstance(parent.body[-1], nodes.Return):
        after = next(statements_after(parent), None)
        if after is None:
            return False
        if _calls_own_twins(parent.body, [after]):
            return True
        sides = [_imported_builds_called(parent.body), _imported_builds_called([after])]
    else:
        return False
    (cuda_a, cpu_a), (cuda_b, cpu_b) = (_device_shapes(side) for side in sides)
    return bool(cuda_a & cpu_b or cpu_a & cuda_b)


_CUDA_ONLY_MESSAGE = re.compile(r"\bcuda\b", re.IGNORECASE)


def _raises_before_foreign_call(test: nodes.NodeNG) -> bool:
    """`if not v.is_cuda: raise NotImplementedError("Only support CUDA tensors")` before `return
    cauchy_mult_fwd(v, z, w)`, imported from a module that is neither torch nor the project's
    (espnet's state_spaces/cauchy.py, over the `cauchy_mult` CUDA extension): the raise keeps
    other devices' tensors out of code that says it takes CUDA tensors only. On the NPU the
    error is the honest answer; `.is_npu` would hand NPU tensors to that code."""
    parent = test.parent
    if not (isinstance(parent, nodes.If) and parent.test is test and len(parent.body) == 1
            and isinstance(parent.body[0], nodes.Raise) and parent.body[0].exc is not None and not parent.orelse):
        return False
    if not any(isinstance(node, nodes.Const) and isinstance(node.value, str) and _CUDA_ONLY_MESSAGE.search(node.value)
               for node in _walk(parent.body[0].exc)):
        return False
    tested = {node.expr.name for node in _walk(test)
              if isinstance(node, nodes.Attribute) and node.attrname == "is_cuda" and isinstance(node.expr, nodes.Name)}
    if not tested:
        return False
    own = own_packages(test.root().file or "")
    for statement in statements_after(parent):
        for call in statement.nodes_of_class(nodes.Call):
            if not (isinstance(call.func, nodes.Name)
                    and any(isinstance(arg, nodes.Name) and arg.name in tested for arg in call.args)):
                continue
            definitions = call.func.root().locals.get(call.func.name, ())
            if len(definitions) == 1 and isinstance(definitions[0], nodes.ImportFrom) and not definitions[0].level:
                top = (definitions[0].modname or "").split(".", 1)[0]
                if top and top not in ("torch", "torch_npu") and top not in sys.stdlib_module_names \
                        and top not in own:
                    return True
    return False


def _prepares_for_counterpart_pick(test: nodes.NodeNG) -> bool:
    """`if not acts.is_cuda: acts = log_softmax(acts)` before `return _RNNTNumba.apply(acts, ...)`
    (espnet's and NeMo's numba RNN-T losses), also through `self.loss = _RNNTNumba.apply`: the test
    readies the value for the build that the module's own function or class, handed that value
    next, picks with its own `.is_cuda` test (`rnnt_loss_gpu if is_cuda else rnnt_loss_cpu`,
    left alone). Both tests must keep agreeing: on the NPU the CPU build runs, so the CPU side of
    this one is right, and `.is_npu` here alone would hand it unprepared input."""
    parent = test.parent
    value = test.operand if isinstance(test, nodes.UnaryOp) and test.op == "not" else test
    if not (isinstance(parent, nodes.If) and parent.test is test and isinstance(value, nodes.Attribute)
            and value.attrname == "is_cuda" and isinstance(value.expr, nodes.Name)):
        return False
    name = value.expr.name
    for statement in statements_after(parent):
        for call in statement.nodes_of_class(nodes.Call):
            if not any(isinstance(arg, nodes.Name) and arg.name == name for arg in call.args):
                continue
            if any(_picks_counterpart(node.test) for callee in _own_callees_of(call.func, parent)
                   for node in callee.nodes_of_class((nodes.If, nodes.IfExp))):
                return True
    return False


def _own_callees_of(func: nodes.NodeNG, at: nodes.NodeNG) -> list[nodes.NodeNG]:
    """The module's own class or function a call reaches: `Name(...)`, `Name.apply(...)`, or
    `self.attr(...)` where the class sets `self.attr = Name.apply`."""
    if isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name) and func.expr.name == "self":
        klass = at.scope().parent.frame() if at.scope().parent else None
        if not isinstance(klass, nodes.ClassDef):
            return []
        values = [assign.parent.value for assign in klass.nodes_of_class(nodes.AssignAttr)
                  if assign.attrname == func.attrname and isinstance(assign.expr, nodes.Name)
                  and assign.expr.name == "self" and isinstance(assign.parent, nodes.Assign)]
        return [found for value in values for found in _own_callees_of(value, klass)] if len(values) == 1 else []
    if isinstance(func, nodes.Attribute) and func.attrname == "apply":
        func = func.expr
    if not isinstance(func, nodes.Name):
        return []
    definitions = func.root().locals.get(func.name, ())
    return [definitions[0]] if len(definitions) == 1 \
        and isinstance(definitions[0], (nodes.ClassDef, nodes.FunctionDef)) else []


def _own_torch_function(reference: nodes.NodeNG) -> bool:
    """`shift_gpu` of `shift = shift_gpu if samples.device.type == "cuda" else shift_cpu`
    (torch-audiomentations' Shift: `torch.gather` over the whole batch, where `shift_cpu` rolls one
    sample at a time after `.item()`): a function of the module, undecorated, that imports nothing
    and calls only torch, builtins and the values it holds. It is the faster torch code for an
    accelerator, not a CUDA build's, and the NPU should take it too."""
    if not isinstance(reference, nodes.Name):
        return False
    definitions = reference.root().locals.get(reference.name, ())
    if len(definitions) != 1 or not isinstance(definitions[0], nodes.FunctionDef) or definitions[0].decorators:
        return False
    function = definitions[0]
    if any(True for _ in function.nodes_of_class((nodes.Import, nodes.ImportFrom))):
        return False
    for call in function.nodes_of_class(nodes.Call):
        root = call.func
        while isinstance(root, nodes.Attribute):
            root = root.expr
        if not isinstance(root, nodes.Name):
            continue  # a method of a value the function made
        bound_by = bindings(root)
        if not bound_by:
            return False
        for bound in bound_by:
            if bound.root().name == "builtins" or bound.scope() is function:
                continue  # `range(...)`, a parameter's or a local tensor's method
            if isinstance(bound, (nodes.Import, nodes.ImportFrom)) \
                    and (qualified_name(call.func) or "").startswith("torch."):
                continue
            return False
    return True


def _setting_kept_only_for_cuda(cuda_side: nodes.NodeNG, other_side: nodes.NodeNG) -> bool:
    """`self.cuda_config` over `self.cpu_config`, twins by name, the CUDA one started as None."""
    if not all(isinstance(side, nodes.Attribute) for side in (cuda_side, other_side)):
        return False
    cuda, _ = _device_shapes([cuda_side.attrname])
    _, cpu = _device_shapes([other_side.attrname])
    stored = values_stored_in_self(cuda_side)
    return bool(cuda & cpu) and values_stored_in_self(other_side) is not None and stored is not None \
        and any(isinstance(value, nodes.Const) and value.value is None for value in stored)


def _calls_own_twins(side_a: list[nodes.NodeNG], side_b: list[nodes.NodeNG]) -> bool:
    """`if use_custom_op and x.is_cuda: return _bias_act_cuda(...).apply(x, b)` / `return
    _bias_act_ref(x, b)` (StyleGAN's ops in mmcv: bias_act, upfirdn2d, filtered_lrelu): one side
    calls a function or class of the module named for CUDA, the other its reference twin that
    differs only in that word (`ref`, `native`, `torch`). The CUDA one wraps the project's CUDA
    extension; on the NPU the reference is the one that runs. Both must be the module's own
    (`x.to_cuda()` is no twin), and a `cpu` twin does not count here: `_load_gpu()` over
    `_load_cpu()` may be device setup that the port should follow."""
    module = (side_a or side_b)[0].root()
    names_a, names_b = _own_callees(side_a, module), _own_callees(side_b, module)
    return _twins(names_a, names_b) or _twins(names_b, names_a)


def _twins(cuda_side: set[str], other_side: set[str]) -> bool:
    """A name of `cuda_side` with a `cuda`/`gpu` word and more, and a name of `other_side` that has
    the same words but a word for a reference implementation in its place."""
    others = [identifier_words(name) for name in other_side]
    for name in cuda_side:
        words = identifier_words(name)
        for index, word in enumerate(words):
            if word not in _CUDA_WORDS or len(words) < 2:
                continue
            if any(len(other) == len(words) and other[:index] == words[:index]
                   and other[index + 1:] == words[index + 1:] and other[index] in _REFERENCE_WORDS
                   for other in others):
                return True
    return False


def _kernel_over_reference_twin(node: nodes.NodeNG, test: nodes.NodeNG) -> str | None:
    """`if torch.cuda.is_available() and verts.is_cuda: gather_scatter(v, e)` / `else:
    gather_scatter_python(v, e)`, `def interpolate_face_attributes(p, ...): if not p.is_cuda:
    return interpolate_face_attributes_python(p, ...)` then the extension's autograd function
    (pytorch3d's ops/graph_conv.py, interp_face_attrs.py): the other side calls the module's own
    `X_python` (`_ref`, `_naive`, `_torch`), the same words as the function the CUDA side calls
    or as the function whose rest is the CUDA side, which is then the compiled kernel. On the NPU
    the reference is what runs; `.is_npu` would send NPU tensors into a kernel built for CUDA.
    Says what the CUDA side runs, or None."""
    parent = test.parent
    if isinstance(parent, nodes.IfExp) and parent.test is test:
        body, orelse = [parent.body], [parent.orelse]
    elif isinstance(parent, nodes.If) and parent.test is test:
        body, orelse = parent.body, parent.orelse
        if not orelse and body and isinstance(body[-1], nodes.Return):
            orelse = list(statements_after(parent))
    else:
        return None
    cuda_side, other_side = (body, orelse) if _yes_means_cuda(node, test) else (orelse, body)
    if not other_side:
        return None
    module = parent.root()
    kernels = {identifier_words(name): f"`{name}`" for name in _own_called_names(cuda_side, module)}
    scope = parent.scope()
    if isinstance(scope, nodes.FunctionDef) and isinstance(other_side[-1], nodes.Return) and cuda_side is not body:
        kernels[identifier_words(scope.name)] = f"the rest of `{scope.name}`"  # its own kernel path
    for name in sorted(_own_called_names(other_side, module)):
        words = identifier_words(name)
        kernel = kernels.get(words[:-1]) if words[-1] in _REFERENCE_WORDS else None
        kernel = kernel or (kernels.get(words[1:]) if words[0] in _REFERENCE_WORDS else None)
        if len(words) > 1 and kernel:
            return f"{kernel} (its reference twin is `{name}`)"
    return None


def _own_called_names(statements: list[nodes.NodeNG], module: nodes.Module) -> set[str]:
    """The names of the module's own functions and classes, and of the module-level names bound
    to them (`gather_scatter = GatherScatter.apply`), that `statements` call."""
    names = set()
    for statement in statements:
        for call in statement.nodes_of_class(nodes.Call):
            func = call.func
            if isinstance(func, nodes.Name) and any(
                    isinstance(definition, _DEFINITIONS)
                    or isinstance(definition, nodes.AssignName) and definition.scope() is module
                    for definition in module.locals.get(func.name, ())):
                names.add(func.name)
    return names


def _own_callees(statements: list[nodes.NodeNG], module: nodes.Module) -> set[str]:
    """The module's own functions and classes that `statements` call by name."""
    names = set()
    for statement in statements:
        for call in statement.nodes_of_class(nodes.Call):
            func = call.func
            if isinstance(func, nodes.Name) and any(
                    isinstance(definition, _DEFINITIONS) for definition in module.locals.get(func.name, ())):
                names.add(func.name)
    return names


def _picks_cuda_function(statements: list[nodes.NodeNG]) -> bool:
    """`loss_func = rnnt.multiblank_rnnt_loss_gpu`: every statement binds a function picked by
    reference whose name says CUDA or GPU."""
    return bool(statements) and all(
        isinstance(statement, nodes.Assign) and _device_shapes(_function_reference(statement.value))[0]
        for statement in statements
    )


def _raises_only(statements: list[nodes.NodeNG]) -> bool:
    return len(statements) == 1 and isinstance(statements[0], nodes.Raise)


def _function_reference(node: nodes.NodeNG) -> list[str]:
    """`rnnt_loss_gpu`, `rnnt.rnnt_loss_gpu`: a name picked, not called, and no state of `self`."""
    if isinstance(node, nodes.Name):
        return [] if _bucket(node) else [node.name]
    if isinstance(node, nodes.Attribute) and isinstance(node.expr, nodes.Name) and node.expr.name not in ("self", "cls"):
        return [node.attrname]
    return []


# The collections a program fills as it goes; not a tuple, which may pair a kernel's functions
_BUCKETS = (nodes.List, nodes.Dict, nodes.Set, nodes.ListComp, nodes.DictComp, nodes.SetComp)


def _bucket(name: nodes.Name) -> bool:
    """`gpu_slabs` of `gpu_slabs: List[Slab] = [Slab(...)]` (torchsnapshot's batcher picks
    `slabs = gpu_slabs` over `cpu_slabs`): a name bound once to a collection it makes holds values
    per device, no function built for one; the NPU's values belong in the CUDA one."""
    return isinstance(single_value(name), _BUCKETS)


def _assigned_references(statements: list[nodes.NodeNG]) -> list[str]:
    """`forward = spmm.spmm_add_mul_forward_cuda` / `forward = spmm.spmm_add_mul_forward_cpu`
    (torchdrug's layers/functional: its extension's kernels picked per device): the statement form
    of `rnnt.rnnt_loss_gpu if is_cuda else rnnt.rnnt_loss_cpu`, a function picked by reference."""
    return [name for statement in statements if isinstance(statement, nodes.Assign)
            for name in _function_reference(statement.value)]


def _imported_names(statements: list[nodes.NodeNG]) -> list[str]:
    names = []
    for statement in statements:
        if isinstance(statement, nodes.ImportFrom):
            names += [statement.modname, *(name for name, _alias in statement.names)]
        elif isinstance(statement, nodes.Import):
            names += [name for name, _alias in statement.names]
    return names


def _imported_builds_called(statements: list[nodes.NodeNG]) -> list[str]:
    """`QuantizedFunctionsCUDA.get("Quantize_forward")(x, ...)` over `QuantizedFunctionsCPU.get(...)`
    (nncf 3.4's quantize_functions.py), `fused_ops_cuda.scale(x)` over `fused_ops_cpu.scale(x)`: the
    names, bound by an import, of the builds whose functions the statements call through an
    attribute. The statement form of the fairseq imports, made once at the module's top. Not a name
    called itself (`DeviceStatsGPU()` makes an object kept per device), nor `self`'s state."""
    names = []
    for statement in statements:
        for call in statement.nodes_of_class(nodes.Call):
            root, through_attribute = call.func, False
            while isinstance(root, (nodes.Attribute, nodes.Call)):
                through_attribute = through_attribute or isinstance(root, nodes.Attribute)
                root = root.expr if isinstance(root, nodes.Attribute) else root.func
            if through_attribute and isinstance(root, nodes.Name) and any(
                    isinstance(bound, (nodes.Import, nodes.ImportFrom)) for bound in bindings(root)):
                names.append(root.name)
    return names


def _device_shapes(identifiers: list[str]) -> tuple[set, set]:
    """The identifiers with a `cuda`/`gpu` word and those with a `cpu` word, as (words before,
    words after); a bare `cuda` or `cpu` (`x.cuda`) is torch's, not a twin."""
    cuda, cpu = set(), set()
    for identifier in identifiers:
        words = identifier_words(identifier)
        for index, word in enumerate(words):
            shape = (words[:index], words[index + 1:])
            if len(words) > 1 and word in ("cuda", "gpu"):
                cuda.add(shape)
            elif len(words) > 1 and word == "cpu":
                cpu.add(shape)
    return cuda, cpu


def _decided_by(test: nodes.NodeNG) -> Iterator[nodes.NodeNG]:
    parent = test.parent
    if isinstance(parent, nodes.IfExp) and parent.test is test:
        yield parent.body
        yield parent.orelse
    elif isinstance(parent, (nodes.If, nodes.While)) and parent.test is test:
        yield from parent.body
        yield from parent.orelse
        if (parent.body and isinstance(parent.body[-1], _EXITS)) \
                or (parent.orelse and isinstance(parent.orelse[-1], _EXITS)):
            # `if not cuda: raise ...` guards what comes after, and so does `if cuda: ... else:
            # raise ...` (boxmot 25's TensorRT backend, before `trt.Logger(...)`)
            yield from _runs_after(parent)
    elif isinstance(parent, nodes.Assert) and parent.test is test:
        yield from _runs_after(parent)  # `assert x.is_cuda` guards what comes after, as a raise


def _runs_after(statement: nodes.NodeNG) -> Iterator[nodes.NodeNG]:
    """The statements after `statement` in its block, then after each `if` or `with` holding it, up
    to its function: flash-attn's Triton attention checks `assert bias.is_cuda` inside `if
    has_bias:`, and launches its kernel with that bias after the `if`."""
    while True:
        yield from statements_after(statement)
        holder = statement.parent
        if not isinstance(holder, (nodes.If, nodes.With)) or statement is getattr(holder, "test", None):
            return
        statement = holder


def _uses(target: nodes.AssignName) -> Iterator[nodes.Name]:
    for name in target.scope().nodes_of_class(nodes.Name):
        if name.name == target.name:
            yield name


def _library_named(tree: nodes.NodeNG) -> str | None:
    """The CUDA-only code that `tree` names, said for a message, or None."""
    kernels = kernel_names(tree.root())
    builds = cuda_kernel_names(tree.root()) - kernels if kernels else frozenset()
    for node in _walk(tree):
        if isinstance(node, nodes.Import):
            library = next((name for name, _alias in node.names if _library(name)), None)
            if library:
                return f"`{library}`"
        if isinstance(node, nodes.ImportFrom) and not node.level and _library(node.modname):
            return f"`{node.modname}`"
        if isinstance(node, nodes.ImportFrom) and spells_library(node.modname):
            return f"`{node.modname}`"  # `from .triton_ops import median_filter_cuda`: the project's kernels
        if isinstance(node, (nodes.Import, nodes.ImportFrom)):
            built = imported_cuda_build_module(node)
            if built:
                # `from cogdl.operators.spmm import csrspmm`, whose module runs `load(..., "spmm_kernel.cu")`
                return f"`{built}` (a module of this project that compiles CUDA code when imported)"
        if isinstance(node, nodes.ImportFrom):
            builder = next((name for name, _alias in node.names if imported_builder_of(node, name)), None)
            if builder:
                # `from parlai.ops.ngram_repeat_block import NGramRepeatBlock`, whose `__init__` loads `.cu` sources
                return f"`{builder}` (a class or function of this project that compiles CUDA code)"
        if isinstance(node, nodes.Name) and isinstance(node.parent, nodes.Call) and node.parent.func is node:
            builder = imported_cuda_builder(node)
            if builder:
                return f"`{builder}` (a class or function of this project that compiles CUDA code)"
        function = library_cuda_function(node)
        if function:
            # `if device == "cuda": target = tvm.target.cuda()` (hummingbird-ml's TVM backend): the
            # test picks another library's CUDA target, which has no NPU one; "npu" would pick it too
            return f"`{function}`, the CUDA target of a library that has no NPU one"
        if isinstance(node, (nodes.Name, nodes.Attribute)):
            qname = qualified_name(node)
            if qname is not None and (_library(qname) or qname in CUDA_EXTENSION_CLASSES):
                return f"`{qname}`"  # a CUDA extension (NPU410): on the NPU the test must keep saying no
            if qname == CUDA_TOOLKIT_HOME:
                # `if torch.cuda.is_available(): WITH_CUDA = CUDA_HOME is not None` (PyG's setup.py):
                # the test picks a build with the CUDA toolkit, which an Ascend host does not have
                return "`CUDA_HOME`, the CUDA toolkit a build compiles with"
        if isinstance(node, nodes.Name) and node.name in kernels:
            return f"`{node.name}` (a CUDA kernel of this module)"  # Triton/Helion or own build
        if isinstance(node, nodes.Name) and node.name in builds:
            # `if mat.is_cuda: MEB.coo_spmm_int32(...)` (MinkowskiEngine, whose setup.py builds
            # `MinkowskiEngineBackend._C` with CUDAExtension): the extension's CUDA functions
            return f"`{node.name}` (a CUDA build of this project)"
        if isinstance(node, nodes.Name) and spells_library(node.name) and not _local_value_named_like_library(node) \
                and not _flag_of_absent_library(node):
            return f"`{node.name}`"
        if isinstance(node, nodes.Name) and _bound_by_import_call(node):
            return f"`{node.name}` (a CUDA-only module)"
        if isinstance(node, nodes.Name):
            flagged = _flag_of_library_import(node)
            if flagged:
                return f"`{flagged}`"
            loaded = extension_of_flag(node)
            if loaded:
                return f"`{loaded}` (a CUDA build of this project, which `{node.name}` says loaded)"
        if isinstance(node, nodes.Call) and isinstance(node.func, nodes.Name):
            probed = _library_probed_by(node.func)
            if probed:
                return f"`{probed}`"
        if isinstance(node, nodes.Call):
            # `importlib.util.find_spec("tensorrt") is not None and torch.cuda.is_available()`
            # (mmdeploy's TensorRT backend): the probe written beside the device test
            probed = _library_found_by(node)
            if probed:
                return f"`{probed}`"
        if isinstance(node, nodes.Attribute) and spells_library(node.attrname):
            return f"`{node.attrname}`"
        if isinstance(node, nodes.Attribute) and _custom_op_named_for_cuda(node):
            return f"`torch.ops.{node.expr.attrname}.{node.attrname}` (a custom op named for CUDA)"
        if isinstance(node, nodes.Attribute) and op_of_own_build(node):
            # `if a.device.type == 'cuda': torch.ops.rwkv.gemm_fp16_cublas(a, b, c)` (rwkv's model.py)
            return f"`torch.ops.{node.expr.attrname}.{node.attrname}` (an op of this module's CUDA build)"
        if isinstance(node, nodes.Attribute) and _held_by_instance(node):
            return f"`self.{node.attrname}` (a CUDA build of this module)"
        if isinstance(node, nodes.Attribute) and isinstance(node.parent, nodes.Call) and node.parent.func is node \
                and method_running_kernel(node) is not None:
            # `if x.is_cuda: return self._temporal_activate(x, w)`, a method with its own `@triton.jit`
            return f"`self.{node.attrname}` (a method that runs a CUDA kernel of this module)"
        if isinstance(node, nodes.Call) and cuda_build_argument(node) is not None:
            return "a CUDA kernel built at run time"  # (NPU412): `if not cuda: raise` keeps nvcc away
        if isinstance(node, nodes.Const) and isinstance(node.value, str) and _CUDA_BUILD_SETTING.match(node.value):
            return "a CUDA build"  # `extra_compile_args["nvcc"] += [...]`, `("MMCV_WITH_CUDA", None)`
        if isinstance(node, nodes.Const) and isinstance(node.value, str) and _CUDA_COMPILER_PATH.search(node.value):
            return "`nvcc`, the CUDA compiler"  # `nvcc = osp.join(CUDA_HOME, 'bin/nvcc')`: a CUDA toolkit's
        if isinstance(node, nodes.Const) and isinstance(node.value, str) and _names_cuda_build(node.value):
            return f"`{node.value}`"  # `"onnxruntime-gpu" if cuda else "onnxruntime"`: what pip installs
        if isinstance(node, nodes.Const) and isinstance(node.value, str) and node.value in _whole_library_names():
            # `if device.type == "cuda": backend = "cufinufft"` (MIRTorch's and deepinv's NUFFT
            # backends, imported or handed on by that name later): the test picks a CUDA-only
            # library by its module name; "npu" would pick it there too
            return f"`{node.value}`"
    return None


def _local_value_named_like_library(name: nodes.Name) -> bool:
    """`k2 = _as_rows(key, b, s, h, d)` beside `q2` (xDiT's fused RoPE): a local value whose
    whole name is a library's (k2, warp), bound in the function by assignments alone, is no
    use of that library; `has_cupy`, `convert_to_cupy` and imported names still count."""
    if not isinstance(name.scope(), nodes.FunctionDef) or name.name not in _whole_library_names():
        return False
    found = bindings(name)
    return bool(found) and all(isinstance(binding, nodes.AssignName) and binding.scope() is name.scope()
                               and isinstance(binding.parent, (nodes.Assign, nodes.AnnAssign, nodes.Tuple))
                               for binding in found)


def _flag_of_absent_library(name: nodes.Name | nodes.AssignName) -> bool:
    """`use_flash_attn = torch.cuda.get_device_properties(0).major >= 8` / `else: use_flash_attn =
    False` (sam2's get_sdpa_settings, whose flag picks torch's own SDPA flash kernel): a function's
    own flag, bound there by plain assignments alone, in a module that never imports nor names the
    library the flag's name spells, is a choice of torch's backend ("flash" attention is also
    SDPA's), not that library's; the test that computes it is ported as any other. A flag set where
    the library imports (`try: import flash_attn; use_flash_attn = True`), or in a module that
    imports it anywhere, still counts."""
    scope = name.scope()
    if not isinstance(scope, nodes.FunctionDef):
        return False
    stores = [node for node in scope.nodes_of_class(nodes.AssignName) if node.name == name.name]
    if not stores or any(store.scope() is not scope or not isinstance(store.parent, nodes.Assign)
                         or len(store.parent.targets) != 1 for store in stores):
        return False
    if name.name in {argument.name for argument in scope.args.arguments or ()}:
        return False
    libraries = spelled_libraries(name.name)
    return not any(_names_library_of(node, libraries) for node in name.root().nodes_of_class(
        (nodes.Import, nodes.ImportFrom, nodes.Const)))


def _names_library_of(node: nodes.NodeNG, libraries: frozenset[str]) -> bool:
    """Does the import or string `node` name one of `libraries` (top modules)?"""
    if isinstance(node, nodes.Const):
        return isinstance(node.value, str) and node.value.split(".")[0] in libraries
    modules = [module for module, _alias in node.names] if isinstance(node, nodes.Import) \
        else [node.modname or "", *(imported for imported, _alias in node.names)]
    return any(module.split(".")[0] in libraries or spelled_libraries(module) & libraries for module in modules)


@functools.lru_cache(maxsize=1)
def _whole_library_names() -> frozenset[str]:
    return frozenset(module for module in (*table().libraries, *table().without_npu_kernels, *table().rocm_only)
                     if "." not in module)


def _custom_op_named_for_cuda(attribute: nodes.Attribute) -> bool:
    """`torch.ops.image.decode_jpegs_cuda(...)` (torchvision 0.29's io/image.py, which `if
    device.type == "cuda":` picks over `decode_jpeg`): a custom op whose own name says CUDA is
    registered for CUDA tensors; on the NPU the other path is the one that runs."""
    return "cuda" in identifier_words(attribute.attrname) and isinstance(attribute.expr, nodes.Attribute) \
        and qualified_name(attribute.expr.expr) == "torch.ops"


def _held_by_instance(attribute: nodes.Attribute) -> bool:
    """`self.autogptq_cuda.vecquant4matmul(...)` in a class that set `self.autogptq_cuda =
    autogptq_cuda_256` (AutoGPTQ's QuantLinear): the instance holds the module's CUDA build, or a
    member of one of its kernel classes: speechbrain 1.1's numba TransducerLoss sets `self.loss =
    Transducer.apply`, the autograd Function whose forward launches its `@cuda.jit` kernels."""
    names = {_held_name(value) for value in values_stored_in_self(attribute) or ()} - {None}
    return bool(names) and not names.isdisjoint(cuda_kernel_names(attribute.root()))


def _held_name(value: nodes.NodeNG) -> str | None:
    """`autogptq_cuda_256` -> itself; `Transducer.apply` -> `Transducer`; else None."""
    if isinstance(value, nodes.Attribute) and isinstance(value.expr, nodes.Name):
        return value.expr.name
    return value.name if isinstance(value, nodes.Name) else None


def _names_cuda_build(text: str) -> bool:
    """`onnxruntime-gpu`, `paddlepaddle-gpu>=3.0.0,<3.3.0`: a requirement of a library's CUDA build."""
    name = _REQUIREMENT_NAME.match(text)
    return name is not None and name.group(0).lower() in table().cuda_builds


def _walk(tree: nodes.NodeNG) -> Iterator[nodes.NodeNG]:
    yield tree
    for child in tree.get_children():
        yield from _walk(child)


def _library(qname: str) -> bool:
    return table().guarded_library_of(qname) is not None


def _library_probed_by(callee: nodes.Name) -> str | None:
    """`def is_cute_dsl_available(): return find_spec("cutlass") is not None` (auto-round's CuTe
    kernels, beside `not is_cute_dsl_available() or not activation.is_cuda`): a function of a few
    lines that asks whether a CUDA-only library is installed. The library it names, or None."""
    for function in bindings(callee):
        if not isinstance(function, nodes.FunctionDef) or len(function.body) > 3:
            continue
        found = next(filter(None, map(_library_found_by, function.nodes_of_class(nodes.Call))), None)
        if found:
            return found
    return None


def _library_found_by(call: nodes.Call) -> str | None:
    """`find_spec("cutlass")`, `importlib.util.find_spec("tensorrt")`: the CUDA-only library whose
    installation the call asks about, or None."""
    func = call.func
    name = func.attrname if isinstance(func, nodes.Attribute) else getattr(func, "name", None)
    if name == "find_spec" and call.args and isinstance(call.args[0], nodes.Const) \
            and isinstance(call.args[0].value, str) and _library(call.args[0].value):
        return call.args[0].value
    return None


def _flag_of_library_import(name: nodes.Name) -> str | None:
    """`try: from flashTP_e3nn import uvu_TP; _FLASH_AVAILABLE = True` / `except ImportError:
    _FLASH_AVAILABLE = False` (SevenNet's flash_helper.py, beside `_FLASH_AVAILABLE and
    torch.cuda.is_available()`): a flag that says whether a CUDA-only library imported. The
    library it names, or None."""
    for assignment in bindings(name):
        statement = assignment.parent
        if isinstance(assignment, nodes.AssignName) and isinstance(statement, (nodes.Assign, nodes.AnnAssign)) \
                and statement.value is not None:
            present = _library_presence(statement.value)
            if present:
                return present
        if not (isinstance(assignment, nodes.AssignName) and isinstance(statement, nodes.Assign)
                and isinstance(statement.value, nodes.Const) and isinstance(statement.value.value, bool)):
            continue
        block = statement.parent.parent if isinstance(statement.parent, nodes.ExceptHandler) else statement.parent
        if not isinstance(block, nodes.Try):
            continue
        for imported in block.body:
            if isinstance(imported, nodes.Import):
                library = next((module for module, _alias in imported.names if _library(module)), None)
                if library:
                    return library
            if isinstance(imported, nodes.ImportFrom) and not imported.level and _library(imported.modname):
                return imported.modname
    return None


def _library_presence(value: nodes.NodeNG) -> str | None:
    """`is_fast_path_available = all((selective_state_update, selective_scan_fn, mamba_inner_fn))`,
    `= selective_state_update is not None` (flash-linear-attention's Mamba layers, as transformers'
    Mamba models write it after `from mamba_ssm... import ...` or its `None` fallback): a flag that
    says whether names a CUDA-only library's import binds are there. The library, or None.
    So is `HAS_BNB: bool = find_spec("bitsandbytes") is not None` (an optimizer library's
    registry, beside `HAS_BNB and torch.cuda.is_available()`): a probe that it is installed."""
    if isinstance(value, nodes.BoolOp):
        return next(filter(None, (_library_presence(operand) for operand in value.values)), None)
    if isinstance(value, nodes.Compare) and len(value.ops) == 1 and value.ops[0][0] in ("is", "is not") \
            and isinstance(value.ops[0][1], nodes.Const) and value.ops[0][1].value is None:
        names = [value.left]
    elif isinstance(value, nodes.Call) and isinstance(value.func, nodes.Name) and value.func.name in ("all", "any") \
            and len(value.args) == 1 and isinstance(value.args[0], (nodes.Tuple, nodes.List)):
        names = value.args[0].elts
    else:
        return None
    for operand in names:
        if isinstance(operand, nodes.Call) and _library_found_by(operand):
            return _library_found_by(operand)
        qname = qualified_name(operand) if isinstance(operand, (nodes.Name, nodes.Attribute)) else None
        if qname is not None and _library(qname):
            return table().guarded_library_of(qname)
    return None


def _bound_by_import_call(name: nodes.Name) -> bool:
    """`cp, has_cp = optional_import("cupy")`, `xf = importlib.import_module("xformers")`, the ops a
    library registers (`fa3 = torch.ops.flash_attn_3`), or an extension built from CUDA sources
    (basicsr's `deform_conv_ext = load(..., sources=[...".cu"])`), also imported by the name such a
    build was given (transformers' YOSO)."""
    try:
        _scope, assignments = name.lookup(name.name)
    except Exception:  # astroid raises assorted errors on odd scopes
        return False
    for assignment in assignments:
        if isinstance(assignment, nodes.Import) and imports_cuda_build(assignment, name.name):
            return True
        if not isinstance(assignment, nodes.AssignName):
            continue  # `__file__` and other module attributes astroid makes up: no statement
        statement = assignment.statement()
        value = getattr(statement, "value", None)
        if isinstance(statement, nodes.Assign) and isinstance(value, nodes.Call) \
                and cuda_build_argument(value) is not None:
            return True
        if isinstance(statement, nodes.Assign) and isinstance(value, nodes.Call) and value.args:
            first = value.args[0]
            if isinstance(first, nodes.Const) and isinstance(first.value, str) and _library(first.value):
                return True
        if isinstance(statement, nodes.Assign) and isinstance(value, nodes.Attribute) and _library_ops(value):
            return True
    return False


def _library_ops(value: nodes.Attribute) -> bool:
    """`_C_flashattention3 = torch.ops.flash_attn_3` after `import flash_attn_3._C` (xformers'
    ops/fmha/flash3.py): the operator namespace a CUDA-only library's extension registers."""
    qname = qualified_name(value)
    if qname is None or not qname.startswith("torch.ops."):
        return False
    namespace = qname[len("torch.ops."):].split(".", 1)[0]
    return _library(namespace)
