"""Write ``torch_api.json``, the model of torch's public API, by importing the real torch.

Run in an environment with the torch version to model (no GPU needed)::

    python -m npu_lint.knowledge.torch_model.generate          # rewrite the committed file
    python -m npu_lint.knowledge.torch_model.generate --check  # exit 1 if it is out of date

The layout of the data is documented in ``data.py``.
"""

from __future__ import annotations

import argparse
import builtins
import contextlib
import functools
import importlib
import inspect
import io
import json
import keyword
import os
import sys
import types
import typing
import warnings

from npu_lint.knowledge.torch_model import returns
from npu_lint.knowledge.torch_model.data import DATA_FILE, FORMAT

# Module path components that are test or benchmark internals, not API ("torch.testing" is API).
SKIP_PARTS = frozenset({"test", "tests", "testing", "examples", "op_fuzzers"})
# Objects re-exported into these trees get a local copy there, so a qname reached through
# torch.cuda always starts with "torch.cuda." (rules key CUDA-only APIs on that prefix).
CUDA_SCOPES = ("torch.cuda",)
# Dunders that pylint's protocol checks look for (not-callable, not-context-manager,
# not-an-iterable, unsubscriptable-object, ...) and the operators of Tensor.
_OPS = "add sub mul matmul truediv floordiv mod pow and or xor lshift rshift"
PROTOCOL_DUNDERS = frozenset(
    "__call__ __enter__ __exit__ __aenter__ __aexit__ __iter__ __next__ __aiter__ __anext__ "
    "__len__ __getitem__ __setitem__ __delitem__ __contains__ __bool__ __index__ __int__ "
    "__float__ __complex__ __neg__ __pos__ __abs__ __invert__ __lt__ __le__ __gt__ __ge__ "
    "__eq__ __ne__ __await__".split()
    + [f"__{p}{op}__" for op in _OPS.split() for p in ("", "r", "i")]
)
_LITERALS = (str, int, float, bool, type(None))


def _within(name: str | None, prefix: str) -> bool:
    return bool(name) and (name == prefix or name.startswith(prefix + "."))


def _scope(name: str | None) -> str | None:
    return next((s for s in CUDA_SCOPES if _within(name, s)), None)


def is_public_module(name: str) -> bool:
    parts = name.split(".")
    if parts[0] != "torch" or any(p.startswith("_") for p in parts):
        return False
    return name == "torch.testing" or not SKIP_PARTS.intersection(parts[1:])


def _usable_name(name: object) -> bool:
    return isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name)


def _module_of(obj: object) -> str | None:
    try:
        mod = getattr(obj, "__module__", None)
    except Exception:  # pylint: disable=broad-except
        return None
    return mod if isinstance(mod, str) else None


def _is_external(obj: object) -> bool:
    """Defined outside torch (typing.Any, os, functools.lru_cache, a logging.Logger, ...)."""
    mod = _module_of(obj)
    return mod is not None and not _within(mod, "torch")


def find_module_names(torch_dir: str) -> list[str]:
    """Public module names of the torch package on disk (regular packages only)."""
    names = []
    root = os.path.dirname(torch_dir)
    for dirpath, dirnames, filenames in os.walk(torch_dir):
        if "__init__.py" not in filenames:
            dirnames[:] = []
            continue
        dirnames.sort()
        package = os.path.relpath(dirpath, root).replace(os.sep, ".")
        names.append(package)
        names.extend(f"{package}.{f[:-3]}" for f in filenames if f.endswith(".py") and f != "__init__.py")
    return sorted(n for n in names if is_public_module(n))


def import_all(names: list[str]) -> tuple[dict[str, types.ModuleType], dict[str, str]]:
    """Import every module (quietly); also pick up public modules only found in sys.modules."""
    failed = {}
    sink = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        warnings.simplefilter("ignore")
        for name in names:
            try:
                importlib.import_module(name)
            except (Exception, SystemExit) as exc:  # pylint: disable=broad-except
                failed[name] = f"{type(exc).__name__}: {exc}".splitlines()[0][:120]
    modules = {
        name: mod
        for name, mod in sorted(sys.modules.items())
        if isinstance(mod, types.ModuleType) and is_public_module(name) and name not in failed
    }
    return modules, failed


def module_attributes(mod: types.ModuleType) -> list[tuple[str, object, bool]]:
    """(name, value, listed in __all__) for the public names of a module."""
    exported = getattr(mod, "__all__", None)
    exported = {n for n in exported if isinstance(n, str)} if isinstance(exported, (list, tuple)) else set()
    namespace = dict(vars(mod))
    if type(mod) is not types.ModuleType:
        # The sys.modules trick (torch.backends.cudnn): a ModuleType subclass whose class holds
        # properties (benchmark, deterministic) and which delegates to the original module.
        for value in list(namespace.values()):
            if isinstance(value, types.ModuleType) and value is not mod and value.__name__ == mod.__name__:
                namespace = {**vars(value), **namespace}
        for klass in type(mod).__mro__[: type(mod).__mro__.index(types.ModuleType)]:
            namespace.update((n, None) for n in vars(klass) if n not in namespace)
    names = {n for n in namespace if not n.startswith("_")} | exported
    result = []
    for name in sorted(n for n in names if _usable_name(n)):
        try:
            value = getattr(mod, name)
        except Exception:  # pylint: disable=broad-except
            value = None
        result.append((name, value, name in exported))
    return result


def choose_home(obj: object, exposures: list[tuple[str, str]]) -> tuple[str, str]:
    """The one public (module, name) under which the stub defines ``obj``.

    Prefer modules that contain the defining module (torch.nn for torch.nn.modules.linear),
    then the shortest path; an object defined under torch.cuda stays under torch.cuda.
    """
    own = getattr(obj, "__name__", None)
    definer = _module_of(obj)
    pool = exposures
    scope = _scope(definer)
    if scope:
        pool = [e for e in pool if _within(e[0], scope)] or pool
    pool = [e for e in pool if _within(definer, e[0])] or pool
    return min(pool, key=lambda e: (e[1] != own, e[0].count("."), e[0], e[1]))


class Collector:
    """Turns imported modules into the JSON-ready model."""

    def __init__(self, torch, modules: dict[str, types.ModuleType], failed: dict[str, str]) -> None:
        self.torch = torch
        self.modules = modules
        # Modules that failed to import still appear as submodule names of their parent.
        self.children = sorted(set(modules) | set(failed))
        self.tables = returns.PyiTables(os.path.dirname(torch.__file__))
        self.attrs = {name: module_attributes(mod) for name, mod in modules.items()}
        self.homes: dict[int, tuple[str, str]] = {}
        self.objects: dict[int, object] = {}
        self.classes: dict[str, dict] = {}

    # -- classification -----------------------------------------------------------------
    def kind(self, module: str, name: str, value: object, in_all: bool) -> str:
        if isinstance(value, types.ModuleType):
            if value.__name__ == f"{module}.{name}" or f"{module}.{name}" in self.modules:
                return "sub"
            alias = in_all and value.__name__ in self.modules and value.__name__ != module
            return "mod" if alias else "ext"
        if _is_external(value):
            return "val" if in_all else "ext"
        if isinstance(value, type) or inspect.isroutine(value):
            return "obj"
        return "val"

    def compute_homes(self) -> None:
        exposures: dict[int, list[tuple[str, str]]] = {}
        for module, attrs in self.attrs.items():
            for name, value, in_all in attrs:
                if self.kind(module, name, value, in_all) == "obj":
                    exposures.setdefault(id(value), []).append((module, name))
                    self.objects[id(value)] = value
        for key, places in exposures.items():
            self.homes[key] = choose_home(self.objects[key], places)

    def qname(self, value: object) -> str | None:
        home = self.homes.get(id(value))
        return f"{home[0]}.{home[1]}" if home else None

    # -- return kinds -------------------------------------------------------------------
    def function_return(self, func: object, home: str) -> str:
        kind = _annotated_return(func)
        if kind is None:
            # C builtins (torch.randn, F.conv2d) carry no annotations: read torch's stubs.
            modules = (home,) if inspect.isfunction(func) else ("torch", "torch.nn.functional")
            kind = self.tables.function(getattr(func, "__name__", ""), modules) or returns.OTHER
        return returns.TENSOR if kind == returns.TENSOR else returns.OTHER

    def member_return(self, owner: type, cls: type, name: str, func: object) -> str:
        kind = _annotated_return(func)
        if kind is None:
            stub_class = "TensorBase" if issubclass(cls, self.torch.Tensor) else owner.__name__
            kind = self.tables.member(stub_class, name) or returns.OTHER
        if issubclass(cls, self.torch.Tensor):
            # In-place ops (add_, share_memory_, __iadd__) return self, whatever the stubs say.
            dunder = name.startswith("__")
            if (not dunder and name.endswith("_")) or (dunder and name[2:-2] in _INPLACE):
                kind = returns.SELF
        if issubclass(cls, self.torch.nn.Module) and name in ("__call__", "forward"):
            kind = returns.TENSOR
        return kind

    # -- classes ------------------------------------------------------------------------
    def class_record(self, cls: type) -> dict:
        if type(cls).__name__ == "tensortype":
            # Legacy types (torch.cuda.FloatTensor): calling one gives a Tensor.
            return {"b": "torch.Tensor"}
        if type(cls).__name__ == "VariableMeta":
            # torch.autograd.Variable: its C base (_LegacyVariableBase) makes calling it give a
            # Tensor, and every Tensor is an instance of it; old code wraps tensors in it
            # (`Variable(torch.Tensor(x)).cuda()`, lpips).
            return {"b": "torch.Tensor"}
        mro = cls.__mro__
        base = next((b for b in mro[1:] if id(b) in self.homes), None)
        record: dict = {}
        if base is not None:
            record["b"] = self.qname(base)
            stop = mro.index(base)
        else:
            builtin = next((b for b in mro[1:] if b is not object and _is_builtin(b)), None)
            if builtin is not None:
                record["bi"] = builtin.__name__
            stop = mro.index(builtin) if builtin is not None else len(mro)
        seen: set[str] = set()
        for owner in mro[:stop]:
            if owner is object:
                continue
            torchish = _within(_module_of(owner), "torch")
            for name, raw in sorted(vars(owner).items()):
                if name in seen or not _usable_name(name):
                    continue
                if not (name in PROTOCOL_DUNDERS or (torchish and not name.startswith("_"))):
                    continue
                seen.add(name)
                code, extra = self.member_code(owner, cls, name, raw)
                if code in _MAPPED:
                    record.setdefault(code, {})[name] = extra
                else:
                    record.setdefault(code, []).append(name)
        return {k: " ".join(v) if isinstance(v, list) else v for k, v in record.items()}

    def member_code(self, owner: type, cls: type, name: str, raw: object) -> tuple[str, object]:
        """Key of the class record a member goes in, and its value for dict keys."""
        if isinstance(raw, staticmethod):
            kind = self.member_return(owner, cls, name, raw.__func__)
            return "s" + (returns.OTHER if kind == returns.SELF else kind), None
        if isinstance(raw, classmethod):
            return "c" + self.member_return(owner, cls, name, raw.__func__), None
        if isinstance(raw, (property, functools.cached_property)):
            func = raw.fget if isinstance(raw, property) else raw.func
            return "p" + self.member_return(owner, cls, name, func), None
        if isinstance(raw, (types.GetSetDescriptorType, types.MemberDescriptorType)):
            return "p" + self.member_return(owner, cls, name, raw), None
        if inspect.isroutine(raw):
            return "m" + self.member_return(owner, cls, name, raw), None
        return self.value_code(raw)

    def value_code(self, value: object) -> tuple[str, object]:
        if isinstance(value, _LITERALS) and not isinstance(value, float) and len(repr(value)) <= 80:
            return "lit", value
        type_qname = self.qname(type(value))
        if type_qname is not None and not isinstance(value, type):
            return "ins", type_qname
        return "v", None

    # -- modules ------------------------------------------------------------------------
    def module_record(self, module: str) -> dict:
        rec: dict = {}

        def add(key: str, name: str) -> None:
            rec.setdefault(key, []).append(name)

        for name, value, in_all in self.attrs[module]:
            kind = self.kind(module, name, value, in_all)
            if kind == "obj":
                home_mod, home_name = self.homes[id(value)]
                at_home = (home_mod, home_name) == (module, name)
                scope = _scope(module)
                if not at_home and not (scope and _scope(home_mod) != scope):
                    if home_name == name:
                        rec.setdefault("imp", {}).setdefault(home_mod, []).append(name)
                    else:
                        rec.setdefault("ren", {})[name] = f"{home_mod}.{home_name}"
                elif isinstance(value, type):
                    add("cls", name)
                    # A copy into torch.cuda subclasses the original, so isinstance still holds.
                    record = self.class_record(value) if at_home else {"b": f"{home_mod}.{home_name}"}
                    self.classes[f"{module}.{name}"] = record
                else:
                    add("fn" + self.function_return(value, home_mod), name)
            elif kind == "val":
                code, extra = self.value_code(value)
                if code == "ins":
                    rec.setdefault("ins", {})[name] = extra
                else:
                    add("val", name)
            elif kind == "mod":
                rec.setdefault("mod", {})[name] = value.__name__
            else:
                add(kind, name)
        named = {n for n, _, _ in self.attrs[module]}
        prefix = module + "."
        for child in self.children:
            rest = child[len(prefix):]
            if child.startswith(prefix) and "." not in rest and rest not in named:
                add("sub", rest)
        if hasattr(self.modules[module], "__path__"):
            rec["pkg"] = 1
        return {k: _join(v) for k, v in rec.items()}

    def collect(self) -> dict:
        self.compute_homes()
        modules = {name: self.module_record(name) for name in self.modules}
        return {"format": FORMAT, "torch": self.torch.__version__, "modules": modules,
                "classes": self.classes}


_INPLACE = frozenset("i" + op for op in _OPS.split())
_MAPPED = ("lit", "ins")  # class record keys holding {name: value} rather than names


def _annotated_return(func: object) -> str | None:
    """Return kind from a Python function's annotations or its typing.overload variants."""
    target = inspect.unwrap(func) if inspect.isfunction(func) else func
    ann = getattr(target, "__annotations__", None)
    if isinstance(ann, dict) and "return" in ann:
        return returns.from_annotation(ann["return"])
    try:
        variants = typing.get_overloads(target)  # Python 3.11+; the generator runs there
    except Exception:  # pylint: disable=broad-except
        variants = []
    kinds = {_annotated_return(v) or returns.OTHER for v in variants}
    if not kinds:
        return None
    return kinds.pop() if len(kinds) == 1 else returns.OTHER


def _is_builtin(cls: type) -> bool:
    return getattr(builtins, cls.__name__, None) is cls


def _join(value):
    if isinstance(value, list):
        return " ".join(sorted(value))
    if isinstance(value, dict):
        return {k: _join(v) for k, v in value.items()}
    return value


def build() -> tuple[bytes, dict[str, str]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import torch  # pylint: disable=import-outside-toplevel

    modules, failed = import_all(find_module_names(os.path.dirname(torch.__file__)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated aliases warn when merely touched
        data = Collector(torch, modules, failed).collect()
    return dumps(data).encode("ascii"), failed


def dumps(data: dict) -> str:
    """Compact sorted JSON with one module or class per line, so diffs stay readable."""

    def compact(value: object) -> str:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)

    parts = []
    for key in sorted(data):
        value = data[key]
        if isinstance(value, dict) and key in ("modules", "classes"):
            rows = ",\n".join(f"{compact(k)}:{compact(value[k])}" for k in sorted(value))
            parts.append(f"{compact(key)}:{{\n{rows}\n}}")
        else:
            parts.append(f"{compact(key)}:{compact(value)}")
    return "{" + ",\n".join(parts) + "}\n"


def describe_difference(old: bytes, new: bytes) -> list[str]:
    try:
        before = json.loads(old)
    except ValueError:
        return ["committed file is not valid JSON"]
    after = json.loads(new)
    lines = []
    if before.get("torch") != after.get("torch"):
        lines.append(f"torch version: {before.get('torch')} -> {after.get('torch')}")
    for section in ("modules", "classes"):
        old_s, new_s = before.get(section, {}), after.get(section, {})
        added = sorted(set(new_s) - set(old_s))
        removed = sorted(set(old_s) - set(new_s))
        changed = sorted(k for k in set(old_s) & set(new_s) if old_s[k] != new_s[k])
        for label, keys in (("added", added), ("removed", removed), ("changed", changed)):
            if keys:
                more = f" (+{len(keys) - 5} more)" if len(keys) > 5 else ""
                lines.append(f"{section} {label}: {', '.join(keys[:5])}{more}")
    return lines or ["files differ (formatting only)"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m npu_lint.knowledge.torch_model.generate",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if the data file is out of date")
    parser.add_argument("--output", default=DATA_FILE,
                        help="file to write or check (default: the packaged data file)")
    args = parser.parse_args(argv)
    new, failed = build()
    if failed:
        print(f"{len(failed)} public torch modules failed to import (not modelled):", file=sys.stderr)
        for name, error in sorted(failed.items()):
            print(f"  {name}: {error}", file=sys.stderr)
    try:
        with open(args.output, "rb") as handle:
            old = handle.read()
    except FileNotFoundError:
        old = b""
    if args.check:
        if old == new:
            print(f"{args.output} is up to date")
            return 0
        print(f"{args.output} is out of date; run python -m npu_lint.knowledge.torch_model.generate")
        for line in describe_difference(old, new) if old else ["file is missing"]:
            print("  " + line)
        return 1
    if old != new:
        with open(args.output, "wb") as handle:
            handle.write(new)
    print(f"wrote {args.output} ({len(new)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
