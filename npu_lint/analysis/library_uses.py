"""Where a module uses a library's names, resolved through its imports and aliases.

`from apex import amp; amp.initialize(...)`, `import apex.amp as amp`,
`from apex.parallel import DistributedDataParallel as DDP; DDP(model)`, an
import inside `try:` whose `except ImportError:` rebinds the name to a
fallback, and re-exports such as `FusedLayerNorm = apex.normalization.FusedLayerNorm`.
Nothing is imported: the library need not be installed, and an installed one
gives the same answer.
"""
from __future__ import annotations

import functools
import re
from typing import Callable

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.names import ATTRIBUTE_NODES, chain_root, held_value, imported_name, outermost_attribute
from npu_lint.analysis.probes import probed
from npu_lint.core.records import record

MAX_ALIAS_DEPTH = 4  # `A = apex.x; B = A; C = B` is as deep as real code goes

LibraryOf = Callable[[str], "str | None"]


@record(frozen=True)
class LibraryUse:
    node: nodes.NodeNG  # the whole `a.b.c` where the library name is used
    qname: str  # the library's dotted name: apex.amp.initialize
    library: str  # the library module: apex
    binding: nodes.NodeNG  # the import statement the name comes from
    role: str  # call, decorator, base class, reference
    # For a name that is a local alias (`opt_cls = bnb.optim.Adam8bit`), the value of that one
    # assignment (`bnb.optim.Adam8bit`), which names the library itself; else None.
    via: nodes.NodeNG | None = None


def library_uses(ctx: ModuleContext, modules: tuple[str, ...]) -> list[LibraryUse]:
    """Every use in the module of a name from one of `modules` (cached per module)."""
    key = ("library_uses", modules)
    if key not in ctx.scratch:
        # Most modules that reach here never import a library: a text scan spares the tree walks.
        named = _import_statement(modules).search(ctx.text) is not None
        ctx.scratch[key] = _Resolver(ctx, _library_of(modules), _parents(modules)).uses() if named else []
    return ctx.scratch[key]


@functools.lru_cache(maxsize=64)
def _import_statement(modules: tuple[str, ...]) -> re.Pattern:
    """`import apex`, `import os, k2 as k`, `from numba import cuda`: a statement that can bind a
    library's name (uses are found only through such bindings). A substring would let `k2` in
    every `k1, k2 = ...` through."""
    roots = sorted({re.escape(module.split(".", 1)[0]) for module in modules})
    listed = r"(?:[\w.]+(?:\s+as\s+\w+)?\s*,\s*)*"
    return re.compile(rf"(?:^|[;:])[ \t]*(?:import[ \t]+{listed}|from[ \t]+)(?:{'|'.join(roots)})\b", re.MULTILINE)


def _parents(modules: tuple[str, ...]) -> frozenset[str]:
    """The packages above the dotted libraries (`numba` for `numba.cuda`)."""
    return frozenset(".".join(module.split(".")[:end]) for module in modules
                     for end in range(1, module.count(".") + 1))


def _library_of(modules: tuple[str, ...]) -> LibraryOf:
    def library_of(qname: str) -> str | None:
        for module in modules:
            if qname == module or qname.startswith(module + "."):
                return module
        return None
    return library_of


class _Resolver:
    def __init__(self, ctx: ModuleContext, library_of: LibraryOf, parents: frozenset[str] = frozenset()):
        self.nodes_of = ctx.nodes_of
        self.library_of = library_of
        self.parents = parents
        self.candidates = self._candidate_names()

    def _holds_library(self, bound: str) -> bool:
        """A library module, or a package that holds one (`import numba`, then `numba.cuda.jit`)."""
        return bool(self.library_of(bound)) or bound in self.parents

    def _candidate_names(self) -> set[str]:
        """Local names that a library import or an alias of one binds: only these are looked up."""
        names: set[str] = set()
        for stmt in self.nodes_of((nodes.Import, nodes.ImportFrom)):
            for name, alias in stmt.names:
                local = alias or name.split(".", 1)[0]
                bound = imported_name(stmt, local)
                if bound and self._holds_library(bound):
                    names.add(local)
        if not names:
            return names
        assigns = [a for a in self.nodes_of(nodes.Assign) if chain_root(a.value) is not None]
        for _ in range(MAX_ALIAS_DEPTH):
            added = {
                target.name
                for assign in assigns
                if chain_root(assign.value).name in names
                for target in assign.targets
                if isinstance(target, nodes.AssignName) and target.name not in names
            }
            if not added:
                break
            names |= added
        return names

    def _held_value(self, name: nodes.Name, attribute: str) -> nodes.Name | None:
        """The library name a class stores once on `self` for `self.<attribute>`: ParlAI 1.7's
        indexers run `import faiss` lazily and keep `self.faiss = faiss`, then call
        `self.faiss.index_cpu_to_all_gpus(...)` (also in a subclass), a use of faiss as `faiss.`
        would be."""
        value = held_value(name, attribute)
        return value if value is not None and value.name in self.candidates else None

    # -- resolution ------------------------------------------------------
    def resolve(self, name: nodes.Name, depth: int = 0) -> tuple[str, nodes.NodeNG] | None:
        """(library qname, import statement) that `name` refers to, or None."""
        if name.name not in self.candidates or depth > MAX_ALIAS_DEPTH:
            return None
        try:
            _scope, assignments = name.lookup(name.name)
        except Exception:  # astroid raises assorted errors on odd scopes
            return None
        found: set[tuple[str, nodes.NodeNG]] = set()
        # `try: from flash_attn import varlen_func` / `except ImportError: from flash_attn import
        # unpadded_func as varlen_func`: the handler's import names the same call in an older release
        older: set[tuple[str, nodes.NodeNG]] = set()
        for assignment in assignments:
            if isinstance(assignment, (nodes.Import, nodes.ImportFrom)):
                bound = imported_name(assignment, name.name)
                if bound is None or not self._holds_library(bound):
                    return None  # the user's own module of that name
                (older if _in_except_handler(assignment) else found).add((bound, assignment))
            elif _own_implementation_in_handler(assignment):
                # `except ImportError: class BertLayerNorm(nn.Module): ...` (pytorch-pretrained-bert's
                # modeling.py after `from apex... import FusedLayerNorm as BertLayerNorm`): where the
                # library does not import, the project's own code of that name runs, so the name is
                # no use of the library; the import itself is reported (NPU401)
                return None
            elif _is_fallback(assignment):
                continue  # `except ImportError: amp = None`: the library is still what runs where installed
            elif isinstance(assignment, nodes.AssignName) and isinstance(assignment.parent, nodes.Assign):
                resolved = self.resolve_chain(assignment.parent.value, depth + 1)
                if resolved is None:
                    return None
                found.add(resolved)
            else:
                return None  # a def, a class, a parameter, a loop variable: not the library's
        if len({self.library_of(qname) for qname, _ in found | older}) == 1:
            found = found or older
        else:
            found |= older  # another library in the handler (apex for Transformer Engine): ambiguous
        qnames = {qname for qname, _ in found}
        if len(qnames) != 1:
            return None
        return min(found, key=lambda item: item[1].lineno or 0)

    def resolve_chain(self, node: nodes.NodeNG, depth: int = 0) -> tuple[str, nodes.NodeNG] | None:
        attributes = []
        while isinstance(node, ATTRIBUTE_NODES):
            attributes.append(node.attrname)
            node = node.expr
        if not isinstance(node, nodes.Name):
            return None
        held = self._held_value(node, attributes[-1]) if attributes and node.name == "self" else None
        if held is not None:
            node, attributes = held, attributes[:-1]  # `self.faiss.x` -> `faiss.x`
        root = self.resolve(node, depth)
        if root is None:
            return None
        return ".".join([root[0], *reversed(attributes)]), root[1]

    # -- uses --------------------------------------------------------------
    def uses(self) -> list[LibraryUse]:
        if not self.candidates:
            return []
        found = []
        for name in self.nodes_of(nodes.Name):
            if name.name not in self.candidates and not (
                    name.name == "self" and isinstance(name.parent, nodes.Attribute)
                    and self._held_value(name, name.parent.attrname)):
                continue
            top = outermost_attribute(name)
            if _is_presence_test(top):
                continue  # `if amp is None:`, `if not has_apex and FusedAdam:` test the import, not a use
            if probed(top):
                continue  # `hasattr(te.pytorch, "RMSNorm")`, `inspect.signature(fn)`: a question, not a use
            resolved = self.resolve_chain(top)
            if resolved is None:
                continue
            qname, binding = resolved
            if self.library_of(qname) is None:
                continue  # `numba.njit`: the package holds a library, this name is not in it
            if any(part.startswith("__") for part in qname.split(".")):
                continue  # `apex.__version__`: a question about the package, not a use of it
            found.append(LibraryUse(top, qname, self.library_of(qname), binding, _role(top), _alias_value(name)))
        return sorted(found, key=lambda use: (use.node.lineno, use.node.col_offset))


def _alias_value(name: nodes.Name) -> nodes.NodeNG | None:
    """The value of the one plain assignment that binds `name` in its scope (ignoring import
    fallbacks), when that is what binds it; None for a name an import binds."""
    try:
        _scope, assignments = name.lookup(name.name)
    except Exception:  # astroid raises assorted errors on odd scopes
        return None
    bound = [a for a in assignments if not _is_fallback(a)]
    if len(bound) == 1 and isinstance(bound[0], nodes.AssignName) and isinstance(bound[0].parent, nodes.Assign):
        return bound[0].parent.value
    return None


def _is_fallback(assignment: nodes.NodeNG) -> bool:
    """A binding made where the import failed, or a constant placeholder (`amp = None`)."""
    if not isinstance(assignment, (nodes.AssignName, nodes.FunctionDef, nodes.ClassDef)):
        return False
    if _in_except_handler(assignment):
        return True
    return (isinstance(assignment, nodes.AssignName) and isinstance(assignment.parent, nodes.Assign)
            and isinstance(assignment.parent.value, nodes.Const))


def _own_implementation_in_handler(assignment: nodes.NodeNG) -> bool:
    """A function or class defined in an `except` block that does work of its own, not a stand-in
    that only raises (`def flash_attn_func(*args): raise ImportError("install flash-attn")`)."""
    if not isinstance(assignment, (nodes.FunctionDef, nodes.ClassDef)) or not _in_except_handler(assignment):
        return False
    return not _placeholder(assignment)


def _placeholder(definition: nodes.FunctionDef | nodes.ClassDef) -> bool:
    """Does `definition` only raise or do nothing: a body of `raise`, `pass`, `...` and a docstring,
    or for a class, only such methods?"""
    for statement in definition.body:
        if isinstance(statement, (nodes.Raise, nodes.Pass)):
            continue
        if isinstance(statement, nodes.Expr) and isinstance(statement.value, nodes.Const):
            continue  # a docstring, `...`
        if isinstance(definition, nodes.ClassDef) and isinstance(statement, nodes.FunctionDef) and _placeholder(statement):
            continue
        return False
    return True


def _in_except_handler(statement: nodes.NodeNG) -> bool:
    """Is `statement` in an `except` block of its own function, class or module?"""
    parent = statement.parent
    while parent is not None and not isinstance(parent, (nodes.FunctionDef, nodes.ClassDef, nodes.Module)):
        if isinstance(parent, nodes.ExceptHandler):
            return True
        parent = parent.parent
    return False


def _is_presence_test(top: nodes.NodeNG) -> bool:
    parent = top.parent
    if isinstance(parent, (nodes.Tuple, nodes.List)) and isinstance(parent.parent, nodes.Call) \
            and isinstance(parent.parent.func, nodes.Name) and parent.parent.func.name in ("all", "any") \
            and parent.parent.args == [parent]:
        return True  # `is_fast_path_available = all((selective_state_update, mamba_inner_fn))`: were they imported?
    if isinstance(parent, (nodes.Compare, nodes.BoolOp)):
        return True
    if isinstance(parent, nodes.UnaryOp) and parent.op == "not":
        return True
    return isinstance(parent, (nodes.If, nodes.IfExp, nodes.While, nodes.Assert)) and parent.test is top


def _role(top: nodes.NodeNG) -> str:
    parent = top.parent
    if isinstance(parent, nodes.Call) and parent.func is top:
        return "decorator" if isinstance(parent.parent, nodes.Decorators) else "call"
    if isinstance(parent, nodes.Decorators):
        return "decorator"
    if isinstance(parent, nodes.ClassDef) and top in parent.bases:
        return "base class"
    return "reference"

