"""String literals that spell a device or backend name but are no value to port.

    Literal["cpu", "cuda"]              a type: its members are the values it allows
    class RNGType(Enum): CUDA = "cuda"  an Enum member's value identifies the member (a kind);
                                        "npu" would make it an alias of `RNGType.NPU` (an Enum
                                        of devices to run on, CPU listed and no NPU, holds devices)
    getattr(tensor, "cuda")             the name of the `.cuda` method
    if name in {"contiguous", "cuda"}   in `__getattr__`, or listed with method names
    get_accelerator().device_name() == "cuda"
                                        the abstraction answers "npu" on the NPU, so the test
                                        already keeps a CUDA-only path off the NPU
    if x.device.type == "cuda": cupy.asarray(x)
                                        a test that keeps a CUDA-only library (CuPy, xFormers)
                                        off other devices: on the NPU it is False, and the
                                        other path is the right one (analysis/cuda_library_guards.py)
    Path(__file__).parent / "cuda"      a folder name: a string divided into a path, or one
    os.path.join(root, "cuda")          part of a path joined by a call that joins paths
    @abstractmethod                     the default of an abstract method that does nothing:
    def get_rng_state(self, device="cuda"): ...
                                        each implementation has its own default, which is the
                                        one callers get
    def upsample2d(x, f, impl="cuda"):  the default of a parameter the function never reads
        return upfirdn2d(x, f)          (mmagic's copy of StyleGAN2-ADA's ops): it picks nothing
    rng_state["cuda"], {"cuda": s}      the key of the program's own mapping: a name that
    settings["CUDA_VISIBLE_DEVICES"]    checkpoints and callers use; the keys of an environment
                                        (`os.environ`, a child's `env`) are values and stay, and
                                        so do those of a table per device type
                                        (`{"cpu": -1, "cuda": 1024}`)
    get_kwarg("cuda", kwargs)           a name the project's own function only looks up as a
                                        key (analysis/forwarded_keywords.py)
    pytest.param(dev, id="cuda:0")      the label pytest reports a test case under
    @pytest.mark.runs_on(["cuda"])      a mark's label, which a conftest.py reads to skip the
                                        test elsewhere (parametrize's values stay devices)
    @pytest.mark.parametrize(("cuda", "mps"), ...)
                                        the names of the test's arguments (sahi's tests)
    ("linux", "cuda") in REQUIRED       a build for an operating system (a wheel index, a CI
                                        matrix entry): "cuda" names the build beside "rocm"
                                        and "cpu", and no device is chosen by it
    "rocm" if is_hip else "cuda"        a build of torch: ROCm's torch calls its GPUs "cuda"
                                        too, so the value names the build (bitsandbytes' native
                                        library file names), never a device
    @pytest.mark.parametrize("cmd", ["run.py --cuda", ...])
    def test_run(cmd): if "cuda" in cmd
                                        a search in the text of a test case whose cases are all
                                        known and none is a device (pyro's example command
                                        lines): "npu" is in none of them
    if q.device.type == "cuda" and mask is not None:
        q = q.contiguous()              a workaround for a CUDA kernel (transformers' SDPA
                                        attention: torch 2.1's memory-efficient kernel and
                                        non-contiguous inputs): the NPU's kernels take the
                                        tensors as they are, so the NPU needs neither branch
    def bias_act(x, impl="cuda"):       a choice of implementation, not of device, where each
        assert impl in ["ref", "cuda"]  test that picks the CUDA one also tests the tensor's
                                        device (StyleGAN's ops: analysis/implementation_choice.py)
    if backend not in ("cuda", "triton"):
        raise ValueError(backend)      a choice of the language a kernel is written in (OLMo-core's
                                        MoE reorder kernels): "cuda" is the CUDA C++ kernel
    output = subprocess.check_output(["readelf", "-d", lib])
    if "cuda" in str(output)           a search in the text another program printed (horovod's
                                        build utils ask whether MXNet was built with CUDA): it
                                        says how something was built, and has no "npu" in it
    for node in graph.findAllNodes("prim::Constant"):
        if str(node["value"]).startswith("cuda")
                                        a device recorded in a TorchScript archive traced on
                                        CUDA (CLIP's `load(jit=True)` patches it to the device
                                        asked for)

    include_paths(device_type="cuda")   the toolkit whose headers a C++ extension build takes
                                        (TorchANI's cuAEV build): the build is the port
    suffices = ["cpu", "cuda"]          a build variant named in a packaging script (setup.py
    setup(ext_modules=...)              calls setuptools' setup): the script moves no tensor, so
                                        "cuda" outside a device argument names a build (PyG's
                                        extension libraries, flash-attn's BUILD_TARGET)

    ["python", "cpp", "cuda", "lua"]    a list of words of another vocabulary (programming
                                        languages): no other device, backend or build beside it
    ["device", "cpu", "cuda", "epochs", "lang"]
                                        a list of the names of settings, "device" among them
                                        (stanza's options a processor filters out: its --device,
                                        --cpu and --cuda flags)

    find_spec("cuda"), ctypes.util.find_library("cuda")
                                        the name of a Python module (cuda-python) or a shared
                                        library (the CUDA driver) to look for
    @Registry.register("nccl")          the key a class is registered under, which configuration
    class HCCLCheckpointEngine: ...     files name (verl's checkpoint engines)
    ck.registry.disable("cuda")         or a library's registry is asked by (comfy-kitchen's
                                        backends in ComfyUI and DiffSynth-Studio)
    io_binding.bind_input(..., device_type="cuda", ...)
                                        ONNX Runtime's own name of the memory a binding reads
                                        (mmcls 0.x's ONNXRuntimeClassifier), also held by a local
                                        name first: "npu" is none it knows (the CANN provider's
                                        is "cann"), and the provider is the port (NPU404)

Rewriting any of these changes what the code means, never which device it uses. The tables
(which calls take an attribute name, which names are methods, which calls answer the device's
name) are data in data/arguments.yaml.
"""
from __future__ import annotations

import re

from astroid import nodes

from npu_lint.analysis.arguments import argument_role, parameter_of_default, tables
from npu_lint.analysis.cuda_library_guards import compares_member_name, guards_cuda_library, library_base, registers_cuda_kernel
from npu_lint.analysis.environment import is_environment, mapping_of_key
from npu_lint.analysis.forwarded_keywords import used_only_as_key
from npu_lint.analysis.implementation_choice import picks_implementation
from npu_lint.analysis.module_facts import facts_of
from npu_lint.analysis.names import bindings, keyword, last_name, qualified_name

_LITERAL_TYPES = frozenset({"typing.Literal", "typing_extensions.Literal"})
_ATTRIBUTE_DUNDERS = frozenset({"__getattr__", "__getattribute__", "__setattr__", "__delattr__"})
_COLLECTIONS = (nodes.Tuple, nodes.List, nodes.Set)
_CUDA_KEY = re.compile(r"^(cuda|gpu)(:\d+)?$")
_CUDA_DEVICE = re.compile(r"^cuda(:\d+)?$")


def not_a_value(node: nodes.NodeNG) -> str | None:
    """Why the string expression `node` is no value ('type', 'enum member', 'attribute name',
    'device name query', 'mapping key', 'key of a build for CUDA', 'path component', 'CUDA-only
    library guard', "device of a CUDA kernel's registration", "device of a CUDA-only library's
    class", 'test label', 'test mark label', 'test parameter name', 'build for a platform', 'build of torch', 'CUDA
    kernel workaround', 'text of a test case', 'implementation choice', 'device recorded in a
    TorchScript graph', 'word of another vocabulary', 'name of a setting', 'text of a program's
    output', 'name of a module or library', 'registry key', "path of a library's CUDA device",
    'toolkit of a C++ build', 'build named by a packaging script', "ONNX Runtime's device name"), or
    None when it is one."""
    if _in_literal_type(node):
        return "type"
    if _enum_member_value(node):
        return "enum member"
    if _attribute_name(node):
        return "attribute name"
    if _abstract_default(node):
        return "abstract method default"
    if _default_never_read(node):
        return "default of a parameter never read"
    if _compared_with_device_name_query(node):
        return "device name query"
    if _key_of_own_mapping(node):
        return "mapping key"
    if _key_of_device_build(node):
        return "key of a build for CUDA"
    if _path_component(node):
        return "path component"
    if guards_cuda_library(node):
        return "CUDA-only library guard"
    if registers_cuda_kernel(node):
        return "device of a CUDA kernel's registration"
    if library_base(node) is not None:
        return "device of a CUDA-only library's class"  # `device or torch.device("cuda")` in a bnb Linear
    if _test_label(node):
        return "test label"
    if _test_parameter_name(node):
        return "test parameter name"
    if _test_mark_label(node):
        return "test mark label"
    if _build_for_platform(node):
        return "build for a platform"
    if _build_beside_other_build(node):
        return "build of torch"
    if _guards_contiguous_workaround(node):
        return "CUDA kernel workaround"
    if _searched_in_case_texts(node):
        return "text of a test case"
    if picks_implementation(node):
        return "implementation choice"
    if _device_of_traced_constant(node):
        return "device recorded in a TorchScript graph"
    if _word_of_other_vocabulary(node):
        return "word of another vocabulary"
    if _name_of_setting(node):
        return "name of a setting"
    if _searched_in_process_output(node):
        return "text of a program's output"
    if _module_name(node):
        return "name of a module or library"
    if _registry_key(node):
        return "registry key"
    if _on_library_cuda_path(node):
        return "path of a library's CUDA device"
    if _toolkit_of_build(node):
        return "toolkit of a C++ build"
    if _build_in_packaging_script(node):
        return "build named by a packaging script"
    if _runtime_device(node):
        return "ONNX Runtime's device name"
    return None


def _runtime_device(node: nodes.NodeNG) -> bool:
    """`device_type = 'cuda' if self.is_cuda_available else 'cpu'` then `self.io_binding.bind_input(...,
    device_type=device_type, ...)` (mmcls 0.x's ONNXRuntimeClassifier, as mmdet 2.x's and mmseg
    0.x's), `ort.OrtValue.ortvalue_from_numpy(x, "cuda", 0)`: ONNX Runtime's name of the memory the
    binding or value lives in, in a module that imports ONNX Runtime. A local name that holds the
    value counts where every use of it in its function is such an argument."""
    table = tables().not_values
    if not table.runtime_device_methods or not _imports_any(node, table.runtime_device_imports):
        return False
    if _runtime_device_argument(node):
        return True
    parent = node.parent
    if not (isinstance(parent, nodes.Assign) and parent.value is node and len(parent.targets) == 1
            and isinstance(parent.targets[0], nodes.AssignName) and isinstance(node.scope(), nodes.FunctionDef)):
        return False
    name = parent.targets[0].name
    uses = [use for use in node.scope().nodes_of_class(nodes.Name) if use.name == name]
    return bool(uses) and all(_runtime_device_argument(use) for use in uses)


def _runtime_device_argument(value: nodes.NodeNG) -> bool:
    table = tables().not_values
    holder = value.parent
    if isinstance(holder, nodes.Keyword) and holder.value is value and holder.arg == table.runtime_device_keyword:
        call = holder.parent
        return isinstance(call, nodes.Call) and isinstance(call.func, nodes.Attribute) \
            and call.func.attrname in table.runtime_device_methods
    if isinstance(holder, nodes.Call) and isinstance(holder.func, nodes.Attribute) and value in holder.args:
        index = table.runtime_device_methods.get(holder.func.attrname)
        return index is not None and holder.args.index(value) == index \
            and not any(isinstance(argument, nodes.Starred) for argument in holder.args[:index])
    return False


def _imports_any(node: nodes.NodeNG, modules: frozenset[str]) -> bool:
    return any(name.split(".", 1)[0] in modules for name in facts_of(node).imported)


_PACKAGING = "_npu_lint_packaging_script"


def _build_in_packaging_script(node: nodes.NodeNG) -> bool:
    """`suffices = ['cpu', 'cuda'] if WITH_CUDA else ['cpu']`, then `if suffix == 'cuda':` and
    `Extension(f'torch_scatter._{name}_{suffix}', ...)` (torch_scatter 2.1.2's, torch_cluster
    1.6.3's and torch_sparse 0.6.18's setup.py), `if BUILD_TARGET == "cuda":` beside "rocm"
    (flash-attn 2.8's): a packaging script builds the project and moves no tensor, so "cuda"
    there names a build variant. "npu" would build the CUDA sources under the NPU's name; the
    NPU's build is its own extension (NPU410, NPU411). A device argument (`torch.device("cuda")`)
    is still a device."""
    if not (isinstance(node, nodes.Const) and isinstance(node.value, str) and _CUDA_KEY.match(node.value)):
        return False
    return packaging_script(node.root()) and argument_role(node) is None


def packaging_script(module: nodes.Module) -> bool:
    """Does `module` call setuptools' (or distutils') `setup()` at its top, also under `if
    __name__ == "__main__":`? Computed once per module."""
    found = getattr(module, _PACKAGING, None)
    if found is None:
        found = any(_calls_packaging(statement) for statement in _top_statements(module))
        setattr(module, _PACKAGING, found)
    return found


def _top_statements(module: nodes.Module):
    for statement in module.body:
        yield statement
        if isinstance(statement, nodes.If):
            yield from statement.body
            yield from statement.orelse


def _calls_packaging(statement: nodes.NodeNG) -> bool:
    call = statement.value if isinstance(statement, nodes.Expr) else None
    if not isinstance(call, nodes.Call) or last_name(call.func) != "setup":
        return False  # most statements: no qualified name asked for
    return qualified_name(call.func) in tables().not_values.packaging_calls


def _toolkit_of_build(node: nodes.NodeNG) -> bool:
    """`torch.utils.cpp_extension.include_paths(device_type="cuda")` (TorchANI's cli.py, before
    `load(..., extra_cuda_cflags=nvcc_args)`), or `{"device_type": "cuda"}` unpacked into it (its
    setup.py, for the CUDAExtension of cuAEV): the CUDA toolkit's headers for a C++ build, not a
    device. The build is the port (NPU410, NPU412); "npu" would only drop the headers."""
    toolkit_calls = tables().not_values.build_toolkit_calls
    slot = _argument_slot(node)
    if slot is not None:
        call, _argument, keyword = slot
        name = qualified_name(call.func)
        return name in toolkit_calls and keyword in (toolkit_calls[name], None) \
            and (keyword is not None or call.args[0] is node)
    mapping = node.parent
    if not isinstance(mapping, nodes.Dict):
        return False
    key = next((key for key, value in mapping.items if value is node), None)
    statement = mapping.parent
    if not (isinstance(key, nodes.Const) and isinstance(statement, (nodes.Assign, nodes.AnnAssign))
            and statement.value is mapping):
        return False
    targets = statement.targets if isinstance(statement, nodes.Assign) else [statement.target]
    if len(targets) != 1 or not isinstance(targets[0], nodes.AssignName):
        return False
    unpacked = [keyword.parent for keyword in statement.scope().nodes_of_class(nodes.Keyword)
                if keyword.arg is None and isinstance(keyword.value, nodes.Name)
                and keyword.value.name == targets[0].name and isinstance(keyword.parent, nodes.Call)]
    return bool(unpacked) and all(toolkit_calls.get(qualified_name(call.func) or "") == key.value for call in unpacked)


def _on_library_cuda_path(node: nodes.NodeNG) -> bool:
    """`if device == 'cuda': device_vad = f'cuda:{device_index}'` in whisperx's load_model, whose
    `device` is faster-whisper's (`WhisperModel(..., device=device)`): the branch runs only where
    that library runs on CUDA, which it never does on an Ascend host ("cpu" is its device there),
    so what the branch picks is CUDA's alone; "npu" there would send a CUDA host's VAD to an NPU."""
    child, parent = node, node.parent
    while parent is not None and not isinstance(parent, (nodes.FunctionDef, nodes.ClassDef, nodes.Module)):
        if isinstance(parent, nodes.If) and child in parent.body and isinstance(parent.test, nodes.Compare) \
                and len(parent.test.ops) == 1 and parent.test.ops[0][0] == "==":
            operands = (parent.test.left, parent.test.ops[0][1])
            if any(isinstance(operand, nodes.Const) and operand.value == "cuda"
                   and argument_role(operand) == "library_device" for operand in operands):
                return True
        child, parent = parent, parent.parent
    return False


# Words of the vocabulary a device or backend name belongs to: one of them beside "cuda" in a
# list makes it a list of devices, backends or builds.
_DEVICE_VOCABULARY = re.compile(r"^(cpu|cuda|gpu|npu|mps|xpu|hpu|tpu|xla|meta|mlu|musa|ipu|vulkan|auto|"
                                r"rocm|hip|cu\d+|nccl|hccl|gloo|mpi|ucc|xccl|nvidia|amd|ascend|intel|"
                                r"tensorrt|cudnn|cublas|triton|torch|ref|native)(:\d+)?$", re.IGNORECASE)
_VOCABULARY_SIZE = 4


def _word_of_other_vocabulary(node: nodes.NodeNG) -> bool:
    """`SUPPORTED_LANGUAGES = ["python", "cpp", "go", ..., "cuda", "lua"]` (verl's sandbox_fusion
    client): a list of plain words that holds no other device, backend or build name is a
    vocabulary of something else (languages, file kinds), where "cuda" names CUDA C++, not the
    device. A list of devices always names another (`["cuda", "cpu"]`)."""
    collection = node.parent
    if not isinstance(collection, _COLLECTIONS) or len(collection.elts) < _VOCABULARY_SIZE:
        return False
    words = [element.value for element in collection.elts
             if isinstance(element, nodes.Const) and isinstance(element.value, str)]
    if len(words) != len(collection.elts):
        return False
    return sum(1 for word in words if _DEVICE_VOCABULARY.match(word)) == 1


# The name of the setting a device name is a value of: a list that names it lists settings.
_SETTING_NAMES = frozenset({"device", "devices"})


def _name_of_setting(node: nodes.NodeNG) -> bool:
    """`options_to_filter = ['device', 'cpu', 'cuda', 'dev_conll_gold', 'epochs', 'lang', 'mode',
    'save_name', 'shorthand']` (stanza 1.15's Processor.filter_out_option, then `option in
    options_to_filter`): a list of plain names that holds "device", the setting whose values device
    names are, lists the names of settings (stanza's --device, --cpu and --cuda flags), not the
    values of one. "npu" there would keep the --cuda flag's setting in a processor's configuration."""
    collection = node.parent
    if not isinstance(collection, _COLLECTIONS) or len(collection.elts) < _VOCABULARY_SIZE:
        return False
    words = [element.value for element in collection.elts
             if isinstance(element, nodes.Const) and isinstance(element.value, str)]
    return len(words) == len(collection.elts) and all(word.isidentifier() for word in words) \
        and not _SETTING_NAMES.isdisjoint(words)


_TEXT_METHODS = frozenset({"decode", "lower", "upper", "strip", "read", "communicate"})
_TEXT_FIELDS = frozenset({"stdout", "stderr", "output"})


def _module_name(node: nodes.NodeNG) -> bool:
    """`importlib.util.find_spec("cuda")` (cuda-python), `ctypes.util.find_library("cuda")` (the CUDA
    driver, libcuda, that lycoris' kernel tuner then loads with `ctypes.CDLL`): the name of a Python
    module or a shared library to look for, not a device."""
    call = node.parent
    return isinstance(call, nodes.Call) and bool(call.args) and call.args[0] is node \
        and qualified_name(call.func) in tables().not_values.module_name_calls


def _searched_in_process_output(node: nodes.NodeNG) -> bool:
    """`"cuda" in str(output)` where `output = subprocess.check_output(["readelf", "-d", lib])`
    (horovod's cmake/build_utils.py): the test searches another program's text for a word. Only
    the word itself: "CUDA out of memory" searched in the output of the project's own training
    script (lightning-thunder's benchmark tests) is what that script prints on the NPU as "NPU out
    of memory" once ported (NPU108)."""
    compare = node.parent
    if not (isinstance(node, nodes.Const) and isinstance(node.value, str) and _CUDA_KEY.match(node.value)
            and isinstance(compare, nodes.Compare) and compare.left is node and len(compare.ops) == 1
            and compare.ops[0][0] in ("in", "not in")):
        return False
    return _process_output(compare.ops[0][1], 2)


def _process_output(expr: nodes.NodeNG, depth: int) -> bool:
    while True:  # str(x), x.decode().lower(), proc.stdout, p.communicate()[0]
        if isinstance(expr, nodes.Call) and isinstance(expr.func, nodes.Name) and expr.func.name == "str" \
                and len(expr.args) == 1:
            expr = expr.args[0]
        elif isinstance(expr, nodes.Call) and isinstance(expr.func, nodes.Attribute) \
                and expr.func.attrname in _TEXT_METHODS:
            expr = expr.func.expr
        elif isinstance(expr, nodes.Attribute) and expr.attrname in _TEXT_FIELDS:
            expr = expr.expr
        elif isinstance(expr, nodes.Subscript):
            expr = expr.value
        else:
            break
    if isinstance(expr, nodes.Call):
        return qualified_name(expr.func) in tables().not_values.process_output_calls
    if isinstance(expr, nodes.Name) and depth:
        values = [binding.parent.value for binding in bindings(expr)
                  if isinstance(binding, nodes.AssignName) and isinstance(binding.parent, nodes.Assign)]
        return bool(values) and all(_process_output(value, depth - 1) for value in values)
    return False


def _device_of_traced_constant(node: nodes.NodeNG) -> bool:
    """`str(node["value"]).startswith("cuda")` for each `node` of `graph.findAllNodes(...)` (CLIP's
    `load(jit=True)`, copied into many projects): the test finds the devices recorded in a
    TorchScript archive traced on CUDA, to patch them to the device asked for. The archive says
    "cuda" whatever the device, so the test must keep saying it."""
    parent = node.parent
    if isinstance(parent, nodes.Call) and isinstance(parent.func, nodes.Attribute) \
            and parent.func.attrname in ("startswith", "endswith") and node in parent.args:
        subject = parent.func.expr
    else:
        compare = comparison_of(node)
        if compare is None or len(compare.ops) != 1:
            return False
        subject = compare.ops[0][1] if compare.left is node else compare.left
    named = {name.name for name in subject.nodes_of_class(nodes.Name)}
    if isinstance(subject, nodes.Name):
        named.add(subject.name)
    for ancestor in node.node_ancestors():
        if isinstance(ancestor, nodes.For) and isinstance(ancestor.target, nodes.AssignName) \
                and ancestor.target.name in named and _lists_graph_nodes(ancestor.iter):
            return True
    return False


def _lists_graph_nodes(iterable: nodes.NodeNG) -> bool:
    return (isinstance(iterable, nodes.Call) and isinstance(iterable.func, nodes.Attribute)
            and iterable.func.attrname in ("findAllNodes", "findNode"))


def _searched_in_case_texts(node: nodes.NodeNG) -> bool:
    """`"cuda" in cmd` where `cmd` is a parameter of a pytest-parametrized test whose cases are all
    string literals and none is a device: the test looks for a word (a `--cuda` flag) in a text."""
    compare = node.parent
    if not (isinstance(compare, nodes.Compare) and compare.left is node and len(compare.ops) == 1
            and compare.ops[0][0] in ("in", "not in") and isinstance(compare.ops[0][1], nodes.Name)):
        return False
    name = compare.ops[0][1].name
    function = compare.scope()
    if not isinstance(function, nodes.FunctionDef) or function.decorators is None \
            or name not in [arg.name for arg in function.args.args or []]:
        return False
    cases = _parametrized_cases(function, name)
    device_types = tables().not_values.device_types
    return bool(cases) and not any(
        case.split(":")[0] in device_types or _CUDA_KEY.match(case) for case in cases)


def _parametrized_cases(function: nodes.FunctionDef, name: str) -> list[str]:
    """The string values `@pytest.mark.parametrize(name, [...])` gives the parameter `name`; empty
    when one is not a string literal (or a `pytest.param` of one) or the list is not in the module."""
    values = parametrized_values(function, name)
    if not all(isinstance(value, nodes.Const) and isinstance(value.value, str) for value in values):
        return []
    return [value.value for value in values]


def parametrized_values(function: nodes.FunctionDef, name: str) -> list[nodes.NodeNG]:
    """The values `@pytest.mark.parametrize(name, [...])` gives the parameter `name` (a
    `pytest.param`'s first argument for one), also from a list bound at the module's top; empty
    when no such decorator names it alone or its list is not a literal one."""
    for decorator in function.decorators.nodes if function.decorators else ():
        if not (isinstance(decorator, nodes.Call) and last_name(decorator.func) == "parametrize"
                and len(decorator.args) >= 2 and isinstance(decorator.args[0], nodes.Const)
                and decorator.args[0].value == name):
            continue
        return _listed_values(function, decorator.args[1])
    return []


def _listed_values(function: nodes.FunctionDef, values: nodes.NodeNG | None) -> list[nodes.NodeNG]:
    """The values a literal list gives pytest (`pytest.param`'s first argument for one), also
    from a list bound at the module's top; empty for anything else."""
    if isinstance(values, nodes.Name):
        values = _module_constant(function.root(), values.name)
    if not isinstance(values, (nodes.List, nodes.Tuple)):
        return []
    return [value.args[0] if isinstance(value, nodes.Call) and last_name(value.func) == "param"
            and value.args else value for value in values.elts]


def given_by_pytest(operand: nodes.NodeNG) -> list[nodes.NodeNG]:
    """The values pytest hands `operand`: a test's parameter that `@pytest.mark.parametrize` lists,
    `request.param` in a fixture declared with `params=[...]`, or a test's parameter named for a
    fixture of the module that returns or yields only string literals (pytorch-forecasting's
    test_metrics.py: `@pytest.fixture(params=["cuda", "cpu"])` whose body tests
    `request.param == "cuda"` and yields "cuda" or "cpu" to `test_...(mock_device)`), which pytest
    hands to tests and fixtures only; empty when pytest gives it nothing this module spells out."""
    if isinstance(operand, nodes.Attribute) and operand.attrname == "param":
        function = operand.scope()
        if not (isinstance(operand.expr, nodes.Name) and isinstance(function, nodes.FunctionDef)
                and _parameter_of(operand.expr, function)):
            return []
        return _fixture_params(function)
    if not isinstance(operand, nodes.Name):
        return []
    function = operand.scope()
    if not (isinstance(function, nodes.FunctionDef) and _parameter_of(operand, function)):
        return []
    if parametrized_values(function, operand.name):
        return parametrized_values(function, operand.name)
    if not (function.name.startswith("test") or _fixture_decorator(function) is not None):
        return []  # pytest hands fixtures to tests and fixtures only
    return _fixture_results(function.root(), operand.name)


def _parameter_of(name: nodes.Name, function: nodes.FunctionDef) -> bool:
    assignments = bindings(name)
    return (len(assignments) == 1 and isinstance(assignments[0].parent, nodes.Arguments)
            and assignments[0].scope() is function)


def _fixture_decorator(function: nodes.FunctionDef) -> nodes.NodeNG | None:
    for decorator in function.decorators.nodes if function.decorators else ():
        callee = decorator.func if isinstance(decorator, nodes.Call) else decorator
        if last_name(callee) == "fixture":
            return decorator
    return None


def _fixture_params(function: nodes.FunctionDef) -> list[nodes.NodeNG]:
    """The values `@pytest.fixture(params=[...])` gives `request.param` (a `pytest.param`'s first
    argument for one), also from a list bound at the module's top."""
    decorator = _fixture_decorator(function)
    return _listed_values(function, keyword(decorator, "params") if isinstance(decorator, nodes.Call) else None)


def _fixture_results(module: nodes.Module, name: str) -> list[nodes.NodeNG]:
    """What the module's fixture `name` returns or yields, when every value is a string literal
    (or `request.param` of its own literal `params`); empty otherwise."""
    fixtures = [statement for statement in module.body
                if isinstance(statement, nodes.FunctionDef) and statement.name == name
                and _fixture_decorator(statement) is not None]
    if len(fixtures) != 1:
        return []
    function = fixtures[0]
    results = [node.value for node in function.nodes_of_class((nodes.Return, nodes.Yield),
                                                              skip_klass=(nodes.FunctionDef, nodes.Lambda))
               if node.scope() is function]
    values: list[nodes.NodeNG] = []
    for result in results:
        given = given_by_pytest(result) if isinstance(result, nodes.Attribute) else [result]
        if not given or not all(isinstance(value, nodes.Const) and isinstance(value.value, str) for value in given):
            return []
        values.extend(given)
    return values


def _module_constant(module: nodes.Module, name: str) -> nodes.NodeNG | None:
    """The value of the module's one top-level assignment `name = ...`."""
    values = [statement.value for statement in module.body if isinstance(statement, nodes.Assign)
              and any(isinstance(target, nodes.AssignName) and target.name == name for target in statement.targets)]
    return values[0] if len(values) == 1 else None


def _guards_contiguous_workaround(node: nodes.NodeNG) -> bool:
    """`if x.device.type == "cuda" [and ...]:` whose whole body makes tensors contiguous."""
    comparison = comparison_of(node)
    if comparison is None or len(comparison.ops) != 1 or comparison.ops[0][0] not in ("==", "in", "is"):
        return False
    test = comparison
    while isinstance(test.parent, nodes.BoolOp) and test.parent.op == "and":
        test = test.parent
    statement = test.parent
    if not isinstance(statement, nodes.If) or statement.test is not test or statement.orelse:
        return False
    return all(isinstance(stmt, nodes.Assign) and _makes_contiguous(stmt.value) for stmt in statement.body)


def _makes_contiguous(value: nodes.NodeNG) -> bool:
    return isinstance(value, nodes.Call) and isinstance(value.func, nodes.Attribute) \
        and value.func.attrname == "contiguous" and not value.args and not value.keywords


def _abstract_default(node: nodes.NodeNG) -> bool:
    """A parameter default of an `@abstractmethod` whose body does nothing (ColossalAI's
    BaseAccelerator): a call reaches an implementation, with that implementation's default."""
    arguments = node.parent
    if not isinstance(arguments, nodes.Arguments) or not any(
            node is default for default in [*arguments.defaults, *arguments.kw_defaults] if default is not None):
        return False
    return abstract_stub(arguments.parent)


def _default_never_read(node: nodes.NodeNG) -> bool:
    """The default of a parameter that its function never reads: mmagic 1.2's stylegan2
    ada/upfirdn2d.py keeps StyleGAN2-ADA's `def upsample2d(x, f, up=2, ..., impl='cuda')` but always
    calls mmcv's `upfirdn2d`, so `impl` picks nothing and its default is no device. A function that
    hands its `locals()` or `vars()` on reads every parameter. A stub that does nothing is an
    interface's, whose default stays a finding unless it is abstract (`_abstract_default`)."""
    arguments = node.parent
    if not isinstance(arguments, nodes.Arguments):
        return False
    name = parameter_of_default(arguments, node)
    function = arguments.parent
    if name is None or not isinstance(function, (nodes.FunctionDef, nodes.Lambda)):
        return False
    body = function.body if isinstance(function.body, list) else [function.body]
    if isinstance(function, nodes.FunctionDef) and all(_does_nothing(statement) for statement in body):
        return False
    return not any(isinstance(read, nodes.Name) and read.name in (name, "locals", "vars")
                   for part in body for read in part.nodes_of_class(nodes.Name))


def abstract_stub(function: nodes.NodeNG) -> bool:
    """An `@abstractmethod` whose body does nothing: what runs is a subclass's implementation."""
    if not isinstance(function, nodes.FunctionDef) or function.decorators is None:
        return False
    if not any(last_name(decorator) == "abstractmethod" for decorator in function.decorators.nodes):
        return False
    return all(_does_nothing(statement) for statement in function.body)


def _does_nothing(statement: nodes.NodeNG) -> bool:
    """A docstring, `pass`, `...`, or `raise NotImplementedError`."""
    if isinstance(statement, nodes.Pass):
        return True
    if isinstance(statement, nodes.Expr) and isinstance(statement.value, nodes.Const):
        return True
    if isinstance(statement, nodes.Raise) and statement.exc is not None:
        raised = statement.exc.func if isinstance(statement.exc, nodes.Call) else statement.exc
        return last_name(raised) == "NotImplementedError"
    return False


def _argument_slot(node: nodes.NodeNG) -> tuple[nodes.Call, nodes.NodeNG, str | None] | None:
    """The call that takes `node`, or the literal collection holding it, as an argument: the call,
    the argument as passed, and its keyword (None for a positional one); None elsewhere."""
    while isinstance(node.parent, _COLLECTIONS):
        node = node.parent
    parent = node.parent
    if isinstance(parent, nodes.Keyword) and isinstance(parent.parent, nodes.Call):
        return parent.parent, node, parent.arg
    if isinstance(parent, nodes.Call) and any(argument is node for argument in parent.args):
        return parent, node, None
    return None


def _registry_key(node: nodes.NodeNG) -> bool:
    """`@CheckpointEngineRegistry.register("nccl")`, `@EngineRegistry.register(..., device=["cuda"])`
    (verl's checkpoint engines and training engines): the key a class is registered under, which
    configuration files name (`backend: nccl`) and the fix does not reach; renamed, the lookup
    finds nothing. The port registers the NPU's class under its own key. A registration applied
    by hand is one too (bitsandbytes' backends/cuda/ops.py: `register_kernel(
    "bitsandbytes::optimizer_update_32bit", "cuda")(_optimizer_update_32bit_impl)` beside the
    same `@register_kernel(..., "cuda")` as decorators), and so is a call that hands the class
    along with its key (Ray's util/collective: `register_collective_backend("NCCL", NCCLGroup)`,
    its cupy NCCL group, looked up by `Backend("nccl")`). torch's registrations
    (`torch.library.register_kernel(op, "cuda")`) pick the device a kernel runs on, and stay.
    The default of such a method's parameter is one too (verl's `def register(cls, model_type,
    backend, device="cuda", vendor=None)`): the key of every class registered without naming
    one; "npu" there would file CUDA's engines as the NPU's."""
    if _is_registration_default(node):
        return True
    slot = _argument_slot(node)
    if slot is None:
        return False
    call, argument = slot[0], slot[1]
    if _asks_library_registry(call):
        return True
    applied = isinstance(call.parent, nodes.Call) and call.parent.func is call and len(call.parent.args) == 1
    hands_class = any(isinstance(other, (nodes.Name, nodes.Attribute)) and other is not argument
                      for other in call.args)
    if not (isinstance(call.parent, nodes.Decorators) or applied or hands_class):
        return False
    name = last_name(call.func) or ""
    if name != "register" and not name.startswith("register_"):
        return False
    return not (qualified_name(call.func) or "").startswith("torch.")


def _is_registration_default(node: nodes.NodeNG) -> bool:
    """A parameter's default (or an element of one) of the module's own `register` or
    `register_*` function or method."""
    while isinstance(node.parent, _COLLECTIONS):
        node = node.parent
    arguments = node.parent
    if not isinstance(arguments, nodes.Arguments) or not isinstance(arguments.parent, nodes.FunctionDef):
        return False
    if parameter_of_default(arguments, node) is None:
        return False
    name = arguments.parent.name
    return name == "register" or name.startswith("register_")


def _asks_library_registry(call: nodes.Call) -> bool:
    """`ck.registry.disable("cuda")` (ComfyUI's and DiffSynth-Studio's comfy-kitchen backends,
    beside `registry.disable("triton")`), `registry.is_available("cuda")`: a method of a library's
    registry, asked by the key its backend is registered under. The library has no "npu" backend,
    so renamed the call finds nothing (or raises); torch's registries pick devices, and stay."""
    func = call.func
    if not isinstance(func, nodes.Attribute):
        return False
    holder = last_name(func.expr) or ""
    if not (holder == "registry" or holder.endswith("_registry") or holder.endswith("Registry")):
        return False
    return not (qualified_name(func.expr) or "").startswith("torch.")


def _test_label(node: nodes.NodeNG) -> bool:
    """`pytest.param(device, id="cuda:0")`, `parametrize(..., ids=["cpu", "cuda"])`: the name
    pytest reports the case under; any argument of unittest's `self.subTest(device="cuda")`
    (gpytorch's kernel tests), which only names the sub-test in the report."""
    slot = _argument_slot(node)
    if slot is None:
        return False
    call, _argument, keyword = slot
    labels = tables().not_values
    if isinstance(call.func, nodes.Attribute) and call.func.attrname in labels.test_label_methods:
        return True
    return keyword is not None and labels.test_labels.get(qualified_name(call.func) or "") == keyword


def _test_mark_label(node: nodes.NodeNG) -> bool:
    """`@pytest.mark.runs_on(["cuda"])` (LLaMA-Factory's tests): a mark's arguments label the test
    for the plugin or conftest.py that reads the mark, which skips the test on other devices; "npu"
    there would run a CUDA-only test (SGLang's) on the NPU. parametrize hands its values to the
    test, and they stay devices."""
    slot = _argument_slot(node)
    if slot is None:
        return False
    namespace, _, mark = (qualified_name(slot[0].func) or "").rpartition(".")
    passing_values = tables().not_values.test_marks.get(namespace)
    return passing_values is not None and mark not in passing_values


def _test_parameter_name(node: nodes.NodeNG) -> bool:
    """`@pytest.mark.parametrize(("cuda", "mps"), [...])`, `parametrize("cuda", [True, False])`: the
    names of the test function's arguments; renaming one breaks the test, whose signature keeps it."""
    slot = _argument_slot(node)
    if slot is None:
        return False
    call, argument, keyword = slot
    wanted = tables().not_values.test_parameter_names.get(qualified_name(call.func) or "")
    if wanted is None:
        return False
    return keyword == wanted if keyword is not None else call.args[0] is argument


def _build_for_platform(node: nodes.NodeNG) -> bool:
    """`("linux", "cuda")`: a tuple that pairs the string with an operating system's name."""
    pair = node.parent
    if not isinstance(pair, nodes.Tuple):
        return False
    platforms = tables().not_values.platforms
    return any(element is not node and isinstance(element, nodes.Const) and element.value in platforms
               for element in pair.elts)


def _build_beside_other_build(node: nodes.NodeNG) -> bool:
    """`prefix = "rocm" if is_hip else "cuda"` (bitsandbytes' cextension.py, the native library's
    file name): the other choice is a build no torch device is named for, so both name builds."""
    choice = node if isinstance(node, nodes.IfExp) else node.parent  # the string's value is the choice
    if not isinstance(choice, nodes.IfExp) or node is choice.test:
        return False
    return any(isinstance(option, nodes.Const) and isinstance(option.value, str)
               and option.value.lower() in tables().not_values.other_builds
               for option in (choice.body, choice.orelse))


def _key_of_own_mapping(node: nodes.NodeNG) -> bool:
    if isinstance(node.parent, (nodes.Call, nodes.Keyword)):
        call = node.parent if isinstance(node.parent, nodes.Call) else node.parent.parent
        if isinstance(call, nodes.Call) and used_only_as_key(call, node):
            return True  # `get_kwarg("cuda", kwargs)`: its own function looks the name up
    mapping = mapping_of_key(node)
    if mapping is None or is_environment(mapping):
        return False
    if isinstance(node.parent, nodes.Subscript) and _keyed_by_made_devices(mapping):
        return False
    return not (isinstance(mapping, nodes.Dict) and keyed_by_device_type(mapping))


def _keyed_by_made_devices(mapping: nodes.NodeNG) -> bool:
    """Is `mapping` (a local name or `self.<name>`) also subscripted, in the same function or class,
    by a name the code gives a CUDA device string? ParlAI 1.7's PipelineHelper fills
    `self.__device_allocations[d] = 0` for `d = f'cuda:{i}'` and later adds to
    `self.__device_allocations['cuda:0']`: the table is keyed by the devices the program makes,
    which the port renames, so its literal key is one of them and is renamed with them (left as
    it is, it raises KeyError on the NPU)."""
    if isinstance(mapping, nodes.Name):
        owner, same = mapping.scope(), (lambda other: isinstance(other, nodes.Name) and other.name == mapping.name)
    elif isinstance(mapping, nodes.Attribute) and isinstance(mapping.expr, nodes.Name) and mapping.expr.name == "self":
        method = mapping.frame()
        owner = method.parent if isinstance(method, nodes.FunctionDef) else None
        if not isinstance(owner, nodes.ClassDef):
            return False
        same = (lambda other: isinstance(other, nodes.Attribute) and other.attrname == mapping.attrname
                and isinstance(other.expr, nodes.Name) and other.expr.name == "self")
    else:
        return False
    return any(same(subscript.value) and isinstance(subscript.slice, nodes.Name) and _given_cuda_device(subscript.slice)
               for subscript in owner.nodes_of_class(nodes.Subscript))


def _given_cuda_device(name: nodes.Name) -> bool:
    """Is one of the values the code assigns `name` a CUDA device string (`f'cuda:{i}'`, `"cuda:%d" % i`,
    `'cuda:0'`)?"""
    try:
        _scope, assignments = name.lookup(name.name)
    except Exception:  # astroid raises assorted errors on odd scopes
        return False
    for assignment in assignments:
        statement = assignment.parent if isinstance(assignment, nodes.AssignName) else None
        value = statement.value if isinstance(statement, nodes.Assign) else None
        if isinstance(value, nodes.JoinedStr) and value.values:
            value = value.values[0]
            if isinstance(value, nodes.Const) and isinstance(value.value, str) and value.value.startswith("cuda:"):
                return True
        elif isinstance(value, nodes.BinOp) and value.op == "%":
            value = value.left  # `"cuda:%d" % i`
            if isinstance(value, nodes.Const) and isinstance(value.value, str) and value.value.startswith("cuda:"):
                return True
        elif isinstance(value, nodes.Const) and isinstance(value.value, str) and _CUDA_DEVICE.match(value.value):
            return True
    return False


def _key_of_device_build(node: nodes.NodeNG) -> bool:
    """`{"cuda": {Mode.TRAINING: LayerRepository(...)}, "xpu": {...}, "npu": {...}}` (transformers
    5's hub kernel mappings): in a table per device type, an entry whose value is built for that
    device (a mapping, a call, a collection) holds CUDA's build. The NPU's entry is missing, not
    misnamed: renamed, the key would load CUDA's kernel for NPU tensors; without an entry the
    table's fallback serves the NPU. A plain value (`{"cuda": 1024, "cpu": -1}`) and a torch.cuda
    API (device_choice: renamed with its key) stay findings."""
    mapping = node.parent
    if not isinstance(mapping, nodes.Dict) or not keyed_by_device_type(mapping):
        return False
    value = next((value for key, value in mapping.items if key is node), None)
    if isinstance(value, nodes.Call) and (qualified_name(value.func) or "").startswith("torch.cuda."):
        return False  # `{"cuda": torch.cuda.device_count(), "cpu": 0}`: ported with its key
    return isinstance(value, (nodes.Dict, nodes.Call, nodes.List, nodes.Tuple, nodes.Set))


def _path_component(node: nodes.NodeNG) -> bool:
    parent = node.parent
    if isinstance(parent, nodes.BinOp) and parent.op == "/":
        return True  # a string cannot be divided: only pathlib's `/` takes one
    if isinstance(parent, nodes.Call) and node in parent.args:
        return last_name(parent.func) in tables().not_values.path_calls
    return False


def keyed_by_device_type(mapping: nodes.Dict) -> bool:
    """`{"cpu": -1, "cuda": 1024, "flash": 1536}[device.type]`: a table per device type, whose keys
    are mostly devices. A record whose keys are mostly other names (`{"enabled": e, "cpu": cpu,
    "cuda": cuda, "with_stack": s}`, torchtune's profiler options) names options: its "cuda" key
    is the name callers read it by."""
    device_types = tables().not_values.device_types
    keys = [key.value for key, _value in mapping.items if isinstance(key, nodes.Const) and isinstance(key.value, str)]
    devices = sum(1 for key in keys if key in device_types or _CUDA_KEY.match(key))
    return any(key in device_types for key in keys) and 2 * devices > len(keys)


def literal_members_declaring(default: nodes.NodeNG, value: str) -> list[nodes.Const]:
    """The `value` members of the `Literal[...]` that annotates the variable or parameter whose
    default is `default`: `device_type: Literal["cpu", "cuda"] = "cuda"`. A fix that rewrites the
    default must rewrite them too, or the default is no longer a value the type allows (tyro and
    pydantic check it)."""
    annotation = _annotation_of_default(default)
    if annotation is None:
        return []
    return [member for member in annotation.nodes_of_class(nodes.Const)
            if member.value == value and _in_literal_type(member)]


def _annotation_of_default(default: nodes.NodeNG) -> nodes.NodeNG | None:
    parent = default.parent
    if isinstance(parent, nodes.AnnAssign) and parent.value is default:
        return parent.annotation
    if not isinstance(parent, nodes.Arguments):
        return None
    positional = [*(parent.posonlyargs or []), *parent.args]
    annotations = [*(parent.posonlyargs_annotations or []), *parent.annotations]
    for index, value in enumerate(parent.defaults):
        if value is default:
            return annotations[len(positional) - len(parent.defaults) + index]
    for index, value in enumerate(parent.kw_defaults):
        if value is default:
            return parent.kwonlyargs_annotations[index]
    return None


def _in_literal_type(node: nodes.NodeNG) -> bool:
    """A member of `Literal[...]`, however deep inside `Optional[...]` or a union."""
    while isinstance(node.parent, (nodes.Tuple, nodes.Subscript, nodes.BinOp)):
        parent = node.parent
        if isinstance(parent, nodes.Subscript):
            if parent.slice is not node:
                return False
            if _is_literal(parent.value):
                return True
        node = parent
    return False


def _is_literal(node: nodes.NodeNG) -> bool:
    qname = qualified_name(node)
    if qname is not None:
        return qname in _LITERAL_TYPES
    # `from typing import *`, or `t.Literal` through a name the imports do not bind
    return isinstance(node, nodes.Name) and node.name == "Literal" or (
        isinstance(node, nodes.Attribute) and node.attrname == "Literal")


def _enum_member_value(node: nodes.NodeNG) -> bool:
    while isinstance(node.parent, nodes.Tuple):  # CUDA = ("cuda", 1)
        node = node.parent
    assign = node.parent
    if not (isinstance(assign, nodes.Assign) and assign.value is node and isinstance(assign.parent, nodes.ClassDef)):
        return False
    return _is_enum(assign.parent) and not _device_choice(assign.parent)


def _device_choice(classdef: nodes.ClassDef) -> bool:
    """`class Device(str, Enum): CPU = "cpu"; CUDA = "cuda"; MPS = "mps"; AUTO = "auto"`
    (pyannote.audio 4.0's command line, which hands `torch.device(device.value)` the member it
    picks when `torch.cuda.is_available()`): an Enum that lists the CPU beside CUDA and has no NPU
    member is the choice of a device to run on, and its values are devices. "npu" there aliases no
    member; an Enum with an NPU member (accelerate's RNGType) names kinds."""
    values = {statement.value.value for statement in classdef.body
              if isinstance(statement, nodes.Assign) and isinstance(statement.value, nodes.Const)
              and isinstance(statement.value.value, str)}
    return "cpu" in values and not any(value.startswith("npu") for value in values)


def _is_enum(classdef: nodes.ClassDef) -> bool:
    try:
        if classdef.is_subtype_of("enum.Enum"):
            return True
    except Exception:  # astroid raises assorted errors on bases it cannot infer
        pass
    # A base from another module of the project that astroid does not load (`BaseEnum`,
    # `ExplicitEnum`): the name says what it is.
    return any((last_name(base) or "").endswith("Enum") for base in classdef.bases)


def _attribute_name(node: nodes.NodeNG) -> bool:
    parent = node.parent
    attribute_calls = tables().not_values.attribute_calls
    if isinstance(parent, nodes.Call) and node in parent.args:
        callee = parent.func.attrname if isinstance(parent.func, nodes.Attribute) else getattr(parent.func, "name", None)
        if attribute_calls.get(callee) == parent.args.index(node):
            return True
    if isinstance(parent, _COLLECTIONS) and any(
        isinstance(sibling, nodes.Const) and sibling.value in tables().not_values.method_names
        for sibling in parent.elts if sibling is not node
    ):
        return True
    return _compared_with_attribute_parameter(node) or _compared_with_member_name(node)


def _compared_with_member_name(node: nodes.NodeNG) -> bool:
    """`method_name == "cuda"` where the loop walks an object's members by name (see
    `compares_member_name`): "cuda" names the `.cuda` method, which keeps its name on the NPU."""
    compare = comparison_of(node)
    return compare is not None and compares_member_name(compare)


def _compared_with_attribute_parameter(node: nodes.NodeNG) -> bool:
    """`name == "cuda"` or `name in {...}` where `name` is the attribute `__getattr__` is asked for."""
    compare = comparison_of(node)
    if compare is None:
        return False
    function = compare.scope()
    if not isinstance(function, nodes.FunctionDef) or function.name not in _ATTRIBUTE_DUNDERS:
        return False
    parameters = [arg.name for arg in function.args.args or [] if arg.name not in ("self", "cls")]
    if not parameters:
        return False
    operands = [compare.left] + [operand for _op, operand in compare.ops]
    return any(isinstance(operand, nodes.Name) and operand.name == parameters[0] for operand in operands)


def _compared_with_device_name_query(node: nodes.NodeNG) -> bool:
    compare = comparison_of(node)
    if compare is None:
        return False
    sources = tables().not_values.device_name_sources
    operands = [compare.left] + [operand for _op, operand in compare.ops]
    return any(_calls_one_of(operand, sources) for operand in operands)


def _calls_one_of(node: nodes.NodeNG, callees: frozenset[str]) -> bool:
    """`get_accelerator().device_name()`: a call of one of `callees` somewhere in the chain."""
    while isinstance(node, (nodes.Call, nodes.Attribute)):
        if isinstance(node, nodes.Call):
            func = node.func
            name = func.attrname if isinstance(func, nodes.Attribute) else getattr(func, "name", None)
            if name in callees:
                return True
            node = func
        else:
            node = node.expr
    return False


def comparison_of(node: nodes.NodeNG) -> nodes.Compare | None:
    """The comparison `node` is an operand of, directly or as an element of a literal collection
    (`device == "cuda"`, `x.dtype in (torch.qint8, torch.quint8)`): what it names is told apart
    there, never asked for."""
    while isinstance(node.parent, _COLLECTIONS):
        node = node.parent
    return node.parent if isinstance(node.parent, nodes.Compare) else None
