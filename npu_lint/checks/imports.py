"""kind: import -- importing a CUDA-only library (apex, flash_attn, ...), also by a string name
(`importlib.import_module("cupy")`, `__import__("cupy")`, monai's `optional_import("pynvml")`,
AutoAWQ's `try_import("awq_ext")`).

A module that imports one library in many places (accelerate's tests/test_quantization.py imports
bitsandbytes in each test) gets one finding per library and advice: the first import reports, the
others are its related locations."""
from __future__ import annotations

from typing import Optional

from astroid import nodes

from npu_lint.analysis.call_owners import add_related, drop, report_about
from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.library_uses import library_uses
from npu_lint.analysis.names import keyword, last_name, qualified_name
from npu_lint.analysis.npu_modules import uses_npu_build
from npu_lint.analysis.own_packages import is_own_package
from npu_lint.analysis.stand_in_modules import imports_stand_in
from npu_lint.checks.base import Check
from npu_lint.core.suppression_comments import may_hide

# Functions that import the module a string names. `optional_import` is monai's (monai.utils),
# which returns (module, flag) and a stub that raises on use when the import fails; a project's
# own helper of that name does the same job. `try_import` is AutoAWQ's (awq.utils.module, its
# `module_name` through importlib.import_module), which returns (module or None, error text).
_STRING_IMPORTERS = ("import_module", "__import__", "optional_import", "try_import")
# The keyword each importer names its module by, where it is not `name`
_MODULE_KEYWORDS = {"optional_import": "module", "try_import": "module_name"}


class ImportCheck(Check):
    node_types = (nodes.Import, nodes.ImportFrom, nodes.Call)

    def __init__(self, rule, settings):
        super().__init__(rule, settings)
        self.modules = tuple(rule.match["modules"])
        # module or module.name -> what to use instead; the longest match wins
        self.suggestions = dict(rule.match.get("suggestions", {}))
        self.runs_on_npu = tuple(rule.match.get("runs_on_npu", ()))
        # A library that runs on the host too (NPU405) costs nothing until its kernels are
        # called: an import whose names the module never uses (torch_geometric/typing.py's
        # `try: import torch_scatter` that only sets WITH_TORCH_SCATTER) is no finding.
        self.used_only = bool(rule.match.get("used_only", False))

    def triggers(self) -> frozenset:
        # Words of an import statement or attribute chain: a local `k2` or `warp` is no import.
        return frozenset(tuple("." + part for part in module.split(".")) if "." in module else "." + module
                         for module in self.modules)

    def string_triggers(self) -> frozenset[str]:
        return frozenset("^" + module for module in self.modules)  # the string an importer is given

    def _matched(self, name: str) -> str | None:
        for module in self.modules:
            if name == module or name.startswith(module + "."):
                return module
        return None

    def _runs_on_npu(self, name: str) -> bool:
        return any(name == part or name.startswith(part + ".") for part in self.runs_on_npu)

    def _suggestion(self, names: list[str]) -> str:
        best = ""
        for name in names:
            parts = name.split(".")
            for end in range(len(parts), 0, -1):
                key = ".".join(parts[:end])
                if key in self.suggestions and len(key) > len(best):
                    best = key
                    break
        return f"; {self.suggestions[best]}" if best else ""

    def visit(self, node, ctx: ModuleContext) -> None:
        if isinstance(node, nodes.Call):
            self._visit_string_import(node, ctx)
            return
        if isinstance(node, nodes.ImportFrom):
            if node.level:
                return
            imported = [f"{node.modname}.{name}" for name, _ in node.names]
            # `from numba import cuda` imports the listed submodule `numba.cuda`
            names = [node.modname, *imported]
        else:
            names = imported = [name for name, _alias in node.names]
        if imported and all(self._runs_on_npu(name) for name in imported):
            return  # `from deepspeed.ops.adam import DeepSpeedCPUAdam`: built for the NPU too
        for name in names:
            module = self._matched(name)
            if module and is_own_package(ctx, module):
                return  # bitsandbytes importing bitsandbytes: its CUDA code is reported where written
            if module and uses_npu_build(ctx, module):
                return  # `import triton` in the project's Ascend kernels: triton-ascend is the port
            if module:
                uses = [use for use in library_uses(ctx, self.modules) if use.binding is node]
                if self.used_only and not any(_runs(use, ctx) for use in uses):
                    return
                if not uses and _only_version_read(node, ctx):
                    return  # `import bitsandbytes` to print `bitsandbytes.__version__` (an environment report)
                if _availability_probe(node, ctx):
                    return  # `try: import cupy` only to learn whether it is there: on the NPU it is not
                if imports_stand_in(node):
                    return  # a test's Mock that `sys.modules` holds while this import runs
                self._report_once(ctx, node, module, self._suggestion(imported), self._uses(node, ctx))
                return

    def _report_once(self, ctx: ModuleContext, node, module: str, suggestion: str, related: tuple) -> None:
        """Report the first import of `module` with this advice; fold the later ones into it."""
        said = report_about(ctx, self.rule, node, module=module, suggestion=suggestion, related=related)
        if said is None:
            return  # dropped: a branch the NPU never takes, a CUDA class beside its NPU sibling
        firsts = ctx.scratch.setdefault(self, {})
        key = (module, suggestion)
        first = firsts.get(key)
        if first is not None and not first.dropped:
            drop(ctx, said)
            add_related(ctx, first, (ctx.related(node, f"`{module}` is imported here too"), *related))
        elif not may_hide(ctx.index.line(node.lineno), self.rule.code, self.rule.name):
            # the engine applies `# noqa` later: a finding it hides must take no others along
            firsts[key] = said

    def _uses(self, node, ctx: ModuleContext) -> tuple:
        """The places that use what this import binds, shown with the import's finding."""
        return tuple(
            ctx.related(use.node, f"`{use.qname}` is used here ({use.role})")
            for use in library_uses(ctx, self.modules)
            if use.binding is node
        )

    def _visit_string_import(self, call: nodes.Call, ctx: ModuleContext) -> None:
        """The uses of what such a call returns are not followed (NPU403 does not see them):
        what it returns depends on the helper (a module, a `(module, flag)` pair, a stub)."""
        name = _string_imported(call)
        module = self._matched(name) if name else None
        if module is None or is_own_package(ctx, module) or uses_npu_build(ctx, module):
            return
        # optional_import("apex.normalization", name="InstanceNorm3dNVFuser") imports one member
        member = keyword(call, "name") if last_name(call.func) == "optional_import" else None
        imported = [f"{name}.{member.value}" if isinstance(member, nodes.Const) and isinstance(member.value, str)
                    and member.value else name]
        if all(self._runs_on_npu(item) for item in imported):
            return
        self._report_once(ctx, call, module, self._suggestion(imported), ())


def _only_version_read(node: nodes.Import | nodes.ImportFrom, ctx: ModuleContext) -> bool:
    """Does the module read nothing of what `import lib` binds but `lib.__version__`? Environment
    reports (LLaMA-Factory's env.py, `transformers env`) import each library in a `try` to print
    its version: on an Ascend host they print that it is missing, and there is nothing to port."""
    if not isinstance(node, nodes.Import):
        return False
    bound = {alias or name.split(".")[0] for name, alias in node.names}
    read = [name for name in ctx.nodes_of(nodes.Name) if name.name in bound]
    return bool(read) and all(isinstance(name.parent, nodes.Attribute) and name.parent.expr is name
                              and name.parent.attrname == "__version__" for name in read)


# What an optional import catches: the import's own errors, or anything
_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


def _availability_probe(node: nodes.Import | nodes.ImportFrom, ctx: ModuleContext) -> bool:
    """Is the import only a test of whether the library is installed? It sits in a `try:` whose
    handler catches its ImportError, and the module reads nothing it binds, or reads it only to ask
    whether it is None (transformers4rec's `is_gpu_dataloader_available`: `import cudf` ...
    `except ImportError: cudf = None`, `return cudf is not None`; catalyst's `_is_apex_available`;
    FlagEmbedding's `import flash_attn` that picks an attention implementation). On an Ascend host
    the import fails and the code takes the path written for that; the code that uses the library,
    if any, imports it again and is reported there."""
    if not _in_optional_try(node):
        return False
    bound = {alias or (name.split(".")[0] if isinstance(node, nodes.Import) else name)
             for name, alias in node.names}
    if "*" in bound or bound & _exported(ctx) or _ops_read(bound, ctx):
        return False
    return all(_asks_if_none(name) for name in ctx.nodes_of(nodes.Name) if name.name in bound)


def _ops_read(bound: set[str], ctx: ModuleContext) -> bool:
    """`import flash_attn_3._C` then `torch.ops.flash_attn_3` (xformers' flash3.py): the import
    registers the operators the module then reads, a use by another name."""
    return any(attribute.attrname in bound and qualified_name(attribute.expr) == "torch.ops"
               for attribute in ctx.nodes_of(nodes.Attribute))


def _in_optional_try(node: nodes.NodeNG) -> bool:
    child, parent = node, node.parent
    while parent is not None and not isinstance(parent, (nodes.FunctionDef, nodes.AsyncFunctionDef,
                                                          nodes.ClassDef, nodes.Module, nodes.Lambda)):
        if isinstance(parent, nodes.Try) and any(child is statement for statement in parent.body):
            return any(_catches_import_error(handler) for handler in parent.handlers)
        child, parent = parent, parent.parent
    return False


def _catches_import_error(handler: nodes.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    caught = handler.type.elts if isinstance(handler.type, nodes.Tuple) else [handler.type]
    return any(last_name(kind) in _IMPORT_ERRORS for kind in caught)


def _asks_if_none(name: nodes.Name) -> bool:
    """`cudf is not None`, `if cupy is None:`: whether the import worked, nothing of the library."""
    compare = name.parent
    if not isinstance(compare, nodes.Compare) or len(compare.ops) != 1:
        return False
    operator, other = compare.ops[0]
    if operator not in ("is", "is not"):
        return False
    values = (compare.left, other)
    return name in values and any(isinstance(value, nodes.Const) and value.value is None for value in values)


def _exported(ctx: ModuleContext) -> set[str]:
    """The names a module-level `__all__` list or tuple spells: other modules may import them."""
    names: set[str] = set()
    for statement in ctx.module.body:
        if isinstance(statement, nodes.Assign) and any(
                isinstance(target, nodes.AssignName) and target.name == "__all__" for target in statement.targets) \
                and isinstance(statement.value, (nodes.List, nodes.Tuple)):
            names.update(element.value for element in statement.value.elts
                         if isinstance(element, nodes.Const) and isinstance(element.value, str))
    return names


def _runs(use, ctx: ModuleContext) -> bool:
    """Can this use of a library's name run its code on the NPU's tensors? A call, a decorator, a
    base class, a name handed on; not a type annotation (`Adj = Union[Tensor, SparseTensor]`) nor
    one of a list of names (`torch.serialization.add_safe_globals([SparseTensor, ...])`), as
    torch_geometric's typing.py has them, and not a use that only CUDA tensors reach."""
    node = use.node
    if _behind_cuda_test(node, ctx):
        return False
    if use.role != "reference":
        return True
    if isinstance(node.parent, (nodes.Tuple, nodes.List, nodes.Set, nodes.Subscript)):
        return False
    return not _annotation(node)


_SCOPES = (nodes.FunctionDef, nodes.AsyncFunctionDef, nodes.Lambda, nodes.ClassDef, nodes.Module)
_BLOCKS = ("body", "orelse", "handlers", "finalbody")


def _behind_cuda_test(node: nodes.NodeNG, ctx: ModuleContext) -> bool:
    """Is `node` in a branch of a test that names CUDA (`if x.is_cuda:`, `a if use_cuda else b`),
    or after `if not src.is_cuda: return ...` in its block (torch_geometric's utils/_scatter.py
    before `torch_scatter.scatter_max`)? On the NPU the other path runs."""
    child, parent = node, node.parent
    while parent is not None:
        if isinstance(parent, (nodes.If, nodes.IfExp)) and child is not parent.test and _names_cuda(parent.test, ctx):
            return True
        for field in _BLOCKS:
            block = getattr(parent, field, None)
            if isinstance(block, list) and any(child is statement for statement in block):
                for statement in block[:next(i for i, s in enumerate(block) if s is child)]:
                    if isinstance(statement, nodes.If) and statement.body \
                            and isinstance(statement.body[-1], (nodes.Return, nodes.Raise)) \
                            and _names_cuda(statement.test, ctx):
                        return True
        if isinstance(parent, _SCOPES):
            return False
        child, parent = parent, parent.parent
    return False


def _names_cuda(test: nodes.NodeNG, ctx: ModuleContext) -> bool:
    return "cuda" in ctx.node_text(test).lower()


def _annotation(node: nodes.NodeNG) -> bool:
    parent = node.parent
    return (isinstance(parent, (nodes.AnnAssign, nodes.Arguments)) and node in (
        getattr(parent, "annotation", None), *getattr(parent, "annotations", ()),
        *getattr(parent, "kwonlyargs_annotations", ()), *getattr(parent, "posonlyargs_annotations", ()))) or (
        isinstance(parent, nodes.FunctionDef) and parent.returns is node)


def _string_imported(call: nodes.Call) -> Optional[str]:
    """The module a string-import call names by a literal, else None (relative names too)."""
    function = last_name(call.func)
    if function not in _STRING_IMPORTERS:
        return None
    if function == "import_module" and qualified_name(call.func) != "importlib.import_module":
        return None
    if function == "__import__" and not isinstance(call.func, nodes.Name):
        return None
    argument = call.args[0] if call.args else keyword(call, _MODULE_KEYWORDS.get(function, "name"))
    if not (isinstance(argument, nodes.Const) and isinstance(argument.value, str)):
        return None
    return argument.value if argument.value and not argument.value.startswith(".") else None
