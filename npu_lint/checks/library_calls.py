"""check: cuda_only_library_call -- each use of a CUDA-only library's name, with what to do instead.

The import line is NPU401; this check reports the calls, decorators, base
classes and attribute accesses that the import makes possible, resolved by
name (analysis/library_uses.py). The advice per name is data
(data/cuda_libraries.yaml); a fix is offered where the table names a
mechanical replacement, and it is unsafe because behaviour shifts.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.kernel_wrappers import applied_decorator
from npu_lint.analysis.library_uses import LibraryUse, library_uses
from npu_lint.analysis.names import imported_name, in_annotation, qualified_name, registration_key
from npu_lint.analysis.npu_modules import uses_npu_build
from npu_lint.analysis.own_packages import is_own_package
from npu_lint.analysis.stand_in_modules import imports_stand_in
from npu_lint.analysis.torch_npu_import import imports_torch_npu
from npu_lint.checks.base import Check
from npu_lint.core.findings import Edit, Related
from npu_lint.knowledge.library_advice import Advice, table


class CudaOnlyLibraryCall(Check):
    node_types = ()

    def __init__(self, rule, settings):
        super().__init__(rule, settings)
        self.table = table()
        self.modules = tuple(self.table.libraries)

    def triggers(self) -> frozenset:
        return frozenset(tuple(module.split(".")) if "." in module else module for module in self.modules)

    def leave_module(self, ctx: ModuleContext) -> None:
        uses = [use for use in library_uses(ctx, self.modules) if self._reported(use, ctx)]
        related = _passed_on(ctx, uses)
        _reexports_in_one(ctx, uses, related)
        fixes = {use.node: _fix(ctx, use, self.table.advice_for(use.qname)) for use in uses}
        _same_statement(ctx, [use for use in uses if use.node not in related.folded],
                        lambda use: (self.table.advice_for(use.qname).advice, fixes[use.node][1]), related)
        for use in uses:
            if use.node in related.folded:
                continue
            advice = self.table.advice_for(use.qname)
            replacement, edits = fixes[use.node]
            details = advice.advice + (f". Limits: {advice.limits}" if advice.limits else "")
            ctx.report(
                self.rule, use.node, edits=edits, related=tuple(related.of.get(use.node, ())),
                qname=use.qname, library=self.table.libraries[use.library], role=use.role,
                details=details,
                fix=f"Replace with `{replacement}`" if replacement else "Port this use by hand",
            )

    def _reported(self, use: LibraryUse, ctx: ModuleContext) -> bool:
        advice = self.table.advice_for(use.qname)
        return not (advice is None or advice.covered_by or advice.runs_on_npu
                    or is_own_package(ctx, use.library)  # the library's own code
                    or uses_npu_build(ctx, use.library)  # the project's kernels for triton-ascend
                    or _inside_covered_kernel(use.node, self.table)
                    # `@tracer.register_leaf_module_impl(apex.FusedRMSNorm)`: a key, the import is the finding
                    or (use.role == "reference" and registration_key(use.node))
                    # `df: cudf.DataFrame` (Ray Data's GPU shuffle, 30 times in one module): a type
                    # annotation names a type and runs nothing of the library
                    or (use.role == "reference" and in_annotation(use.node))
                    or _module_alias(use)
                    or _falls_back_to_replacement(use, advice)
                    # the name comes from a test's Mock that `sys.modules` held at the import
                    or (isinstance(use.binding, (nodes.Import, nodes.ImportFrom)) and imports_stand_in(use.binding)))


def _falls_back_to_replacement(use: LibraryUse, advice: Advice) -> bool:
    """`try: from apex.normalization.fused_layer_norm import FusedLayerNorm as BertLayerNorm` /
    `except ImportError: BertLayerNorm = torch.nn.LayerNorm` (pytorch-transformers 1.x's
    modeling_bert.py, copied into many BERT projects): where the library does not import, the name
    already is the replacement the advice names, so its uses are ported; the import is the finding
    (NPU401), and each use would say it again."""
    if advice.replacement is None or use.qname != advice.key or not isinstance(use.binding, nodes.ImportFrom):
        return False
    attempt = use.binding.parent
    if not isinstance(attempt, nodes.Try) or use.binding not in attempt.body:
        return False
    local = next((alias or name for name, alias in use.binding.names
                  if use.qname == f"{use.binding.modname}.{name}"), None)
    return local is not None and any(
        isinstance(statement, nodes.Assign) and qualified_name(statement.value) == advice.replacement
        and any(isinstance(target, nodes.AssignName) and target.name == local for target in statement.targets)
        for handler in attempt.handlers for statement in handler.body)


def _module_alias(use: LibraryUse) -> bool:
    """`import tinycudann` / `tcnn = tinycudann` (nerfstudio's utils/external.py): another name for
    the imported module uses nothing of it; the import is the finding, and the calls through the
    alias are reported where they are made."""
    node = use.node
    return (use.role == "reference" and isinstance(node, nodes.Name) and isinstance(use.binding, nodes.Import)
            and any(use.qname == name for name, _alias in use.binding.names)  # the module, not a name in it
            and isinstance(node.parent, nodes.Assign) and node.parent.value is node
            and all(isinstance(target, nodes.AssignName) for target in node.parent.targets))


def _reexports_in_one(ctx: ModuleContext, uses: list[LibraryUse], result: "_Folded") -> None:
    """A module that hands a library's names on under the same names (nvitop's api/libnvml.py: 56
    lines of `NVML_CLOCK_SM: int = _pynvml.NVML_CLOCK_SM`) is one port, a shim to replace: the
    first re-export is the finding, the others (and what was folded into them) its related
    places. One re-export (`FusedRMSNorm = apex.normalization.FusedRMSNorm`) stays a finding."""
    first: dict[str, LibraryUse] = {}
    for use in sorted(uses, key=lambda use: (use.node.fromlineno, use.node.col_offset)):
        if use.node in result.folded or not _reexport(use):
            continue
        anchor = first.setdefault(use.library, use)
        if anchor is use:
            continue
        result.folded.add(use.node)
        places = result.of.setdefault(anchor.node, [])
        places.append(ctx.related(use.node, "hands on another of the library's names under its own name"))
        places.extend(result.of.pop(use.node, ()))


def _reexport(use: LibraryUse) -> bool:
    """`NVML_CLOCK_SM: int = _pynvml.NVML_CLOCK_SM`, or `= getattr(_pynvml, "NVML_CLOCK_SM", 1)`, at
    module level: the module hands the library's name on under the same name."""
    node = use.node
    if use.role != "reference":
        return False
    if isinstance(node, nodes.Attribute):
        value, name = node, node.attrname
    elif isinstance(node.parent, nodes.Call) and _getattr_of(node.parent, node):
        value, name = node.parent, node.parent.args[1].value
    else:
        return False
    statement = value.parent
    if not isinstance(statement, (nodes.Assign, nodes.AnnAssign)) or statement.value is not value:
        return False
    targets = statement.targets if isinstance(statement, nodes.Assign) else [statement.target]
    return all(isinstance(target, nodes.AssignName) and target.name == name for target in targets) \
        and isinstance(statement.scope(), nodes.Module)


def _getattr_of(call: nodes.Call, module: nodes.NodeNG) -> bool:
    """`getattr(module, "name", ...)`."""
    return isinstance(call.func, nodes.Name) and call.func.name == "getattr" and len(call.args) >= 2 \
        and call.args[0] is module and isinstance(call.args[1], nodes.Const) and isinstance(call.args[1].value, str)


class _Folded:
    def __init__(self):
        self.folded: set[nodes.NodeNG] = set()
        self.of: dict[nodes.NodeNG, list[Related]] = {}


def _passed_on(ctx: ModuleContext, uses: list[LibraryUse]) -> _Folded:
    """A local alias passed on (`optimizer_cls=opt_cls`) names nothing new: it is a related place of
    the finding where the alias is assigned (`opt_cls = bnb.optim.Adam8bit`), not a finding again.
    Calls, decorators and base classes through an alias stay findings of their own: each carries
    its own advice, and a fix that edits its arguments."""
    by_node = {use.node: use for use in uses}

    def anchor(use: LibraryUse) -> LibraryUse:
        seen = set()
        while use.role == "reference" and use.via in by_node and use.node not in seen:
            seen.add(use.node)  # `b = a; a = b` cannot happen in one scope, but never loop
            use = by_node[use.via]
        return use

    result = _Folded()
    for use in uses:
        target = anchor(use)
        if target is not use:
            result.folded.add(use.node)
            result.of.setdefault(target.node, []).append(
                ctx.related(use.node, f"`{ctx.node_text(use.node)}` passes on what is assigned here"))
    return result


def _same_statement(ctx: ModuleContext, uses: list[LibraryUse], says, result: _Folded) -> None:
    """Uses in one statement that get the same advice and no edit of their own are one port:
    `trt.Logger(trt.Logger.INFO)`, `triton.testing.do_bench(f) / triton.testing.do_bench(g)`,
    `isinstance(m, (te.LayerNorm, te.Linear))`. The first is the finding, the others its related
    places; a use whose fix edits it keeps its own finding."""
    first: dict[tuple, LibraryUse] = {}
    for use in sorted(uses, key=lambda use: (use.node.fromlineno, use.node.col_offset)):
        advice, edits = says(use)
        if edits:
            continue
        key = (use.node.statement(), use.library, advice)
        target = first.setdefault(key, use)
        if target is not use:
            result.folded.add(use.node)
            result.of.setdefault(target.node, []).append(
                ctx.related(use.node, f"`{use.qname}` is used here too, with the same advice"))


def _fix(ctx: ModuleContext, use: LibraryUse, advice: Advice) -> tuple[str | None, tuple[Edit, ...]]:
    """(replacement, edits) for a mechanical replacement of this use; (None, ()) when there is none."""
    if advice.replacement is None or use.qname != advice.key:
        return None, ()
    call = use.node.parent if use.role == "call" else None
    keywords = {keyword.arg: keyword for keyword in (call.keywords or ())} if call is not None else {}
    if advice.keywords_without_equivalent & set(keywords):
        return None, ()
    replacement, edits = advice.replacement, []
    if advice.choose_by is not None:
        choice = advice.choose_by
        if call is None:
            return None, ()
        keyword = keywords.get(choice.keyword)
        if keyword is None:
            replacement = choice.values[choice.default]
        elif isinstance(keyword.value, nodes.Const) and isinstance(keyword.value.value, bool):
            replacement = choice.values[keyword.value.value]
            edits.append(_drop_keyword(ctx, call, keyword))
        else:
            return None, ()
    imports = _import_edits(ctx, replacement.split(".", 1)[0])
    if imports is None:
        return None, ()
    return replacement, (Edit(ctx.start(use.node), ctx.end(use.node), replacement), *edits, *imports)


def _drop_keyword(ctx: ModuleContext, call: nodes.Call, keyword: nodes.Keyword) -> Edit:
    arguments = sorted([*call.args, *call.keywords], key=lambda a: (a.lineno, a.col_offset))
    index = arguments.index(keyword)
    if index > 0:
        return Edit(ctx.end(arguments[index - 1]), ctx.end(keyword), "")
    if index + 1 < len(arguments):
        return Edit(ctx.start(keyword), ctx.start(arguments[index + 1]), "")
    return Edit(ctx.start(keyword), ctx.end(keyword), "")


def _import_edits(ctx: ModuleContext, root: str) -> tuple[Edit, ...] | None:
    """Edits that bind `root` at module level: none needed, one insertion, or None when unsure where."""
    module = ctx.module
    if root == "torch_npu" and imports_torch_npu(module):
        return ()
    if any(isinstance(stmt, nodes.Import) and imported_name(stmt, root) == root
           for stmt in module.locals.get(root, ())):
        return ()
    if root == "torch_npu" and ctx.torch_npu_import_edits():
        return ctx.torch_npu_import_edits()
    imports = [stmt for stmt in module.body if isinstance(stmt, (nodes.Import, nodes.ImportFrom))]
    if not imports:
        return None
    return (ctx.insert_after(imports[-1], f"import {root}"),)


def _inside_covered_kernel(node: nodes.NodeNG, libraries) -> bool:
    """Inside a function whose decorator another rule reports (`@triton.jit`) or that a kernel
    decorator of the table compiles (`@numba.cuda.jit`, reported here), or inside the arguments of
    its decorators (`@triton.autotune(configs=[triton.Config(...)])`): the kernel is one finding."""
    decorators = _enclosing_decorators(node)
    if decorators is not None and _covered(decorators, libraries, node):
        return True
    scope = node.scope()
    while isinstance(scope, (nodes.FunctionDef, nodes.Lambda)):
        if getattr(scope, "decorators", None) and _covered(scope.decorators, libraries):
            return True
        scope = scope.parent.scope() if scope.parent is not None else None
    return False


def _enclosing_decorators(node: nodes.NodeNG) -> nodes.Decorators | None:
    while node is not None and not node.is_statement:
        if isinstance(node, nodes.Decorators):
            return node
        node = node.parent
    return None


def _covered(decorators: nodes.Decorators, libraries, use: nodes.NodeNG | None = None) -> bool:
    for decorator in decorators.nodes:
        target = decorator.func if isinstance(decorator, nodes.Call) else decorator
        if target is use:
            continue  # the kernel decorator itself is the kernel's finding
        qname = qualified_name(target) or applied_decorator(target)  # trl's `@_jit` applies triton.jit
        advice = libraries.advice_for(qname) if qname else None
        if advice is not None and (advice.covered_by or advice.kernel):
            return True
    return False
