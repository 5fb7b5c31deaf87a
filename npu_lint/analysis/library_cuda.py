"""Which public functions of a third-party library pick CUDA by themselves (Python's `ast` only).

A function graph in the manner of msFmkTransplt's third-party mode: a function, method or class
constructor is CUDA-bound when its own body uses a CUDA-only API that no device test guards, or
when it calls a CUDA-bound function of the same library outside such a guard. The library is
never imported; its files are read as text. Used by the offline generator (data/library_summaries.yaml)
and, the same way, for an installed library that has no shipped summary.

Quiet on purpose: a use under `if torch.cuda.is_available():` (or any test that mentions CUDA or a
device), inside `try:`, or in a function that handles the NPU (`is_npu_available()`, `torch.npu`,
`torch.accelerator`, "npu"/"hccl") does not count; nor does a "cuda" default of a parameter the
caller passes (the summary records that parameter so the call site can say "pass device=...").
"""
from __future__ import annotations

import ast
import dataclasses
from collections import deque
from typing import Iterable

from npu_lint.core.python_ast import dotted_parts
from npu_lint.knowledge.library_summaries import CudaUse
from npu_lint.core.records import record

# torch.cuda names that do no harm where CUDA is absent: tests, lazy seeding, cache and memory
# statistics that answer 0, decorators evaluated at import time.
HARMLESS_TORCH_CUDA = frozenset({
    "is_available", "device_count", "is_initialized", "_is_compiled", "empty_cache", "manual_seed",
    "manual_seed_all", "seed", "seed_all", "memory_allocated", "max_memory_allocated", "memory_reserved",
    "max_memory_reserved", "memory_cached", "max_memory_cached", "is_bf16_supported", "amp.custom_fwd",
    "amp.custom_bwd", "reset_peak_memory_stats", "reset_max_memory_allocated", "nvtx.range_push",
    "nvtx.range_pop", "nvtx.range", "_lazy_call", "is_current_stream_capturing",
    "get_rng_state_all", "set_rng_state_all",  # loops over device_count(): nothing to do without CUDA
})
NPU_WORDS = frozenset({"npu", "is_npu_available", "is_torch_npu_available", "torch_npu", "accelerator",
                       "hccl", "is_hccl_available"})
DEVICE_KEYWORDS = frozenset({"device", "map_location", "device_type", "backend"})
# Words in a test that make its branches device-dependent (the guard of a CUDA path).
GUARD_WORDS = ("cuda", "gpu", "nccl", "backend", "accelerator", "device_type", "mps", "xla", "tpu", "cpu",
               "fp8", "version", "greater", "torch_2")
MAX_USE = 70
DEVICE_METHODS = frozenset({"to", "device", "init_process_group", "set_device", "cuda"})
# Module folders that hold a library's own tests and examples, not its API.
NOT_API = frozenset({"tests", "test", "testing", "test_utils", "examples", "benchmarks", "benchmark"})
# Methods torch calls (module hooks): the user's line is `model(x)`, which a call site cannot tie to them.
CALLED_BY_TORCH = frozenset({"forward", "extra_repr", "reset_parameters"})


@record
class _Function:
    qname: str
    path: str
    node: ast.AST
    module: "_Module"
    cls: str | None = None  # qualified name of the class, for methods
    params: tuple[str, ...] = ()
    direct: CudaUse | None = None
    calls: list = dataclasses.field(default_factory=list)  # (callee qname, line, passed keywords, npos)
    handles_npu: bool = False
    defaults: dict = dataclasses.field(default_factory=dict)  # param -> (line, text) of a "cuda"/"nccl" default
    sinks: set = dataclasses.field(default_factory=set)  # params that reach a device argument or attribute
    forwards: list = dataclasses.field(default_factory=list)  # (param, callee qname, callee param)


@record
class _Module:
    name: str
    path: str
    tree: ast.Module
    imports: dict  # local name -> dotted name (absolute)
    defs: dict  # local name -> qname defined here


def module_name(relative_path: str) -> str:
    parts = relative_path[:-3].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_public_module(name: str) -> bool:
    return not any(part.startswith(("_", "test", "convert_")) or part in NOT_API for part in name.split("."))


def analyse_package(files: Iterable[tuple[str, str]], top: str) -> tuple[dict[str, CudaUse], dict[str, str]]:
    """(CUDA-bound public name -> where, public alias -> defining name) for a package.

    `files` are (path relative to the site folder, e.g. "timm/utils/cuda.py", source text).
    """
    modules: dict[str, _Module] = {}
    for path, text in files:
        if not path.endswith(".py") or not (path == f"{top}.py" or path.startswith(f"{top}/")):
            continue
        try:
            tree = ast.parse(text, filename=path)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        name = module_name(path)
        modules[name] = _Module(name, path, tree, {}, {})
    functions: dict[str, _Function] = {}
    classes: dict[str, tuple[_Module, ast.ClassDef]] = {}
    for module in modules.values():
        _read_module(module, modules, functions, classes)
    bases = {qname: [_resolve(module, b) for b in node.bases] for qname, (module, node) in classes.items()}
    for function in functions.values():
        _read_body(function, functions, classes, bases, modules)
    _settle_defaults(functions)
    bound = _propagate(functions)
    public = {}
    for qname, use in bound.items():
        function = functions[qname]
        if not is_public_module(function.module.name):
            continue
        local = qname[len(function.module.name) + 1:].split(".")
        if local[-1] == "__init__":
            local.pop()
            qname = qname[: -len(".__init__")]
        if any(part.startswith("_") for part in local) or local[-1] in CALLED_BY_TORCH or any("cuda" in part.lower() for part in local):
            continue
        public[qname] = use
    aliases = _public_aliases(modules, public)
    return public, aliases


# -- reading modules ----------------------------------------------------------------------------

def _absolute(module: _Module, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module.name.split(".")
    if not module.path.endswith("__init__.py"):
        package = package[:-1]
    if node.level > 1:
        package = package[: len(package) - (node.level - 1)]
    return ".".join(package + ([node.module] if node.module else []))


def _collect_imports(module: _Module, tree: ast.AST, into: dict) -> None:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    into[alias.asname] = alias.name
                else:
                    into.setdefault(alias.name.split(".")[0], alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(module, node)
            for alias in node.names:
                if alias.name != "*":
                    into[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name


def _read_module(module: _Module, modules, functions, classes) -> None:
    _collect_imports(module, module.tree, module.imports)

    def define(body, prefix: str, cls: str | None) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                qname = f"{prefix}.{node.name}"
                if cls is None:
                    module.defs[node.name] = qname
                params = tuple(a.arg for a in node.args.posonlyargs + node.args.args)
                functions[qname] = _Function(qname, module.path, node, module, cls, params)
            elif isinstance(node, ast.ClassDef):
                qname = f"{prefix}.{node.name}"
                if cls is None:
                    module.defs[node.name] = qname
                classes[qname] = (module, node)
                define(node.body, qname, qname)
            elif isinstance(node, (ast.If, ast.Try)) and cls is None:
                define(node.body, prefix, cls)  # `if TYPE_CHECKING:`, `try: ... except ImportError:`
                define(getattr(node, "orelse", []), prefix, cls)
    define(module.tree.body, module.name, None)


def _resolve(module: _Module, node: ast.AST) -> str | None:
    """The absolute dotted name of a Name/Attribute chain, through the module's imports and defs."""
    parts = dotted_parts(node)
    if not parts:
        return None
    root = module.defs.get(parts[0]) or module.imports.get(parts[0])
    if root is None:
        return None
    return ".".join([root, *parts[1:]])


# -- one function's body ------------------------------------------------------------------------

def _words(node: ast.AST) -> set[str]:
    words = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            words.add(child.id.lower())
        elif isinstance(child, ast.Attribute):
            words.add(child.attr.lower())
        elif isinstance(child, ast.Constant) and isinstance(child.value, str):
            words.add(child.value.lower())
    return words


def _is_guard(test: ast.AST) -> bool:
    words = _words(test)
    return any(word in w for w in words for word in GUARD_WORDS) or any(
        w.startswith("torch_") and w[6:7].isdigit() for w in words)  # ultralytics' TORCH_1_13


def _mentions_npu(node: ast.AST) -> bool:
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and child.id in NPU_WORDS:
            return True
        if isinstance(child, ast.Attribute) and child.attr in NPU_WORDS:
            return True
        if isinstance(child, ast.Constant) and isinstance(child.value, str) and child.value.lower() in ("npu", "hccl"):
            return True
        if isinstance(child, ast.Constant) and isinstance(child.value, str) and child.value.startswith("npu:"):
            return True
    return False


def _short(node: ast.AST) -> str:
    try:
        text = " ".join(ast.unparse(node).split())
    except Exception:  # very old or odd trees
        return "?"
    return text if len(text) <= MAX_USE else text[: MAX_USE - 3] + "..."


def _is_message(node: ast.AST) -> bool:
    """A call that only prints or logs: what it mentions is text for a person."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in ("print", "warn", "warning", "info", "debug", "error", "log", "format", "rank_zero_warn",
                    "rank_zero_info", "print_log", "exception", "critical")


def _switched_off(call: ast.Call | None) -> bool:
    """`torch.cuda.amp.autocast(enabled=False)` only turns autocast off: harmless anywhere."""
    return call is not None and any(
        k.arg == "enabled" and isinstance(k.value, ast.Constant) and k.value.value is False for k in call.keywords)


def _cuda_string(node: ast.AST) -> bool:
    return (isinstance(node, ast.Constant) and isinstance(node.value, str)
            and (node.value == "cuda" or node.value.startswith("cuda:")))


def _nccl_string(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == "nccl"


class _BodyReader:
    """Walks one function body; guarded parts (device tests, try blocks, nested defs) are skipped."""

    def __init__(self, function: _Function, functions, classes, bases, modules):
        self.function = function
        self.module = function.module
        self.functions = functions
        self.classes = classes
        self.bases = bases
        self.modules = modules
        self.use: CudaUse | None = None
        self.quiet = 0  # inside `try:`: what fails there is caught; parameters passed still count
        # inside a branch: a library function called there is reached only on some inputs, and
        # does not make this one CUDA-bound (`generate()` builds an OffloadedCache on request only)
        self.conditional = 0

    def found(self, node: ast.AST, use: str) -> None:
        if self.use is None and not self.quiet:
            self.use = CudaUse(self.function.path, node.lineno, use)

    def run(self) -> None:
        node = self.function.node
        self._defaults(node)
        self._statements(node.body)

    def _defaults(self, node) -> None:
        positional = node.args.posonlyargs + node.args.args
        pairs = list(zip(positional[len(positional) - len(node.args.defaults):], node.args.defaults))
        pairs += [(a, d) for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults) if d is not None]
        for arg, default in pairs:
            if _cuda_string(default) or _nccl_string(default):
                self.function.defaults[arg.arg] = (default.lineno, f"{arg.arg}={default.value!r}")

    def _parameter(self, node: ast.AST) -> str | None:
        return node.id if isinstance(node, ast.Name) and node.id in self.function.params else None

    def _statements(self, body: list) -> None:
        for index, stmt in enumerate(body):
            if isinstance(stmt, ast.If) and _is_guard(stmt.test):
                # `if not torch.cuda.is_available(): return` guards the rest of the block.
                if any(isinstance(s, (ast.Return, ast.Continue, ast.Break)) for s in stmt.body):
                    return
                continue
            if isinstance(stmt, ast.Try) and stmt.handlers:
                self.quiet += 1
                self._statements(stmt.body)
                self.quiet -= 1
                continue
            if isinstance(stmt, (ast.Try, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(stmt, ast.Assert) and _is_guard(stmt.test):
                continue
            if isinstance(stmt, (ast.If, ast.For, ast.While, ast.With, ast.AsyncFor, ast.AsyncWith)):
                self._expressions(stmt)
                branch = isinstance(stmt, (ast.If, ast.While))
                self.conditional += branch
                for field in ("body", "orelse"):
                    self._statements(getattr(stmt, field, []))
                self.conditional -= branch
                continue
            self._expressions(stmt)

    def _expressions(self, stmt: ast.AST) -> None:
        stack = [stmt]
        while stack:
            node = stack.pop()
            if node is not stmt and isinstance(node, ast.stmt):
                continue  # statements of compound bodies are read by _statements
            if isinstance(node, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not stmt:
                continue
            if isinstance(node, ast.IfExp) and _is_guard(node.test):
                continue
            if isinstance(node, ast.BoolOp) and any(_is_guard(v) for v in node.values[:-1]):
                continue
            if isinstance(node, (ast.Compare, ast.JoinedStr, ast.Raise)) or _is_message(node):
                continue  # `device.type == "cuda"`, `backend == "nccl"` are tests, not uses
            if getattr(node, "_inner", False):
                continue  # a part of a `torch.cuda.x` chain already judged whole
            self._node(node)
            children = list(ast.iter_child_nodes(node))
            if isinstance(node, (ast.IfExp, ast.BoolOp)) or getattr(node, "_conditional", False):
                for child in children:
                    child._conditional = True
            stack.extend(children)

    def _node(self, node: ast.AST) -> None:
        if isinstance(node, ast.Call):
            self._call(node)
        elif isinstance(node, (ast.Attribute, ast.Name)) and isinstance(node.ctx, ast.Load):
            qname = _resolve(self.module, node)
            if qname and qname.startswith("torch.cuda."):
                inner = node
                while isinstance(inner, ast.Attribute):
                    inner = inner.value
                    inner._inner = True
                rest = qname[len("torch.cuda."):]
                parent_call = getattr(node, "_call", None)
                if rest not in HARMLESS_TORCH_CUDA and not rest.startswith("_") and not _switched_off(parent_call):
                    self.found(node, _short(parent_call or node))
        elif isinstance(node, ast.keyword) and node.arg in DEVICE_KEYWORDS and not getattr(node, "_in_dict", False):
            if _cuda_string(node.value) or (node.arg == "backend" and _nccl_string(node.value)):
                self.found(node.value, f"{node.arg}={node.value.value!r}")
        elif isinstance(node, ast.Assign) and (_nccl_string(node.value) or _cuda_string(node.value)):
            self.found(node.value, _short(node))
        elif isinstance(node, ast.Assign) and self._parameter(node.value) \
                and any(isinstance(t, ast.Attribute) for t in node.targets):
            self.function.sinks.add(node.value.id)  # `self.device = device`: used by other methods

    def _call(self, node: ast.Call) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id == "dict":
            for keyword in node.keywords:  # a configuration default, not a call that picks a device
                keyword._in_dict = True
        if isinstance(func, (ast.Attribute, ast.Name)):
            func._call = node  # the use text shows the whole call
        if isinstance(func, ast.Attribute):
            if func.attr == "cuda" and not node.args and not node.keywords:
                self.found(node, _short(node))
                return
            if func.attr in ("to", "device") and node.args and _cuda_string(node.args[0]):
                self.found(node, _short(node))
                return
        if isinstance(func, ast.Name) and func.id == "device" and node.args and _cuda_string(node.args[0]):
            self.found(node, _short(node))
        if any(_nccl_string(a) for a in node.args) and "init_process_group" in _short(func):
            self.found(node, _short(node))
        callee = self._callee(func)
        self._parameters_passed(node, func, callee)
        if callee is not None and not self.quiet and not self.conditional and not getattr(node, "_conditional", False):
            keywords = frozenset(k.arg for k in node.keywords if k.arg)
            self.function.calls.append((callee, node.lineno, keywords, len(node.args),
                                        any(k.arg is None for k in node.keywords)))

    def _parameters_passed(self, node: ast.Call, func: ast.AST, callee: str | None) -> None:
        """A parameter passed on: to a library function (followed later) or to a device argument."""
        passed = [(i, None, a) for i, a in enumerate(node.args)] + [(None, k.arg, k.value) for k in node.keywords]
        device_call = isinstance(func, ast.Attribute) and func.attr in DEVICE_METHODS or \
            (_resolve(self.module, func) or "").startswith("torch.")
        for index, keyword, value in passed:
            param = self._parameter(value)
            if param is None or (index is None and keyword is None):
                continue
            if callee is not None:
                if self.conditional or getattr(node, "_conditional", False):
                    continue  # passed on in one branch only (mmengine's init_dist per launcher)
                params = list(self.functions[callee].params)
                if params and params[0] in ("self", "cls"):
                    params = params[1:]
                target = keyword or (params[index] if index < len(params) else None)
                if target:
                    self.function.forwards.append((param, callee, target))
            elif keyword in DEVICE_KEYWORDS or (keyword is None and device_call):
                self.function.sinks.add(param)

    def _callee(self, func: ast.AST) -> str | None:
        """The library function a call reaches: a module function, a class (its __init__), a
        method of self/cls/super() (through the bases that the library defines)."""
        parts = dotted_parts(func)
        cls = self.function.cls
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call) \
                and isinstance(func.value.func, ast.Name) and func.value.func.id == "super" and cls:
            return self._method(self.bases.get(cls, []), func.attr)
        if parts and cls and parts[0] in ("self", "cls") and len(parts) == 2:
            return self._method([cls], parts[1])
        qname = _resolve(self.module, func)
        if qname is None:
            return None
        return self._library_function(qname)

    def _library_function(self, qname: str, depth: int = 0) -> str | None:
        if qname in self.functions:
            return qname
        if qname in self.classes:
            return self._method([qname], "__init__")
        target = self._reexported(qname) if depth < 5 else None
        if target is not None:
            return self._library_function(target, depth + 1)
        # a method reached through its class: `Trainer.from_argparse_args`
        owner, _, method = qname.rpartition(".")
        if owner in self.classes:
            return self._method([owner], method)
        return None

    def _method(self, classes: list, name: str, depth: int = 0) -> str | None:
        for cls in classes:
            if cls is None or depth > 8:
                continue
            cls = self._library_class(cls)
            if cls is None:
                continue
            if f"{cls}.{name}" in self.functions:
                return f"{cls}.{name}"
            found = self._method(self.bases.get(cls, []), name, depth + 1)
            if found:
                return found
        return None

    def _library_class(self, qname: str, depth: int = 0) -> str | None:
        if qname in self.classes:
            return qname
        target = self._reexported(qname) if depth < 5 else None
        return self._library_class(target, depth + 1) if target is not None else None

    def _reexported(self, qname: str) -> str | None:
        """What a re-export stands for: `from .model_ema import ModelEma` in utils/__init__.py."""
        module_part, _, name = qname.rpartition(".")
        module = self.modules.get(module_part)
        target = module.imports.get(name) if module is not None else None
        return target if target and target != qname else None


def _read_body(function: _Function, functions, classes, bases, modules) -> None:
    node = function.node
    if _mentions_npu(node):
        function.handles_npu = True
        return
    reader = _BodyReader(function, functions, classes, bases, modules)
    reader.run()
    function.direct = reader.use


def _settle_defaults(functions: dict[str, _Function]) -> None:
    """A "cuda"/"nccl" default makes a function CUDA-bound only where the parameter reaches a device
    argument, here or in a library function it is passed to (mmengine's init_dist passes
    backend='nccl' on to a helper that picks hccl on the NPU: quiet)."""
    changed = True
    while changed:
        changed = False
        for function in functions.values():
            if function.handles_npu:
                continue
            for param, callee, target in function.forwards:
                if param not in function.sinks and target in functions[callee].sinks:
                    function.sinks.add(param)
                    changed = True
    for function in functions.values():
        if function.direct is not None or function.handles_npu:
            continue
        for param, (line, text) in function.defaults.items():
            if param in function.sinks:
                function.direct = CudaUse(function.path, line, text, param)
                break


def _passes(call: tuple, callee: _Function, param: str) -> bool:
    """Whether a call gives the callee's device-selecting parameter a value."""
    _name, _line, keywords, npos, star = call
    if param in keywords or star:
        return True
    params = list(callee.params)
    if params and params[0] in ("self", "cls"):
        params = params[1:]
    return param in params and params.index(param) < npos


def _propagate(functions: dict[str, _Function]) -> dict[str, CudaUse]:
    bound = {q: f.direct for q, f in functions.items() if f.direct is not None}
    callers: dict[str, list] = {}
    for function in functions.values():
        for call in function.calls:
            callers.setdefault(call[0], []).append((function, call))
    queue = deque(bound)
    while queue:
        callee_name = queue.popleft()
        use = bound[callee_name]
        callee = functions[callee_name]
        for caller, call in callers.get(callee_name, ()):
            if caller.qname in bound or caller.handles_npu or caller is callee:
                continue
            if use.param and _passes(call, callee, use.param):
                continue  # the caller chooses the device
            bound[caller.qname] = CudaUse(use.path, use.line, use.use, via=use.via or _display(callee_name))
            queue.append(caller.qname)
    return bound


def _display(qname: str) -> str:
    return qname[: -len(".__init__")] if qname.endswith(".__init__") else qname


def _public_aliases(modules: dict[str, _Module], public: dict[str, CudaUse]) -> dict[str, str]:
    """`timm.utils.ModelEma` -> `timm.utils.model_ema.ModelEma` for names re-exported by public modules."""
    aliases = {}
    for module in modules.values():
        if not is_public_module(module.name):
            continue
        for local, target in module.imports.items():
            if local.startswith("_"):
                continue
            seen = 0
            while target not in public and seen < 5:
                owner, _, name = target.rpartition(".")
                owner_module = modules.get(owner)
                if owner_module is None or name not in owner_module.imports:
                    break
                target = owner_module.imports[name]
                seen += 1
            alias = f"{module.name}.{local}"
            if target in public and alias != target:
                aliases[alias] = target
    return aliases
