"""Which calls a function of torch's own Python makes (read with `ast`), and under which literal
argument conditions (`if mode == "lanczos":`), for `torch.nn.functional` and `nn` modules.

A call site's target is a string: `torch.X` / `torch._C._nn.X` (also for `_VF.X`), `F:name` (a
function of torch/nn/functional.py), `self:name` (a method of the same class) or
`torch.Tensor.name` (a method called on one of the function's parameters).
"""
from __future__ import annotations

import ast
import dataclasses
from typing import Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from npu_lint.generate.ast_reading import dotted_name

TORCH_FUNCTION_GUARDS = ("has_torch_function", "has_torch_function_unary", "has_torch_function_variadic")


@dataclasses.dataclass(frozen=True)
class Parameter:
    name: str
    position: Optional[int]  # None for keyword-only
    has_default: bool
    default: object = None   # a literal default (str, bool, None, number), else None


@dataclasses.dataclass(frozen=True)
class CallSite:
    target: str
    conditions: Tuple[Tuple[str, object], ...]  # (parameter, literal) that hold on the way here
    keywords: FrozenSet[str]
    line: int


def parameters(function: ast.FunctionDef) -> Dict[str, Parameter]:
    args = function.args
    positional = list(args.posonlyargs) + list(args.args)
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    result = {}
    for index, (arg, default) in enumerate(zip(positional, defaults)):
        result[arg.arg] = Parameter(arg.arg, index, default is not None, _literal(default))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        result[arg.arg] = Parameter(arg.arg, None, default is not None, _literal(default))
    return result


def _literal(node: Optional[ast.AST]) -> object:
    if isinstance(node, ast.Constant):
        return node.value
    return None


class _Collector:
    def __init__(self, function: ast.FunctionDef, local_functions: FrozenSet[str],
                 aliases: Mapping[str, str]):
        self.params = parameters(function)
        self.local_functions = local_functions
        self.aliases = aliases  # local module alias -> "torch.nn.functional" / "torch"
        self.sites: List[CallSite] = []

    def block(self, statements: Sequence[ast.stmt], conditions: Tuple) -> None:
        for statement in statements:
            self.statement(statement, conditions)

    def statement(self, node: ast.stmt, conditions: Tuple) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            return  # runs later, or never
        if isinstance(node, ast.If):
            if _is_torch_function_guard(node.test):
                self.block(node.orelse, conditions)
                return
            self.expression(node.test, conditions)
            self.block(node.body, conditions + self.literal_conditions(node.test))
            self.block(node.orelse, conditions)
            return
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                self.statement(child, conditions)
            elif isinstance(child, ast.excepthandler):
                self.block(child.body, conditions)
            else:
                self.expression(child, conditions)

    def expression(self, node: ast.AST, conditions: Tuple) -> None:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call):
                target = self.target(sub.func)
                if target:
                    keywords = frozenset(k.arg for k in sub.keywords if k.arg)
                    self.sites.append(CallSite(target, conditions, keywords, sub.lineno))

    def target(self, func: ast.AST) -> Optional[str]:
        name = dotted_name(func)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        if head == "_VF" and rest:
            return "torch." + rest
        if head in self.aliases and rest:
            base = self.aliases[head]
            return f"F:{rest}" if base == "torch.nn.functional" and "." not in rest else f"{base}.{rest}"
        if head == "torch":
            return name
        if not rest and name in self.local_functions:
            return "F:" + name
        if head == "self" and rest and "." not in rest:
            return "self:" + rest
        if head in self.params and rest and "." not in rest:
            return "torch.Tensor." + rest
        return None

    def literal_conditions(self, test: ast.AST) -> Tuple:
        parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
        found = []
        for part in parts:
            if (isinstance(part, ast.Compare) and len(part.ops) == 1 and isinstance(part.ops[0], ast.Eq)):
                left, right = part.left, part.comparators[0]
                if isinstance(right, ast.Name):
                    left, right = right, left
                if (isinstance(left, ast.Name) and left.id in self.params
                        and isinstance(right, ast.Constant) and isinstance(right.value, (str, bool))):
                    found.append((left.id, right.value))
            elif isinstance(part, ast.Name) and part.id in self.params:
                found.append((part.id, True))
            elif (isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.Not)
                  and isinstance(part.operand, ast.Name) and part.operand.id in self.params):
                found.append((part.operand.id, False))
        return tuple(found)


def _is_torch_function_guard(test: ast.AST) -> bool:
    return any(isinstance(sub, ast.Call) and (dotted_name(sub.func) or "").split(".")[-1] in TORCH_FUNCTION_GUARDS
               for sub in ast.walk(test))


def call_sites(function: ast.FunctionDef, local_functions: FrozenSet[str] = frozenset(),
               aliases: Optional[Mapping[str, str]] = None) -> List[CallSite]:
    collector = _Collector(function, local_functions, aliases or {})
    collector.block(function.body, ())
    return collector.sites


def import_aliases(tree: ast.Module) -> Dict[str, str]:
    """Local names bound to `torch.nn.functional` or `torch` by the module's imports."""
    aliases = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            for alias in node.names:
                local = alias.asname or alias.name
                if alias.name == "functional" and (node.level or module in ("torch.nn", "")):
                    aliases[local] = "torch.nn.functional"
                elif module == "torch" and alias.name == "_VF":
                    aliases[local] = "torch"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "torch.nn.functional" and alias.asname:
                    aliases[alias.asname] = "torch.nn.functional"
    return aliases
