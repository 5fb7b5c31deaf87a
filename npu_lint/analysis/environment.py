"""Where a string is the name of a variable in a process environment, and where it is the key of
some other mapping.

    os.environ["CUDA_VISIBLE_DEVICES"] = "0"          the environment itself
    os.getenv("CUDA_VISIBLE_DEVICES")                 (os.environ.get/pop/setdefault, os.putenv,
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")    os.unsetenv, `in os.environ` alike)
    env = os.environ.copy(); env["NCCL_DEBUG"] = ... a copy that a child process gets
    subprocess.run(cmd, env={"NCCL_DEBUG": "INFO"})   a dict handed over as an environment
    mock.patch.dict(os.environ, {"X": "1"})           a dict merged into the environment

    settings["CUDA_VISIBLE_DEVICES"]                  the key of a program's own mapping: a name
    "cuda" in rng_state; rng_state.get("cuda")        its users pass in or find in a checkpoint

A mapping counts as an environment when it is `os.environ`, a copy of it, or is held by a name
that says so (`env`, `current_env`, `ps_environ`, `worker_env_vars`): a launcher builds the
child's environment in a plain dict and names it for what it is.
"""
from __future__ import annotations

import re

from astroid import nodes

from npu_lint.analysis.names import last_name, qualified_name, single_value

_ENVIRONMENTS = frozenset({"os.environ", "os.environb"})
_ENVIRONMENT_CALLS = frozenset({"os.getenv", "os.getenvb", "os.putenv", "os.unsetenv"})
_ENVIRONMENT_METHODS = frozenset({"getenv", "setenv", "delenv", "putenv", "unsetenv"})  # pytest's monkeypatch
_KEY_METHODS = frozenset({"get", "pop", "setdefault"})  # the key is the first argument
_MAPPING_METHODS = _KEY_METHODS | frozenset({"keys", "items", "values", "update"})
_ENVIRONMENT_WORD = re.compile(r"(^|_)(env|envs|environ|environment)(_|$)", re.IGNORECASE)
_COPIES = frozenset({"copy", "dict", "deepcopy"})


def environment_use(node: nodes.NodeNG) -> bool:
    """Is the string expression `node` a variable's name used on an environment?"""
    mapping = mapping_of_key(node)
    if mapping is not None:
        return is_environment(mapping)
    parent = node.parent
    if isinstance(parent, nodes.Call) and parent.args and parent.args[0] is node:
        func = parent.func
        if qualified_name(func) in _ENVIRONMENT_CALLS:
            return True
        return isinstance(func, nodes.Attribute) and func.attrname in _ENVIRONMENT_METHODS
    return False


def mapping_of_key(node: nodes.NodeNG) -> nodes.NodeNG | None:
    """The mapping `node` is a key of: `m[node]`, `{node: v}`, `m.get(node)` (also `pop`,
    `setdefault`), `node in m` where `m` is used as a mapping in the same scope."""
    parent = node.parent
    if isinstance(parent, nodes.Subscript) and parent.slice is node:
        return parent.value
    if isinstance(parent, nodes.Dict) and any(key is node for key, _value in parent.items):
        return parent
    if isinstance(parent, nodes.Call) and parent.args and parent.args[0] is node:
        func = parent.func
        if isinstance(func, nodes.Attribute) and func.attrname in _KEY_METHODS:
            return func.expr
        return None
    if isinstance(parent, nodes.Compare) and parent.left is node and len(parent.ops) == 1:
        op, container = parent.ops[0]
        if op in ("in", "not in") and (is_environment(container) or _used_as_mapping(container)):
            return container
    return None


def is_environment(mapping: nodes.NodeNG) -> bool:
    """`os.environ`, a copy of it, a dict handed over as an environment, or a mapping whose name
    says it is one."""
    if qualified_name(mapping) in _ENVIRONMENTS:
        return True
    if isinstance(mapping, nodes.Dict):
        return not _getter_table(mapping) and _dict_is_environment(mapping)
    if isinstance(mapping, nodes.Name) and _getter_table(single_value(mapping)):
        return False
    name = last_name(mapping)
    if name is not None and _ENVIRONMENT_WORD.search(name):
        return True
    if isinstance(mapping, nodes.Name):
        value = single_value(mapping)
        return value is not None and _copies_environment(value)
    return False


def _dict_is_environment(mapping: nodes.Dict) -> bool:
    if any(isinstance(key, nodes.DictUnpack) and is_environment(value) for key, value in mapping.items):
        return True  # {**os.environ, "X": "1"}
    parent = mapping.parent
    if isinstance(parent, nodes.Keyword):
        return bool(parent.arg) and bool(_ENVIRONMENT_WORD.search(parent.arg))
    if isinstance(parent, nodes.Call) and mapping in parent.args:
        func = parent.func
        if isinstance(func, nodes.Attribute) and func.attrname == "update" and is_environment(func.expr):
            return True  # os.environ.update({...})
        return any(argument is not mapping and is_environment(argument) for argument in parent.args)
    if isinstance(parent, (nodes.Assign, nodes.AnnAssign)) and parent.value is mapping:
        targets = parent.targets if isinstance(parent, nodes.Assign) else [parent.target]
        return any(_ENVIRONMENT_WORD.search(last_name(target) or "") for target in targets)
    if isinstance(parent, nodes.Dict):  # {"env_vars": {...}}
        return any(value is mapping and isinstance(key, nodes.Const) and isinstance(key.value, str)
                   and _ENVIRONMENT_WORD.search(key.value) for key, value in parent.items)
    return False


def _getter_table(mapping: nodes.NodeNG | None) -> bool:
    """`environment_variables = {"CUDA_VISIBLE_DEVICES": lambda: os.environ.get("CUDA_VISIBLE_DEVICES"),
    ...}` (xDiT's and vLLM's envs.py, read through the module's `__getattr__`): every value a
    getter, so the keys are the names the module answers to, whatever the table is called; the
    environment is read inside the getters, where that use is reported."""
    return isinstance(mapping, nodes.Dict) and bool(mapping.items) \
        and all(isinstance(value, nodes.Lambda) for _key, value in mapping.items)


def _copies_environment(value: nodes.NodeNG) -> bool:
    """`os.environ.copy()`, `dict(os.environ)`, `copy.deepcopy(os.environ)`."""
    if not isinstance(value, nodes.Call):
        return isinstance(value, nodes.Dict) and _dict_is_environment(value)
    func = value.func
    if isinstance(func, nodes.Attribute) and func.attrname == "copy" and is_environment(func.expr):
        return True
    callee = func.attrname if isinstance(func, nodes.Attribute) else getattr(func, "name", None)
    return callee in _COPIES and bool(value.args) and is_environment(value.args[0])


def _used_as_mapping(container: nodes.NodeNG) -> bool:
    """`m` in `"k" in m` is a mapping when its scope subscripts it with a string, calls a mapping
    method on it or binds it to a dict display."""
    if not isinstance(container, (nodes.Name, nodes.Attribute)):
        return False
    text = container.as_string()
    scope = container.scope()
    for node in scope.nodes_of_class((nodes.Subscript, nodes.Attribute, nodes.Assign)):
        if isinstance(node, nodes.Subscript):
            if (isinstance(node.slice, nodes.Const) and isinstance(node.slice.value, str)
                    and node.value.as_string() == text):
                return True
        elif isinstance(node, nodes.Attribute):
            if node.attrname in _MAPPING_METHODS and node.expr.as_string() == text:
                return True
        elif any(target.as_string() == text for target in node.targets) and _builds_dict(node.value):
            return True
    return False


def _builds_dict(value: nodes.NodeNG) -> bool:
    if isinstance(value, nodes.IfExp):
        return _builds_dict(value.body) or _builds_dict(value.orelse)
    if isinstance(value, (nodes.Dict, nodes.DictComp)):
        return True
    return isinstance(value, nodes.Call) and getattr(value.func, "name", None) == "dict"

