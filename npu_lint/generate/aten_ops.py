"""ATen overloads from torch's `native_functions.yaml` (read from the torch wheel, never imported).

One `Overload` per schema, with the `autogen` names expanded: an autogen'd overload has no schema
of its own; it is the functional op's `.out` (or functional) twin that torchgen generates.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, FrozenSet, List, Optional, Tuple

import yaml

NATIVE_FUNCTIONS = "torchgen/packaged/ATen/native/native_functions.yaml"


@dataclasses.dataclass(frozen=True)
class Argument:
    name: str
    keyword_only: bool
    mutable: bool  # `Tensor(a!)`: written to
    has_default: bool


@dataclasses.dataclass(frozen=True)
class Overload:
    name: str                      # "scatter.reduce", "digamma"
    arguments: Tuple[Argument, ...]
    dispatch_keys: FrozenSet[str]  # every key named under `dispatch:` (comma lists split)
    structured_delegate: Optional[str]
    variants: FrozenSet[str]       # "function", "method"
    python_module: Optional[str]   # nn, linalg, fft, special, sparse, nested
    autogen_of: Optional[str] = None  # the overload whose `autogen:` names this one

    @property
    def base(self) -> str:
        return self.name.split(".", 1)[0]

    @property
    def is_out(self) -> bool:
        """An out= variant: Python passes its written arguments as `out=`."""
        if self.autogen_of is not None:
            return self.name.rsplit(".", 1)[-1].endswith("out") and "." in self.name
        return any(arg.keyword_only and arg.mutable for arg in self.arguments)

    def python_arguments(self, method: bool) -> Tuple[Argument, ...]:
        """Arguments as Python spells them: `self` is `input` for functions, the receiver for
        methods; out arguments collapse into `out`."""
        result = []
        for index, arg in enumerate(self.arguments):
            if arg.keyword_only and arg.mutable:
                continue
            if index == 0 and arg.name == "self":
                if method:
                    continue
                arg = dataclasses.replace(arg, name="input")
            result.append(arg)
        return tuple(result)


class SchemaError(ValueError):
    pass


def split_top_level(text: str) -> List[str]:
    """Split at commas outside brackets and quotes."""
    parts, depth, quote, current = [], 0, "", []
    for char in text:
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    if "".join(current).strip():
        parts.append("".join(current))
    return [part.strip() for part in parts]


def parse_schema(func: str) -> Tuple[str, Tuple[Argument, ...]]:
    """("name.overload", arguments) of `name.overload(Type a, *, Type(a!) out) -> Ret`."""
    open_at = func.find("(")
    close_at = func.rfind(") ->")
    if open_at < 0 or close_at < open_at:
        raise SchemaError(f"not a schema: {func!r}")
    name = func[:open_at].strip()
    arguments, keyword_only = [], False
    for part in split_top_level(func[open_at + 1:close_at]):
        if part == "*":
            keyword_only = True
            continue
        declaration, _, default = part.partition("=")
        type_text, _, arg_name = declaration.strip().rpartition(" ")
        if not type_text or not arg_name:
            raise SchemaError(f"{name}: cannot read argument {part!r}")
        arguments.append(Argument(arg_name, keyword_only, "!" in type_text, bool(default.strip())))
    return name, tuple(arguments)


def _dispatch_keys(dispatch) -> FrozenSet[str]:
    keys = set()
    for key in (dispatch or {}):
        keys.update(part.strip() for part in str(key).split(",") if part.strip())
    return frozenset(keys)


def _variants(entry: dict) -> FrozenSet[str]:
    return frozenset(v.strip() for v in str(entry.get("variants", "function")).split(",") if v.strip())


@dataclasses.dataclass(frozen=True)
class NativeFunctions:
    overloads: Dict[str, Overload]
    schemas: int          # entries with a `func:` schema
    autogen_listed: int   # names under `autogen:`, a name listed twice counted twice


def read_native_functions(text: str) -> NativeFunctions:
    """Every overload of one `native_functions.yaml`, autogen names expanded, by name."""
    entries = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    overloads: Dict[str, Overload] = {}
    for entry in entries:
        name, arguments = parse_schema(entry["func"])
        overloads[name] = Overload(
            name=name, arguments=arguments, dispatch_keys=_dispatch_keys(entry.get("dispatch")),
            structured_delegate=entry.get("structured_delegate"), variants=_variants(entry),
            python_module=entry.get("python_module"))
    listed = 0
    for entry in entries:
        parent = parse_schema(entry["func"])[0]
        for generated in str(entry.get("autogen", "")).split(","):
            generated = generated.strip()
            if not generated:
                continue
            listed += 1
            if generated in overloads:
                continue  # a name listed twice (_foreach_lerp.*_out in 2.13) is one overload
            source = overloads[parent]
            overloads[generated] = Overload(
                name=generated, arguments=source.arguments, dispatch_keys=frozenset(),
                structured_delegate=None, variants=source.variants,
                python_module=source.python_module, autogen_of=parent)
    return NativeFunctions(overloads, len(entries), listed)
