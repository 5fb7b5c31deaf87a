"""From ATen overloads to the Python calls that reach them, and which of those fall back or fail.

- `variants: function` is `torch.X` (or `torch.linalg.X` etc. by `python_module`, with the
  `linalg_` prefix dropped; `nn` ops are `torch._C._nn.X`), `variants: method` is `Tensor.X`.
- A call reaches the overloads without out arguments, or with `out=` those with them. If every
  overload with a known NPU verdict falls back or fails, the call does; composite overloads are
  neutral (they are as good as their callees, which the yaml does not name). If some run on the
  NPU, a keyword that only the failing overloads take (`reduce=` of `scatter`) triggers it;
  without one the API is "ambiguous" (listed in the docs, not reported).
- `torch.nn.functional.X` follows the calls in torch/nn/functional.py, keeping literal argument
  conditions on the way (`if mode == "lanczos":`), and `nn` modules follow their `forward`.
"""
from __future__ import annotations

import ast
import dataclasses
from typing import Dict, FrozenSet, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

from npu_lint.core.python_ast import dotted_name
from npu_lint.generate.aten_ops import Overload
from npu_lint.generate.op_classes import CPU_FALLBACK, FAILS_ON_NPU, NO_KERNEL, RUNS_ON_NPU
from npu_lint.generate.source_calls import CallSite, call_sites, import_aliases, parameters
from npu_lint.generate.torch_sources import TorchSources

FUNCTIONAL = "torch.nn.functional"
SUBMODULE_PREFIXES = {"linalg": "linalg_", "fft": "fft_", "special": "special_", "sparse": "sparse_",
                      "nested": "nested_"}
MAX_DEPTH = 4


@dataclasses.dataclass(frozen=True)
class ApiPath:
    """One Python API that reaches overloads that fall back to the CPU or have no kernel."""
    name: str
    cls: str                      # cpu-fallback | no-kernel
    overloads: Tuple[str, ...]    # reached by a call without out=
    out: Tuple[str, ...] = ()     # reached by a call with out=
    when: Tuple[str, ...] = ()    # triggers of `overloads`, any one: "reduce", "mode='lanczos'@3"
    out_when: Tuple[str, ...] = ()  # triggers of `out` (a call with out=)
    via: str = ""                 # "forward" for modules, the F function or torch op in between

    @property
    def unconditional(self) -> bool:
        return bool(self.overloads) and not self.when


@dataclasses.dataclass(frozen=True)
class Ambiguous:
    """An API whose call falls back for some overloads only, with no argument that tells."""
    name: str
    failing: Tuple[str, ...]
    running: Tuple[str, ...]


def is_public(name: str) -> bool:
    return not any(part.startswith("_") for part in name.split("."))


def aten_api_names(overloads: Mapping[str, Overload], sources: TorchSources
                   ) -> Dict[str, List[Tuple[Overload, bool]]]:
    """Python name -> [(overload, called as a method)], for names that exist in the torch wheel."""
    names: Dict[str, List[Tuple[Overload, bool]]] = {}
    for overload in overloads.values():
        if overload.autogen_of is not None:
            parent = overloads[overload.autogen_of]
            if parent.base != overload.base or not overload.is_out:
                continue  # functional twins (`random` of `random_`) have no Python binding
        base = overload.base
        if "function" in overload.variants:
            module = overload.python_module
            if module is None:
                if base in sources.torch_functions:
                    names.setdefault(f"torch.{base}", []).append((overload, False))
            elif module == "nn":
                names.setdefault(f"torch._C._nn.{base}", []).append((overload, False))
            elif module in SUBMODULE_PREFIXES:
                prefix = SUBMODULE_PREFIXES[module]
                short = base[len(prefix):] if base.startswith(prefix) else base
                if short in sources.submodule_names.get(module, ()):
                    names.setdefault(f"torch.{module}.{short}", []).append((overload, False))
        if "method" in overload.variants and not overload.is_out and base in sources.tensor_methods:
            names.setdefault(f"torch.Tensor.{base}", []).append((overload, True))
    return names


def _group(entries: Sequence[Tuple[Overload, bool]], classes: Mapping[str, str]):
    """("always", failing) | ("when", failing, keyword) | ("ambiguous", failing, running) | None."""
    failing = [(o, m) for o, m in entries if classes[o.name] in FAILS_ON_NPU]
    running = [(o, m) for o, m in entries if classes[o.name] in RUNS_ON_NPU]
    if not failing:
        return None
    failing_names = tuple(sorted(o.name for o, _ in failing))
    if not running:
        return ("always", failing_names)
    common: Optional[Set[str]] = None
    keyword_only: Set[str] = set()
    for overload, method in failing:
        arguments = overload.python_arguments(method)
        names = {a.name for a in arguments}
        common = names if common is None else common & names
        keyword_only |= {a.name for a in arguments if a.keyword_only}
    taken_by_running = {a.name for o, m in running for a in o.python_arguments(m)}
    telling = sorted((common or set()) - taken_by_running, key=lambda n: (n not in keyword_only, n))
    if telling:
        return ("when", failing_names, telling[0])
    return ("ambiguous", failing_names, tuple(sorted(o.name for o, _ in running)))


def aten_paths(names: Mapping[str, List[Tuple[Overload, bool]]], classes: Mapping[str, str]
               ) -> Tuple[Dict[str, ApiPath], List[Ambiguous]]:
    paths: Dict[str, ApiPath] = {}
    ambiguous: List[Ambiguous] = []
    for name in sorted(names):
        entries = names[name]
        functional = _group([e for e in entries if not e[0].is_out], classes)
        out = _group([e for e in entries if e[0].is_out], classes)
        fields: Dict[str, tuple] = {"overloads": (), "out": (), "when": (), "out_when": ()}
        for group, key, when_key in ((functional, "overloads", "when"), (out, "out", "out_when")):
            if group is None:
                continue
            if group[0] == "ambiguous":
                ambiguous.append(Ambiguous(name + (" (out=)" if key == "out" else ""), group[1], group[2]))
                continue
            fields[key] = group[1]
            if group[0] == "when":
                fields[when_key] = (group[2],)
        if not fields["overloads"] and not fields["out"]:
            continue
        reached = fields["overloads"] + fields["out"]
        cls = NO_KERNEL if all(classes[o] == NO_KERNEL for o in reached) else CPU_FALLBACK
        paths[name] = ApiPath(name, cls, **fields)
    return paths, ambiguous


# -- torch.nn.functional ------------------------------------------------------------------------

def _function_table(tree: ast.Module) -> Tuple[Dict[str, ast.FunctionDef], Dict[str, List[str]]]:
    """Module-level defs (the last def of a name wins over its @overload stubs) and the names an
    assignment binds to other callables: `x = _add_docstr(torch.x, ...)`, `x = boolean_dispatch(
    if_true=a, if_false=b)`, `x = y`."""
    defs: Dict[str, ast.FunctionDef] = {}
    bound: Dict[str, List[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            defs[node.name] = node
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target, value = node.targets[0].id, node.value
            if isinstance(value, ast.Name):
                bound[target] = [value.id]
            elif isinstance(value, ast.Call):
                func = dotted_name(value.func)
                if func == "_add_docstr" and value.args:
                    inner = dotted_name(value.args[0])
                    if inner:
                        bound[target] = [inner]
                elif func == "boolean_dispatch":
                    targets = [dotted_name(k.value) for k in value.keywords if k.arg in ("if_true", "if_false")]
                    bound[target] = [t for t in targets if t]
    return defs, bound


def _normalize_target(target: str) -> str:
    if target.startswith("_VF."):
        return "torch." + target[4:]
    if target.startswith(FUNCTIONAL + "."):
        return "F:" + target[len(FUNCTIONAL) + 1:]
    return target


def _format_condition(parameter, value) -> str:
    text = f"{parameter.name}={value!r}"
    if parameter.position is not None:
        text += f"@{parameter.position}"
    if parameter.has_default and parameter.default == value:
        text += "|default"
    return text


class FunctionalResolver:
    """What each public `torch.nn.functional` function reaches, through its helpers."""

    def __init__(self, source: str, aten: Mapping[str, ApiPath]):
        tree = ast.parse(source)
        self.defs, self.bound = _function_table(tree)
        self.local = frozenset(self.defs) | frozenset(self.bound)
        self.aten = aten
        self.cache: Dict[str, List[ApiPath]] = {}

    def public_names(self) -> List[str]:
        return sorted(n for n in self.local if not n.startswith("_"))

    def resolve(self, name: str, depth: int = 0) -> List[ApiPath]:
        """Paths of `F.name`: unconditional ones, and ones under literal conditions of its own
        parameters (only for the function itself, not through helpers)."""
        if name in self.cache:
            return self.cache[name]
        self.cache[name] = []  # recursion guard
        found: List[ApiPath] = []
        if depth <= MAX_DEPTH:
            if name in self.bound:
                for target in self.bound[name]:
                    found.extend(self._through(_normalize_target(
                        target if "." in target or target not in self.local else "F:" + target), (), None, depth))
            elif name in self.defs:
                function = self.defs[name]
                params = parameters(function)
                for site in call_sites(function, self.local, {"_VF": "torch"}):
                    conditions = tuple(_format_condition(params[p], v) for p, v in site.conditions if p in params)
                    found.extend(self._through(_normalize_target(site.target), conditions, site, depth))
        result = _merge(f"{FUNCTIONAL}.{name}", found)
        self.cache[name] = result
        return result

    def _through(self, target: str, conditions: Tuple[str, ...], site: Optional[CallSite],
                 depth: int) -> List[ApiPath]:
        if target.startswith("F:"):
            inner = [p for p in self.resolve(target[2:], depth + 1) if p.unconditional]
            return [dataclasses.replace(p, when=conditions, via=p.via or f"{FUNCTIONAL}.{target[2:]}")
                    for p in inner]
        path = self.aten.get(target)
        if path is None:
            return []
        if path.unconditional:
            return [ApiPath("", path.cls, path.overloads, when=conditions, via=target)]
        # `torch.x(..., reduce=...)` inside F: reached when the site passes the keyword.
        if site is not None and path.overloads and set(path.when) & site.keywords:
            return [ApiPath("", path.cls, path.overloads, when=conditions, via=target)]
        return []


def _merge(name: str, paths: Iterable[ApiPath]) -> List[ApiPath]:
    """One path per set of conditions; an unconditional path makes conditional ones redundant."""
    by_when: Dict[Tuple[str, ...], ApiPath] = {}
    for path in paths:
        key = tuple(sorted(path.when))
        if key in by_when:
            old = by_when[key]
            overloads = tuple(sorted(set(old.overloads) | set(path.overloads)))
            cls = NO_KERNEL if old.cls == path.cls == NO_KERNEL else CPU_FALLBACK
            by_when[key] = dataclasses.replace(old, overloads=overloads, cls=cls)
        else:
            by_when[key] = ApiPath(name, path.cls, path.overloads, when=key, via=path.via)
    if () in by_when:
        return [by_when[()]]
    return [by_when[key] for key in sorted(by_when)]


def functional_paths(resolver: FunctionalResolver) -> Dict[str, ApiPath]:
    """`torch.nn.functional.X` -> one path; several conditional paths merge their triggers."""
    result = {}
    for name in resolver.public_names():
        paths = resolver.resolve(name)
        if not paths:
            continue
        if len(paths) == 1:
            result[paths[0].name] = paths[0]
            continue
        overloads = tuple(sorted({o for p in paths for o in p.overloads}))
        when = tuple(sorted({w for p in paths for w in p.when}))
        cls = NO_KERNEL if all(p.cls == NO_KERNEL for p in paths) else CPU_FALLBACK
        result[paths[0].name] = ApiPath(paths[0].name, cls, overloads, when=when, via=paths[0].via)
    return result


# -- nn modules -----------------------------------------------------------------------------------

def module_paths(sources: TorchSources, resolver: FunctionalResolver, aten: Mapping[str, ApiPath]
                 ) -> Dict[str, ApiPath]:
    """`torch.nn.X` whose `forward` (or a method it calls on self, or an inherited forward) calls
    an op that falls back, on any path: the inference fast path of TransformerEncoderLayer is one."""
    classes: Dict[str, Tuple[ast.ClassDef, Dict[str, str]]] = {}
    for source in sources.nn_modules.values():
        tree = ast.parse(source)
        aliases = import_aliases(tree)
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                classes[node.name] = (node, aliases)

    def method(class_name: str, name: str, depth: int = 0) -> Optional[Tuple[ast.FunctionDef, Dict[str, str], str]]:
        if class_name not in classes or depth > MAX_DEPTH:
            return None
        node, aliases = classes[class_name]
        for item in node.body:
            if isinstance(item, ast.FunctionDef) and item.name == name:
                return item, aliases, class_name
        for base in node.bases:
            base_name = dotted_name(base)
            if base_name:
                found = method(base_name.split(".")[-1], name, depth + 1)
                if found:
                    return found
        return None

    def reach(class_name: str, name: str, seen: Set[str], depth: int) -> List[ApiPath]:
        found_method = method(class_name, name)
        if found_method is None or name in seen or depth > MAX_DEPTH:
            return []
        function, aliases, _owner = found_method
        seen = seen | {name}
        found: List[ApiPath] = []
        for site in call_sites(function, frozenset(), aliases):
            target = _normalize_target(site.target)
            if target.startswith("self:"):
                found.extend(reach(class_name, target[5:], seen, depth + 1))
            elif target.startswith("F:"):
                found.extend(dataclasses.replace(p, via=f"{FUNCTIONAL}.{target[2:]}")
                             for p in resolver.resolve(target[2:]) if p.unconditional)
            elif target.startswith("torch.") and not target.startswith("torch.Tensor."):
                path = aten.get(target)
                if path is not None and path.unconditional:
                    found.append(dataclasses.replace(path, via=target))
        return found

    result = {}
    for class_name in sorted(sources.nn_public):
        paths = reach(class_name, "forward", set(), 0)
        if not paths:
            continue
        overloads = tuple(sorted({o for p in paths for o in p.overloads}))
        via = sorted({p.via for p in paths})
        cls = NO_KERNEL if all(p.cls == NO_KERNEL for p in paths) else CPU_FALLBACK
        result[f"torch.nn.{class_name}"] = ApiPath(f"torch.nn.{class_name}", cls, overloads,
                                                  via="forward: " + ", ".join(via))
    return result


def all_paths(overloads: Mapping[str, Overload], classes: Mapping[str, str], sources: TorchSources
              ) -> Tuple[Dict[str, ApiPath], List[Ambiguous]]:
    """Every public Python API that falls back or fails, and the ambiguous ones."""
    names = aten_api_names(overloads, sources)
    aten, ambiguous = aten_paths(names, classes)
    resolver = FunctionalResolver(sources.functional, aten)
    functional = functional_paths(resolver)
    modules = module_paths(sources, resolver, aten)
    merged = {name: path for name, path in aten.items() if is_public(name)}
    merged.update(functional)
    merged.update(modules)
    return dict(sorted(merged.items())), [a for a in ambiguous if is_public(a.name.split(" ")[0])]


def python_api_names(overloads: Mapping[str, Overload], sources: TorchSources) -> FrozenSet[str]:
    """Every public Python name this data knows (for the "not verified" rule)."""
    names = {n for n in aten_api_names(overloads, sources) if is_public(n)}
    resolver = FunctionalResolver(sources.functional, {})
    names.update(f"{FUNCTIONAL}.{n}" for n in resolver.public_names())
    names.update(f"torch.nn.{n}" for n in sources.nn_public)
    return frozenset(names)
