"""The role of a string literal: a device argument, a backend argument, an accelerator name, prose.

The tables are data (data/arguments.yaml); this module only reads the tree.
"""
from __future__ import annotations

import dataclasses
import functools
import re

from astroid import nodes

from npu_lint.analysis.names import last_name, qualified_name
from npu_lint.knowledge.loader import RuleDataError
from npu_lint.knowledge.location import data_file
from npu_lint.knowledge.yaml_data import load_yaml

ARGUMENTS_FILE = "arguments.yaml"


@dataclasses.dataclass(frozen=True)
class Role:
    keywords: frozenset[str]
    positional: dict[str, int]
    methods: dict[str, int]
    names: re.Pattern | None = None  # variables, attributes, parameters, dict keys holding the value
    call_keywords: dict[str, str] = dataclasses.field(default_factory=dict)  # callable -> its keyword
    callees: tuple[str, ...] = ()  # the keywords count only in calls into these modules


@dataclasses.dataclass(frozen=True)
class NotValues:
    """What marks a string as no value at all (see analysis/not_values.py)."""
    attribute_calls: dict[str, int]
    method_names: frozenset[str]
    device_name_sources: frozenset[str]
    device_types: frozenset[str]
    path_calls: frozenset[str]
    test_labels: dict[str, str]
    platforms: frozenset[str]


@dataclasses.dataclass(frozen=True)
class ArgumentTables:
    roles: dict[str, Role]
    prose_keywords: frozenset[str]
    prose_calls: frozenset[str]
    not_values: NotValues
    cuda_switches: frozenset[str] = frozenset()  # a library's on/off switch for CUDA (`gpus=`, `use_gpu=`)


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
            )
            for name, body in data["roles"].items()
        }
        prose = data["prose"]
        other = data["not_values"]
        not_values = NotValues(
            {str(k): int(v) for k, v in other["attribute_calls"].items()},
            frozenset(map(str, other["method_names"])),
            frozenset(map(str, other["device_name_sources"])),
            frozenset(map(str, other["device_types"])),
            frozenset(map(str, other["path_calls"])),
            {str(k): str(v) for k, v in other["test_labels"].items()},
            frozenset(map(str, other["platforms"])),
        )
        return ArgumentTables(roles, frozenset(prose["keywords"]), frozenset(prose["calls"]), not_values,
                              frozenset(map(str, data.get("cuda_switches", {}).get("keywords", ()))))
    except (KeyError, TypeError, ValueError, AttributeError, re.error) as exc:
        raise RuleDataError(file, None, "roles", f"malformed argument tables: {exc!r}") from None


@functools.lru_cache(maxsize=1)
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
    holder = holder_name(node)
    if holder is not None:
        for name, role_table in tables().roles.items():
            if role_table.names is not None and role_table.names.match(holder):
                return name
    return None


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
    """`ctranslate2.Translator(...)`, `WhisperModel(...)` imported from faster_whisper."""
    qname = qualified_name(call.func) if isinstance(call, nodes.Call) else None
    return qname is not None and any(qname == module or qname.startswith(module + ".") for module in modules)


def _call_argument_role(node: nodes.NodeNG) -> str | None:
    parent = node.parent
    if isinstance(parent, nodes.Keyword):
        if parent.arg in tables().prose_keywords:
            return "prose"
        call = parent.parent
        for name, role in tables().roles.items():
            if parent.arg in role.keywords and (not role.callees or _calls_into(call, role.callees)):
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
