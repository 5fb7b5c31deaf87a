"""The role of a string literal: a device argument, a backend argument, an accelerator name, prose.

The tables are data (data/arguments.yaml); this module only reads the tree.
"""
from __future__ import annotations

import dataclasses
import re

from astroid import nodes

from npu_lint.core.kept import kept
from npu_lint.analysis.module_facts import facts_of
from npu_lint.analysis.names import bindings, last_name, qualified_name
from npu_lint.knowledge.loader import RuleDataError
from npu_lint.knowledge.location import data_file
from npu_lint.knowledge.yaml_data import load_yaml
from npu_lint.core.records import record

ARGUMENTS_FILE = "arguments.yaml"


@record(frozen=True)
class Role:
    keywords: frozenset[str]
    positional: dict[str, int]
    methods: dict[str, int]
    names: re.Pattern | None = None  # variables, attributes, parameters, dict keys holding the value
    call_keywords: dict[str, str] = dataclasses.field(default_factory=dict)  # callable -> its keyword
    callees: tuple[str, ...] = ()  # the keywords count only in calls into these modules
    imports: tuple[str, ...] = ()  # the role holds only in a module that imports one of these,
    siblings: frozenset[str] = frozenset()  # or beside one of these keys or keywords


@record(frozen=True)
class NotValues:
    """What marks a string as no value at all (see analysis/not_values.py)."""
    attribute_calls: dict[str, int]
    method_names: frozenset[str]
    device_name_sources: frozenset[str]
    device_types: frozenset[str]
    path_calls: frozenset[str]
    test_labels: dict[str, str]
    platforms: frozenset[str]
    test_parameter_names: dict[str, str] = dataclasses.field(default_factory=dict)
    process_output_calls: frozenset[str] = frozenset()  # calls that answer another program's text
    kernel_languages: frozenset[str] = frozenset()  # what a kernel is written in beside CUDA C++ (Triton)
    test_label_methods: frozenset[str] = frozenset()  # methods whose every argument labels a test
    # mark namespaces -> the marks in it that hand their values to the test (the others label it)
    test_marks: dict[str, frozenset[str]] = dataclasses.field(default_factory=dict)
    other_builds: frozenset[str] = frozenset()  # builds of torch no device is named for (ROCm's)
    module_name_calls: frozenset[str] = frozenset()  # calls whose first argument names a module or library
    build_toolkit_calls: dict[str, str] = dataclasses.field(default_factory=dict)  # callable -> toolkit keyword
    packaging_calls: frozenset[str] = frozenset()  # calls that make a module a packaging script (setup.py)
    # ONNX Runtime's device names: the modules that make them its own, the keyword and the methods
    # (-> positional index) that take one (`io_binding.bind_input(..., device_type="cuda")`)
    runtime_device_imports: frozenset[str] = frozenset()
    runtime_device_keyword: str = ""
    runtime_device_methods: dict[str, int] = dataclasses.field(default_factory=dict)


@record(frozen=True)
class ArgumentTables:
    roles: dict[str, Role]
    prose_keywords: frozenset[str]
    prose_calls: frozenset[str]
    not_values: NotValues
    cuda_switches: frozenset[str] = frozenset()  # a library's on/off switch for CUDA (`gpus=`, `use_gpu=`)
    cuda_only_keywords: dict[str, frozenset[str]] = dataclasses.field(default_factory=dict)  # callee -> keywords
    # settings a framework replaces with the NPU's own value there: `dict(...)` held by one of
    # these names -> its keywords, and callables -> their keywords
    chosen_on_npu_settings: dict[str, frozenset[str]] = dataclasses.field(default_factory=dict)
    chosen_on_npu_calls: dict[str, frozenset[str]] = dataclasses.field(default_factory=dict)


def parse_tables(text: str, file: str = ARGUMENTS_FILE) -> ArgumentTables:
    data = load_yaml(text)
    try:
        roles = {
            name: Role(
                frozenset(body.get("keywords", ())),
                {str(k): int(v) for k, v in body.get("positional", {}).items()},
                {str(k): int(v) for k, v in body.get("methods", {}).items()},
                re.compile(body["names"], re.IGNORECASE) if "names" in body else None,
                {str(k): str(v) for k, v in body.get("call_keywords", {}).items()},
                tuple(map(str, body.get("callees", ()))),
                tuple(map(str, body.get("imports", ()))),
                frozenset(map(str, body.get("siblings", ()))),
            )
            for name, body in data["roles"].items()
        }
        prose = data["prose"]
        other = data["not_values"]
        runtime_devices = other.get("runtime_devices", {})
        not_values = NotValues(
            {str(k): int(v) for k, v in other["attribute_calls"].items()},
            frozenset(map(str, other["method_names"])),
            frozenset(map(str, other["device_name_sources"])),
            frozenset(map(str, other["device_types"])),
            frozenset(map(str, other["path_calls"])),
            {str(k): str(v) for k, v in other["test_labels"].items()},
            frozenset(map(str, other["platforms"])),
            {str(k): str(v) for k, v in other.get("test_parameter_names", {}).items()},
            frozenset(map(str, other.get("process_output_calls", ()))),
            frozenset(map(str, other.get("kernel_languages", ()))),
            frozenset(map(str, other.get("test_label_methods", ()))),
            {str(k): frozenset(map(str, v)) for k, v in other.get("test_marks", {}).items()},
            other_builds=frozenset(map(str, other.get("other_builds", ()))),
            module_name_calls=frozenset(map(str, other.get("module_name_calls", ()))),
            build_toolkit_calls={str(k): str(v) for k, v in other.get("build_toolkit_calls", {}).items()},
            packaging_calls=frozenset(map(str, other.get("packaging_calls", ()))),
            runtime_device_imports=frozenset(map(str, runtime_devices.get("imports", ()))),
            runtime_device_keyword=str(runtime_devices.get("keyword", "")),
            runtime_device_methods={str(k): int(v) for k, v in runtime_devices.get("methods", {}).items()},
        )
        cuda_only = {str(callee): frozenset(map(str, keywords))
                     for callee, keywords in data.get("cuda_only_keywords", {}).items()}
        chosen = data.get("chosen_on_npu", {})
        return ArgumentTables(roles, frozenset(prose["keywords"]), frozenset(prose["calls"]), not_values,
                              frozenset(map(str, data.get("cuda_switches", {}).get("keywords", ()))), cuda_only,
                              {str(name): frozenset(map(str, keys)) for name, keys in chosen.get("settings", {}).items()},
                              {str(name): frozenset(map(str, keys)) for name, keys in chosen.get("calls", {}).items()})
    except (KeyError, TypeError, ValueError, AttributeError, re.error) as exc:
        raise RuleDataError(file, None, "roles", f"malformed argument tables: {exc!r}") from None


@kept
def tables() -> ArgumentTables:
    return parse_tables(data_file(ARGUMENTS_FILE))


def _callee_name(call: nodes.Call) -> str | None:
    func = call.func
    if isinstance(func, nodes.Attribute):
        return func.attrname
    if isinstance(func, nodes.Name):
        return func.name
    return None


def argument_role(node: nodes.NodeNG) -> str | None:
    """'device', 'backend', 'accelerator', 'prose' or None for an expression: by the call
    argument it is, else by the name that holds it (a role's `names`)."""
    role = _call_argument_role(node)
    if role is not None:
        return role
    if _handed_to_library_device(node):
        return "library_device"
    holder = holder_name(node)
    if holder is not None:
        for name, role_table in tables().roles.items():
            if role_table.names is not None and role_table.names.match(holder) and _role_holds(node, role_table):
                return name
    return None


def _role_holds(node: nodes.NodeNG, role: Role) -> bool:
    """Does the module import a library the role belongs to (any, for a role that names none), or
    does the value sit beside a key or keyword of that library's (`{"accelerator": "cuda",
    "devices": 1}`, Lightning's Fabric arguments built where Lightning is not imported)?
    Lightning's accelerator names are Lightning's only where Lightning is used: sam2's own trainer
    takes `accelerator: str = "cuda"` and makes `torch.device("cuda", ...)` of it."""
    if not role.imports:
        return True
    tops = {name.split(".", 1)[0] for name in facts_of(node).imported}
    return any(library in tops for library in role.imports) or bool(role.siblings & _sibling_names(node))


def _sibling_names(node: nodes.NodeNG) -> set[str]:
    """The other keys of the dict display, or keywords of the call, that `node` is a value of; or
    the other attributes its block sets on the object whose attribute it is stored in
    (PyG GraphGym's `cfg.accelerator = 'cuda'` beside `cfg.devices = 1`, the settings its
    train.py hands to Lightning's Trainer)."""
    parent = node.parent
    if isinstance(parent, nodes.Keyword) and isinstance(parent.parent, nodes.Call):
        return {keyword.arg for keyword in parent.parent.keywords or () if keyword is not parent and keyword.arg}
    if isinstance(parent, nodes.Dict):
        return {key.value for key, value in parent.items
                if value is not node and isinstance(key, nodes.Const) and isinstance(key.value, str)}
    if isinstance(parent, nodes.Assign) and parent.value is node and len(parent.targets) == 1 \
            and isinstance(parent.targets[0], nodes.AssignAttr):
        owner = parent.targets[0].expr.as_string()
        block = [statement for statement in parent.parent.get_children() if statement is not parent]
        return {target.attrname for statement in block if isinstance(statement, nodes.Assign)
                for target in statement.targets
                if isinstance(target, nodes.AssignAttr) and target.expr.as_string() == owner}
    return set()


def chosen_on_npu(node: nodes.NodeNG) -> bool:
    """Is `node` the value of a setting that its framework replaces with the NPU's own there?
    mmengine's `init_dist` passes "hccl" on the NPU, whatever backend its caller names, so
    `env_cfg = dict(dist_cfg=dict(backend="nccl"))` (the configs of mmdet, mmpose, xtuner and the
    rest of OpenMMLab) and `init_dist("pytorch", backend="nccl")` are read on CUDA hosts only; "hccl"
    there would break them. ColossalAI's `launch(..., backend="nccl")` takes the accelerator's
    backend everywhere. The settings are data (`chosen_on_npu` in data/arguments.yaml)."""
    keyword = node.parent
    if not isinstance(keyword, nodes.Keyword) or not isinstance(keyword.parent, nodes.Call):
        return False
    call, table = keyword.parent, tables()
    if keyword.arg in table.chosen_on_npu_calls.get(qualified_name(call.func) or "", ()):
        return True
    if not (isinstance(call.func, nodes.Name) and call.func.name == "dict"):
        return False
    holder = call.parent.arg if isinstance(call.parent, nodes.Keyword) else holder_name(call)
    return keyword.arg in table.chosen_on_npu_settings.get(holder or "", ())


def holder_name(node: nodes.NodeNG) -> str | None:
    """The name a value is bound to or compared with: `x = v`, `self.x = v`, `x == v`,
    `x in (v, w)`, `{"x": v}`, `kwargs["x"] = v`, `def f(x=v)`; a collection's elements count
    as its own."""
    while isinstance(node.parent, (nodes.Tuple, nodes.List, nodes.Set)):
        node = node.parent
    parent = node.parent
    if isinstance(parent, (nodes.Assign, nodes.AnnAssign)) and parent.value is node:
        targets = parent.targets if isinstance(parent, nodes.Assign) else [parent.target]
        if len(targets) != 1:
            return None
        key = targets[0].slice if isinstance(targets[0], nodes.Subscript) else None
        if isinstance(key, nodes.Const) and isinstance(key.value, str):
            return key.value  # `trainer_kwargs["accelerator"] = "gpu"`: the key, as in a dict literal
        return last_name(targets[0])
    if isinstance(parent, nodes.Compare):
        operands = [parent.left] + [operand for _op, operand in parent.ops]
        return next((name for name in map(last_name, operands) if name is not None), None)
    if isinstance(parent, nodes.Dict):
        return next((key.value for key, value in parent.items if value is node
                     and isinstance(key, nodes.Const) and isinstance(key.value, str)), None)
    if isinstance(parent, nodes.Arguments):
        return parameter_of_default(parent, node)
    return None



def _handed_to_library_device(node: nodes.NodeNG) -> bool:
    """`device_str = "cuda"; sapien.Device(device_str)` (ManiSkill's backend.py), `def
    __init__(self, device="cuda"): GPUDriveTorchEnv(..., device=device)` (pufferlib's GPUDrive
    env), `self.device = kwargs.pop("device", "cuda:0")` then `AtariEnv(..., device=self.device)`
    (rl-games' CuLE env): a name bound to the value and handed, somewhere in its scope (the
    class, for an attribute of `self`), to a library with CPU and CUDA backends of its own. "npu"
    is no device that library knows, so the value is its device even where torch gets it too; the
    port is "cpu" for both."""
    role = tables().roles.get("library_device")
    if role is None or not _imports_library_with_device(node, role):
        return False
    parent = node.parent
    if isinstance(parent, nodes.Compare) and len(parent.ops) == 1:
        return _compared_with_library_device(node, parent, role)
    if _is_lookup_default(node):
        node, parent = parent, parent.parent  # `kwargs.pop("device", "cuda:0")`: the value bound
    if isinstance(parent, nodes.Assign) and parent.value is node and len(parent.targets) == 1:
        target = parent.targets[0]
        if isinstance(target, nodes.AssignName):
            uses = _name_uses(node.scope(), target.name)
        elif isinstance(target, nodes.AssignAttr) and isinstance(target.expr, nodes.Name) \
                and target.expr.name == "self" and isinstance(node.scope().parent, nodes.ClassDef):
            uses = _self_attribute_uses(node.scope().parent, target.attrname)
        else:
            return False
    elif isinstance(parent, nodes.Arguments) and isinstance(parent.parent, nodes.FunctionDef):
        name = parameter_of_default(parent, node)
        if name is None:
            return False
        uses = _name_uses(parent.parent, name)
    else:
        return False
    return any(_gives_library_device(use, role) for use in uses)


def _compared_with_library_device(node: nodes.NodeNG, compare: nodes.Compare, role: Role) -> bool:
    """`compute_type = "float16" if device == "cuda" else "float32"` where the function hands
    `device` to `WhisperModel(whisper_arch, device=device, ...)` (whisperx's load_model, whose
    WhisperModel extends faster_whisper's), or `self.model.device == "cuda"` in a method of such a
    class (its CTranslate2 model): the test asks about the library's device, whose name on an
    Ascend host is "cpu", never "npu"."""
    other = compare.ops[0][1] if compare.left is node else compare.left
    if isinstance(other, nodes.Name):
        uses = _name_uses(node.scope(), other.name)
        return any(_gives_library_device(use, role) for use in uses)
    klass = node.scope().parent if isinstance(node.scope(), nodes.FunctionDef) else None
    return isinstance(other, nodes.Attribute) and other.attrname == "device" and isinstance(klass, nodes.ClassDef) \
        and _extends(klass, role.callees)


def _gives_library_device(use: nodes.Name, role: Role) -> bool:
    holder = use.parent
    given = (isinstance(holder, nodes.Keyword) and holder.arg in role.keywords) \
        or (isinstance(holder, nodes.Call) and use in holder.args)
    return given and _call_argument_role(use) == "library_device"


def _extends(klass: nodes.ClassDef, modules: tuple[str, ...]) -> bool:
    """Does the class name, among its bases, a class of one of `modules`?"""
    return any(_in_modules(qualified_name(base), modules) for base in klass.bases)


def _in_modules(qname: str | None, modules: tuple[str, ...]) -> bool:
    return qname is not None and any(qname == module or qname.startswith(module + ".") for module in modules)


def _imports_library_with_device(node: nodes.NodeNG, role: Role) -> bool:
    """Does the module import one of those libraries at all? Most do not, and need no walk."""
    roots = {name.split(".", 1)[0] for name in (*role.callees, *role.positional)}
    return any(name.split(".", 1)[0] in roots for name in facts_of(node).imported)


def _is_lookup_default(node: nodes.NodeNG) -> bool:
    """The default of `options.get(key, default)` or `kwargs.pop(key, default)`."""
    call = node.parent
    return isinstance(call, nodes.Call) and isinstance(call.func, nodes.Attribute) \
        and call.func.attrname in ("get", "pop") and len(call.args) == 2 and call.args[1] is node


def _name_uses(scope: nodes.NodeNG, name: str):
    return (use for use in scope.nodes_of_class(nodes.Name) if use.name == name)


def _self_attribute_uses(klass: nodes.ClassDef, attribute: str):
    return (use for use in klass.nodes_of_class(nodes.Attribute)
            if use.attrname == attribute and isinstance(use.expr, nodes.Name) and use.expr.name == "self")


def parameter_of_default(arguments: nodes.Arguments, node: nodes.NodeNG) -> str | None:
    """The parameter whose default `node` is, in `def f(a, b=node, *, c=node)`."""
    positional = (arguments.posonlyargs or []) + (arguments.args or [])
    defaults = arguments.defaults or []
    for parameter, default in zip(positional[len(positional) - len(defaults):], defaults):
        if default is node:
            return parameter.name
    for parameter, default in zip(arguments.kwonlyargs or [], arguments.kw_defaults or []):
        if default is node:
            return parameter.name
    return None


def _calls_into(call: nodes.NodeNG, modules: tuple[str, ...]) -> bool:
    """`ctranslate2.Translator(...)`, `WhisperModel(...)` imported from faster_whisper, or the
    module's own class that extends one (whisperx's `class WhisperModel(faster_whisper.WhisperModel)`)."""
    if not isinstance(call, nodes.Call):
        return False
    if _in_modules(qualified_name(call.func), modules):
        return True
    if not isinstance(call.func, nodes.Name):
        return False
    roots = {module.split(".", 1)[0] for module in modules}
    if not any(name.split(".", 1)[0] in roots for name in facts_of(call).imported):
        return False  # most modules import none of them: no lookup
    return any(isinstance(binding, nodes.ClassDef) and _extends(binding, modules) for binding in bindings(call.func))


def _call_argument_role(node: nodes.NodeNG) -> str | None:
    parent = node.parent
    if isinstance(parent, nodes.Keyword):
        if parent.arg in tables().prose_keywords:
            return "prose"
        call = parent.parent
        for name, role in tables().roles.items():
            if parent.arg in role.keywords and (not role.callees or _calls_into(call, role.callees)) \
                    and _role_holds(node, role):
                return name
        if isinstance(call, nodes.Call) and any(parent.arg in role.call_keywords.values() for role in tables().roles.values()):
            qname = qualified_name(call.func)
            for name, role in tables().roles.items():
                if qname is not None and role.call_keywords.get(qname) == parent.arg:
                    return name
        return None
    if not isinstance(parent, nodes.Call) or node not in parent.args:
        return None
    index = parent.args.index(node)
    if _callee_name(parent) in tables().prose_calls or isinstance(parent.parent, nodes.Raise):
        return "prose"  # `print(...)`, `logger.warning(...)`, `raise RuntimeError("...")`
    qname = qualified_name(parent.func)
    for name, role in tables().roles.items():
        if qname is not None and role.positional.get(qname) == index:
            return name
        if isinstance(parent.func, nodes.Attribute) and role.methods.get(parent.func.attrname) == index:
            if qname is None:  # a method on a value, not a module function
                return name
    return None


def is_docstring(node: nodes.NodeNG) -> bool:
    parent = node.parent
    if not isinstance(parent, nodes.Expr):
        return False
    scope = parent.parent
    body = getattr(scope, "body", None)
    return isinstance(scope, (nodes.Module, nodes.ClassDef, nodes.FunctionDef)) and bool(body) and body[0] is parent
