"""Uses of a value that may be None: which of them raise, and which the code has guarded.

`torch.version.cuda` is None on the CPU build of torch that torch_npu runs on. Reading it is
harmless (`print(torch.version.cuda)`, `f"{torch.version.cuda}"`, `return torch.version.cuda`);
`torch.version.cuda.split(".")`, `torch.version.cuda[0]`, `float(torch.version.cuda)`,
`version.parse(torch.version.cuda)`, `torch.version.cuda >= "11.0"` and `"CUDA " +
torch.version.cuda` raise. A use is guarded when a test of the value for None or for truth
decides whether it runs (`if v is not None:`, `v and ...`, `if v is None: ... else:`, an earlier
`if v is None: return`, `assert v`), also through a flag assigned that test once (torch_scatter's
`is_cuda = torch.version.cuda is not None`, then `if is_not_hip and is_cuda and ...:`), or when it
runs in a `try` whose handler takes the error.
"""
from __future__ import annotations

from typing import Callable, Optional

from astroid import nodes

from npu_lint.analysis.names import qualified_name, single_value

# Callables that refuse None at the call (distutils' LooseVersion(None) does not: it fails later).
PARSERS = frozenset({"packaging.version.parse", "packaging.version.Version",
                     "pkg_resources.parse_version", "pkg_resources.extern.packaging.version.parse"})
CONVERSIONS = frozenset({"int", "float"})
ORDERING = frozenset({"<", "<=", ">", ">="})
# Handlers that take what a None raises here (AttributeError, TypeError).
CAUGHT = frozenset({"Exception", "BaseException", "AttributeError", "TypeError"})
EXITS = frozenset({"sys.exit", "os._exit"})
_SCOPES = (nodes.FunctionDef, nodes.Lambda, nodes.ClassDef, nodes.Module)

IsValue = Callable[[nodes.NodeNG], bool]


def none_crash(node: nodes.NodeNG) -> Optional[tuple[nodes.NodeNG, str]]:
    """(the expression that raises, the error) when using `node` as its parent does fails on None."""
    parent = node.parent
    if isinstance(parent, nodes.Attribute) and parent.expr is node:
        return parent, "AttributeError"
    if isinstance(parent, nodes.Subscript) and parent.value is node:
        return parent, "TypeError"
    if isinstance(parent, nodes.Call) and any(arg is node for arg in parent.args[:1]) and _refuses_none(parent.func):
        return parent, "TypeError"
    if isinstance(parent, nodes.Compare) and any(op in ORDERING for op, _ in parent.ops):
        return parent, "TypeError"
    if isinstance(parent, nodes.BinOp) and parent.op == "+":
        return parent, "TypeError"
    return None


def _refuses_none(func: nodes.NodeNG) -> bool:
    if isinstance(func, nodes.Name) and func.name in CONVERSIONS:
        scope, _ = func.lookup(func.name)
        return isinstance(scope, nodes.Module) and scope.name == "builtins"
    return qualified_name(func) in PARSERS


def none_guarded(node: nodes.NodeNG, is_value: IsValue) -> bool:
    """Does a None test of the value (`is_value` recognises it) or a `try` decide whether `node` runs?"""
    child, parent = node, node.parent
    while parent is not None and not isinstance(parent, _SCOPES):
        if isinstance(parent, nodes.BoolOp):
            if any(tests_none(value, is_value) for value in _before(parent.values, child)):
                return True
        elif isinstance(parent, (nodes.If, nodes.IfExp, nodes.While)):
            if child is not parent.test and tests_none(parent.test, is_value):
                return True
        elif isinstance(parent, nodes.Try) and any(child is stmt for stmt in parent.body):
            if any(_catches(handler) for handler in parent.handlers):
                return True
        if child.is_statement and any(_earlier_test(stmt, is_value) for stmt in _previous(child)):
            return True
        child, parent = parent, parent.parent
    return child.is_statement and any(_earlier_test(stmt, is_value) for stmt in _previous(child))


def tests_none(test: nodes.NodeNG, is_value: IsValue, follow: bool = True) -> bool:
    """`v`, `not v`, `v is None`, `v is not None`, `v == None`, `v != None`, in any and/or chain,
    or a name whose one assignment in its scope is such a test (`is_cuda = v is not None`)."""
    if is_value(test):
        return True
    if isinstance(test, nodes.UnaryOp) and test.op == "not":
        return tests_none(test.operand, is_value, follow)
    if isinstance(test, nodes.BoolOp):
        return any(tests_none(value, is_value, follow) for value in test.values)
    if follow and isinstance(test, nodes.Name):
        value = single_value(test)
        return value is not None and tests_none(value, is_value, follow=False)
    if isinstance(test, nodes.Compare) and len(test.ops) == 1 and test.ops[0][0] in ("is", "is not", "==", "!="):
        left, right = test.left, test.ops[0][1]
        return (is_value(left) and _is_none(right)) or (is_value(right) and _is_none(left))
    return False


def _earlier_test(stmt: nodes.NodeNG, is_value: IsValue) -> bool:
    """`if v is None: return ...` (a block that leaves) or `assert v` before the use."""
    if isinstance(stmt, nodes.If):
        return bool(stmt.body) and _leaves(stmt.body[-1]) and tests_none(stmt.test, is_value)
    return isinstance(stmt, nodes.Assert) and tests_none(stmt.test, is_value)


def _leaves(stmt: nodes.NodeNG) -> bool:
    """return, raise, continue, break, or a call of exit()/sys.exit()."""
    if isinstance(stmt, (nodes.Return, nodes.Raise, nodes.Continue, nodes.Break)):
        return True
    return isinstance(stmt, nodes.Expr) and isinstance(stmt.value, nodes.Call) and \
        qualified_name(stmt.value.func) in EXITS or (
            isinstance(stmt, nodes.Expr) and isinstance(stmt.value, nodes.Call)
            and isinstance(stmt.value.func, nodes.Name) and stmt.value.func.name in ("exit", "quit"))


def _previous(stmt: nodes.NodeNG):
    sibling = stmt.previous_sibling()
    while sibling is not None:
        yield sibling
        sibling = sibling.previous_sibling()


def _before(values, child):
    for value in values:
        if value is child:
            return
        yield value


def _catches(handler: nodes.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, nodes.Tuple) else [handler.type]
    return any(isinstance(t, (nodes.Name, nodes.Attribute)) and (t.name if isinstance(t, nodes.Name) else t.attrname)
               in CAUGHT for t in types)


def _is_none(node: nodes.NodeNG) -> bool:
    return isinstance(node, nodes.Const) and node.value is None
