"""check: library_call_cuda_bound -- a call into a library function that picks CUDA by itself.

The user's line says nothing about CUDA (`NativeScaler()`, `init_dist("pytorch")`); the library's
own code does. The call is resolved through the file's imports (aliases, re-exports) to a name of
the shipped summaries (data/library_summaries.yaml, the version from `library-versions` or the
newest summarised: never what happens to be installed), or, for an installed library without a
summary, to a summary made on the fly from its sources. The finding names the library line as a
related location and says what to pass instead when a parameter selects the device.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.edits import append_keyword_argument
from npu_lint.analysis.module_facts import facts_of
from npu_lint.analysis.names import chain_root, qualified_name, single_value
from npu_lint.checks.base import Check
from npu_lint.core.findings import Applicability, Confidence, Edit, Position, Related
from npu_lint.knowledge import library_summaries
from npu_lint.knowledge.library_summaries import SUMMARISED, CudaUse, Summary

# What to pass for a parameter whose "cuda"/"nccl" default makes the call CUDA-bound.
NPU_VALUES = {"backend": '"hccl"', "dist_backend": '"hccl"'}
NPU_DEVICE = '"npu"'


class LibraryCallCudaBound(Check):
    # Import statements come before the calls they bind in the engine's walk (source order):
    # recording them as they pass costs nothing where a file imports no library.
    node_types = (nodes.Import, nodes.ImportFrom, nodes.Call)

    rides_along = True  # installed libraries without a summary are analysed where the file is in anyway

    def triggers(self) -> frozenset:
        # Only a file that names a summarised library and one of its CUDA-bound names reaches this
        # check on its own; the on-the-fly analysis of other installed libraries runs where another
        # rule let the file in.
        return library_summaries.trigger_pairs()

    def visit(self, node: nodes.NodeNG, ctx: ModuleContext) -> None:
        libraries = ctx.scratch.setdefault(("library_call_cuda_bound", "imports"), {})
        if not isinstance(node, nodes.Call):
            _record_import(node, libraries)
            return
        if not libraries:
            return
        resolved = self._resolve(node.func, libraries)
        if resolved is None:
            return
        qname, confidence = resolved
        summary = self._summary(qname.split(".")[0], ctx)
        if summary is None:
            return
        found = summary.lookup(qname)
        if found is None:
            return
        name, use = found
        if confidence is Confidence.INFERENCE and summary.lookup(qname.rpartition(".")[0]) is not None:
            return  # a method of an object whose creation is reported already
        if use.param and _passes(node, use.param):
            return  # the user chooses the device already
        if _under_cuda_test(node, ctx):
            return  # the user's own CUDA branch: the rules on its test say what to port
        self._report(node, ctx, summary, name, use, confidence)

    def _summary(self, package: str, ctx: ModuleContext) -> Summary | None:
        key = ("library_call_cuda_bound", "summary", package)
        if key not in ctx.scratch:
            if package in SUMMARISED:  # shipped facts win: the answer never depends on the environment
                summary = library_summaries.summary(package, self.settings.library_version(package))
            else:
                from npu_lint.analysis.installed_libraries import installed_summary

                summary = installed_summary(package)
            ctx.scratch[key] = summary
        return ctx.scratch[key]

    # -- what the call reaches -----------------------------------------------------------------
    def _resolve(self, func: nodes.NodeNG, libraries: dict[str, str]) -> tuple[str, Confidence] | None:
        root = chain_root(func)
        if root is None:
            return None
        if root.name in libraries:
            qname = qualified_name(func)
            if qname and qname.split(".")[0] == libraries[root.name]:
                return qname, Confidence.HIGH
            return None
        # `ema = ModelEmaV2(model)` ... `ema.update(model)`: a method of an object the module built
        if isinstance(func, nodes.Attribute) and func.expr is root:
            built = _built_by(root, libraries)
            if built:
                return f"{built}.{func.attrname}", Confidence.INFERENCE
        return None

    # -- the finding -----------------------------------------------------------------------------
    def _report(self, node: nodes.Call, ctx: ModuleContext, summary: Summary, name: str, use: CudaUse,
                confidence: Confidence) -> None:
        call = ctx.node_text(node.func)
        where = f"{use.path}:{use.line}"
        via = f" (in `{use.via}`, which it calls)" if use.via else ""
        edits: tuple[Edit, ...] = ()
        if use.param:
            value = NPU_VALUES.get(use.param, NPU_DEVICE)
            advice = f"pass `{use.param}={value}`"
            fix_message = f"Pass {use.param}={value}"
            edit = append_keyword_argument(ctx, node, f"{use.param}={value}")
            edits = (edit,) if edit else ()
        else:
            advice = f"this helper cannot run on the NPU as written: {_equivalent(use.use)}"
            fix_message = "Replace the call with an NPU-ready equivalent"
        related = (Related(Position(use.line, 0), Position(use.line, 0),
                           f"{summary.package} {summary.version}: `{use.use}` picks CUDA here", path=use.path),)
        ctx.report(self.rule, node, confidence=confidence, edits=edits, related=related,
                   applicability=Applicability.UNSAFE, call=call, name=name, library=summary.package,
                   version=summary.version, use=use.use, where=where, via=via, advice=advice,
                   fix_message=fix_message)


# What the NPU offers for the CUDA-only code a helper holds, by what that code does.
_EQUIVALENTS = (
    ("GradScaler", 'build `torch.amp.GradScaler("npu")` yourself (torch_npu: `torch.npu.amp.GradScaler()`)'),
    ("autocast", 'use `torch.amp.autocast("npu")` around the work instead'),
    ("nccl", 'initialise the process group with `backend="hccl"` yourself'),
    (".cuda()", 'move its inputs with `.to("npu")` and call an NPU-ready replacement'),
    ("Stream", "use `torch.npu.Stream` / `torch.npu.stream` (torch_npu) in a replacement"),
    ("Event", "use `torch.npu.Event` (torch_npu) in a replacement"),
)


def _equivalent(use: str) -> str:
    for word, advice in _EQUIVALENTS:
        if word in use:
            return advice
    return "use an NPU-ready equivalent, or run it under transfer_to_npu, which rewrites such calls"


def _record_import(statement: nodes.Import | nodes.ImportFrom, libraries: dict[str, str]) -> None:
    """Local names bound by imports of summarised or installed libraries -> import name."""
    from npu_lint.analysis.installed_libraries import is_candidate

    if isinstance(statement, nodes.ImportFrom):
        if statement.level or not statement.modname:
            return
        top = statement.modname.split(".")[0]
        if top in SUMMARISED or is_candidate(top):
            for name, alias in statement.names:
                if name != "*":
                    libraries[alias or name] = top
        return
    for name, alias in statement.names:
        top = name.split(".")[0]
        if top in SUMMARISED or is_candidate(top):
            libraries[alias or top] = top


def _under_cuda_test(node: nodes.NodeNG, ctx: ModuleContext) -> bool:
    """Inside `if self.cuda:` / `if torch.cuda.is_available():` / `x if use_cuda else y` of this scope."""
    child, parent = node, node.parent
    while parent is not None and not isinstance(parent, (nodes.FunctionDef, nodes.AsyncFunctionDef, nodes.Module,
                                                         nodes.ClassDef, nodes.Lambda)):
        if isinstance(parent, (nodes.If, nodes.IfExp)) and child is not parent.test \
                and "cuda" in ctx.node_text(parent.test).lower():
            return True
        child, parent = parent, parent.parent
    return False


def _passes(node: nodes.Call, param: str) -> bool:
    """Whether the call gives `param` a value (by keyword, or `**options` that may hold it).
    Positional arguments are not counted: the summary records the name only."""
    for keyword in node.keywords or ():
        if keyword.arg == param or keyword.arg is None:
            return True
    return False


def _built_by(name: nodes.Name, libraries: dict[str, str]) -> str | None:
    """The qualified name of the library class whose call is this name's only assignment."""
    if facts_of(name).call_roots.get(name.name, frozenset()).isdisjoint(libraries):
        return None  # asked for every `x.method()`: skip the scope lookup where it cannot succeed
    value = single_value(name)
    if not isinstance(value, nodes.Call):
        return None
    root = chain_root(value.func)
    if root is None or root.name not in libraries:
        return None
    return qualified_name(value.func)

