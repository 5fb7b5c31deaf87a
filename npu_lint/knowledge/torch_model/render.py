"""Python source of one torch stub module, rendered from the data (see ``data.py``).

Conventions that the inference engine relies on:
- functions and methods are rendered as ``def name(): pass``: their signatures are erased
  after building (see ``hook.py``) and what a call returns ("T" a Tensor instance, "S" self,
  "O" Uninferable) is handed to the hook in ``Stub.returns`` rather than written as a body,
  which keeps the big ``torch`` stub cheap to build; only ``__getitem__`` keeps a real
  ``(self, index)`` signature, because astroid requires it to infer ``obj[i]``;
- values are annotation-only (``name: object``), which astroid infers as Uninferable;
- every module and class defines ``__getattr__``, which makes pylint skip no-member;
- a stub never imports its own module name (astroid would then skip its cache and read the
  real file from disk), so names of the module itself are referenced directly.
"""

from __future__ import annotations

from typing import NamedTuple

from npu_lint.knowledge.torch_model import data

CATCH_ALL = "def __getattr__(name):\n    pass\n"
_DECORATOR = {"m": "", "p": "@property\n    ", "s": "@staticmethod\n    ", "c": "@classmethod\n    "}


class Stub(NamedTuple):
    source: str
    # (class name or "" for module level, function name) -> "T" | "S"; absent means "O"
    returns: dict[tuple[str, str], str]
    # class name -> (index of its `class` line in source.split("\n"), number of lines), so the
    # hook can build a class's body only when something asks for it
    classes: dict[str, tuple[int, int]] = {}
    # module-level functions, which the hook makes as nodes directly (no parse) at line
    # `functions_line` (1-based), where the source holds a comment in their place
    functions: tuple[str, ...] = ()
    functions_line: int = 0


def _split(qname: str) -> tuple[str, str]:
    module, _, name = qname.rpartition(".")
    return module, name


class _Refs:
    """Names under which a stub refers to classes defined in other stubs."""

    def __init__(self, module: str) -> None:
        self.module = module
        self.imports: dict[str, str] = {}

    def __call__(self, qname: str) -> str:
        home, name = _split(qname)
        if home == self.module:
            return name
        alias = "_r_" + qname.replace(".", "_")
        self.imports[alias] = f"from {home} import {name} as {alias}"
        return alias

    def lines(self) -> list[str]:
        return [self.imports[a] for a in sorted(self.imports)]


def _class_source(name: str, record: dict, ref: _Refs, returns: dict) -> list[str]:
    base = ref(record["b"]) if "b" in record else record.get("bi", "")
    out = [f"class {name}({base}):"]
    if "b" not in record:  # a modelled base already provides both
        out += ["    def __init__(): pass", "    def __getattr__(): pass"]
    for attr, value in sorted(record.get("lit", {}).items()):
        out.append(f"    {attr} = {value!r}")
    for attr, qname in sorted(record.get("ins", {}).items()):
        out.append(f"    {attr} = {ref(qname)}()")
    out.extend(f"    {attr}: object" for attr in data.names(record, "v"))
    for code in sorted(k for k in record if k[:1] in _DECORATOR and k[1:] in ("T", "S", "O")):
        for method in data.names(record, code):
            params = "self, index" if method == "__getitem__" else ""
            out.append(f"    {_DECORATOR[code[0]]}def {method}({params}): pass")
            if code[1] != "O":
                returns[(name, method)] = code[1]
    return out if len(out) > 1 else out + ["    pass"]


def _ordered_classes(module: str, names: list[str]) -> list[str]:
    """Classes of a module with every local base before its subclasses."""
    local = set(names)
    done: list[str] = []
    seen: set[str] = set()

    def visit(name: str) -> None:
        if name in seen:
            return
        seen.add(name)
        base = (data.class_record(f"{module}.{name}") or {}).get("b", "")
        home, base_name = _split(base)
        if home == module and base_name in local:
            visit(base_name)
        done.append(name)

    for name in sorted(names):
        visit(name)
    return done


def render(module: str) -> Stub | None:
    """The stub for a modelled module, or None if the data does not know it."""
    record = data.module_record(module)
    if record is None:
        return None
    ref = _Refs(module)
    returns: dict[tuple[str, str], str] = {}
    body: list[str] = [CATCH_ALL.rstrip()]
    for name in data.names(record, "val") + data.names(record, "ext"):
        body.append(f"{name}: object")
    spans: dict[str, tuple[int, int]] = {}
    for name in _ordered_classes(module, data.names(record, "cls")):
        lines = _class_source(name, data.class_record(f"{module}.{name}") or {}, ref, returns)
        spans[name] = (len(body), sum(line.count("\n") + 1 for line in lines))  # decorators: 2 lines
        body.extend(lines)
    functions_at = len(body)
    body.append("# module-level functions: made by the hook")
    functions: list[str] = []
    for kind in "TO":
        for name in data.names(record, "fn" + kind):
            functions.append(name)
            if kind == "T":
                returns[("", name)] = kind
    for name, qname in sorted(record.get("ins", {}).items()):
        body.append(f"{name} = {ref(qname)}()")
    for name, qname in sorted(record.get("ren", {}).items()):
        home, orig = _split(qname)
        body.append(f"{name} = {orig}" if home == module else f"from {home} import {orig} as {name}")
    imports = sorted(record.get("imp", {}).items())
    head = [f"from {home} import {', '.join(names.split())}" for home, names in imports]
    head.extend(f"import {target} as {name}" for name, target in sorted(record.get("mod", {}).items()))
    elements = head + ref.lines() + body
    first_line, line = [], 0  # an element may hold several lines (CATCH_ALL)
    for element in elements:
        first_line.append(line)
        line += element.count("\n") + 1
    offset = len(elements) - len(body)
    classes = {name: (first_line[offset + start], count) for name, (start, count) in spans.items()}
    return Stub("\n".join(elements) + "\n", returns, classes, tuple(functions), first_line[offset + functions_at] + 1)


def full_source(stub: Stub) -> str:
    """The stub as one Python source, functions written out (for reading and tests)."""
    lines = stub.source.split("\n")
    at = stub.functions_line - 1
    return "\n".join(lines[:at] + [f"def {name}(): pass" for name in stub.functions] + lines[at + 1:])
