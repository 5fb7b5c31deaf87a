"""The role of a string literal: a device argument, a backend argument, prose.

The tables are data (data/arguments.yaml); this module only reads the tree.
"""
from __future__ import annotations

import dataclasses
import functools

from astroid import nodes

from npu_lint.analysis.names import qualified_name
from npu_lint.knowledge.loader import RuleDataError
from npu_lint.knowledge.location import data_file
from npu_lint.knowledge.yaml_data import load_yaml

ARGUMENTS_FILE = "arguments.yaml"


@dataclasses.dataclass(frozen=True)
class Role:
    keywords: frozenset[str]
    positional: dict[str, int]
    methods: dict[str, int]


@dataclasses.dataclass(frozen=True)
class ArgumentTables:
    roles: dict[str, Role]
    prose_keywords: frozenset[str]
    prose_calls: frozenset[str]


def parse_tables(text: str, file: str = ARGUMENTS_FILE) -> ArgumentTables:
    data = load_yaml(text)
    try:
        roles = {
            name: Role(
                frozenset(body.get("keywords", ())),
                {str(k): int(v) for k, v in body.get("positional", {}).items()},
                {str(k): int(v) for k, v in body.get("methods", {}).items()},
            )
            for name, body in data["roles"].items()
        }
        prose = data["prose"]
        return ArgumentTables(roles, frozenset(prose["keywords"]), frozenset(prose["calls"]))
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
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
    """'device', 'backend', 'prose' or None for an expression in a call."""
    parent = node.parent
    if isinstance(parent, nodes.Keyword):
        if parent.arg in tables().prose_keywords:
            return "prose"
        for name, role in tables().roles.items():
            if parent.arg in role.keywords:
                return name
        return None
    if not isinstance(parent, nodes.Call) or node not in parent.args:
        return None
    index = parent.args.index(node)
    if _callee_name(parent) in tables().prose_calls:
        return "prose"
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
