"""cuda_op_list.csv: the custom operators a project registers in its C++/CUDA sources.

msFmkTransplt reads `.cpp`/`.cu` files line by line and only sees `m.def(` at the
start of a line inside `PYBIND11_MODULE(` / `TORCH_LIBRARY*(`. This scanner reads
the registration blocks as C++ tokens instead: comments removed, the module
variable taken from the macro, statements split outside brackets and strings,
so formatting (line breaks, other variable names, lambdas) does not matter.
Every operator found was written for CUDA (or the CPU) and needs an NPU kernel.
"""
from __future__ import annotations

import re
from npu_lint.core.records import record

EXTENSIONS = (".cpp", ".cc", ".cxx", ".c++", ".cu", ".cuh", ".h", ".hpp")
MAX_BYTES = 2 * 1024 * 1024

_MACRO = re.compile(r"\b(PYBIND11_MODULE|TORCH_LIBRARY_FRAGMENT|TORCH_LIBRARY_IMPL|TORCH_LIBRARY)\s*\(")
_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')
_SELECTIVE = re.compile(r"^(?:c10::)?TORCH_SELECTIVE_(?:SCHEMA|NAME)\s*\(")
_OPEN, _CLOSE = "([{", ")]}"


@record(frozen=True)
class CudaOp:
    file: str  # relative to the project, with "/"
    line: int
    api: str  # registered name, `::` written as `.` (msFmkTransplt's spelling)
    registration: str  # pybind11 def / class / method, TORCH_LIBRARY def / impl / class
    dispatch_key: str = ""  # TORCH_LIBRARY_IMPL's key (CUDA, CPU, Autograd...), when given


def _string_end(text: str, start: int) -> int:
    """Index just after the C/C++ string or char literal that opens at `start` (its line's end
    when it is not closed there)."""
    quote, j, n = text[start], start + 1, len(text)
    while j < n and text[j] != quote and text[j] != "\n":
        j += 2 if text[j] == "\\" else 1
    return j + 1


def _strip_comments(text: str) -> str:
    """Comments become spaces (newlines kept, so lines stay where they were); strings stay."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            j = _string_end(text, i)
            out.append(text[i:j])
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _outside_strings(text: str, start: int = 0):
    """(index, character, bracket depth after it) for each character outside string literals."""
    depth, i, n = 0, start, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            i = _string_end(text, i)
            continue
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
        yield i, c, depth
        i += 1


def _matching(text: str, start: int) -> int:
    """Index just after the bracket closing the one at `start` (len(text) when unbalanced)."""
    for i, c, depth in _outside_strings(text, start):
        if depth == 0 and c in _CLOSE:
            return i + 1
    return len(text)


def _split_top(text: str, separator: str) -> list[tuple[int, str]]:
    """(offset, part) of text split at `separator` outside brackets and strings."""
    parts, begin = [], 0
    for i, c, depth in _outside_strings(text):
        if c == separator and depth == 0:
            parts.append((begin, text[begin:i]))
            begin = i + 1
    parts.append((begin, text[begin:]))
    return parts


def _first_string(arguments: str) -> str | None:
    """The string a registration names: the first argument, a literal (adjacent literals joined)
    or one wrapped in TORCH_SELECTIVE_SCHEMA / TORCH_SELECTIVE_NAME."""
    first = _split_top(arguments, ",")[0][1].strip()
    selective = _SELECTIVE.match(first)
    if selective:
        first = first[selective.end():]
    literals = _STRING.findall(first)
    if not literals or not first.lstrip().startswith('"'):
        return None
    return "".join(literal[1:-1] for literal in literals)


def _call_arguments(statement: str, position: int) -> str:
    """The text between the parentheses of the call whose `(` is at `position`."""
    return statement[position + 1:_matching(statement, position) - 1]


def _op_name(name: str, namespace: str) -> str:
    """`ns::op.overload(Tensor x) -> Tensor` -> `ns.op`; a bare `op` gets the library's namespace."""
    head = name.split("(", 1)[0].strip()
    if "::" in head:
        space, _, op = head.rpartition("::")
        return f"{space.replace('::', '.')}.{op.split('.', 1)[0]}"
    return f"{namespace}.{head.split('.', 1)[0]}" if namespace else head.split(".", 1)[0]


def _chained(statement: str, start: int) -> list[tuple[str, str]]:
    """(method, name) of each `.def("name"` / `.def_static("name"` / `.impl` further along a chain."""
    found = []
    for match in re.finditer(r"\.\s*(def|def_static|impl)\s*\(", statement[start:]):
        position = start + match.end() - 1
        name = _first_string(_call_arguments(statement, position))
        if name:
            found.append((match.group(1), name))
    return found


def _pybind(statement: str, var: str) -> list[tuple[str, str]]:
    own = re.match(rf"{re.escape(var)}\s*\.\s*def\s*\(", statement)
    if own:
        name = _first_string(_call_arguments(statement, own.end() - 1))
        return [("pybind11 def", name.replace("::", "."))] if name else []
    cls = re.search(r"\b(?:py|pybind11)::class_\s*<", statement)
    if not cls:
        return []
    paren = statement.find("(", cls.end())
    if paren < 0:
        return []
    arguments = _split_top(_call_arguments(statement, paren), ",")
    if len(arguments) < 2:
        return []
    class_name = _first_string(arguments[1][1])
    if not class_name:
        return []
    found = [("pybind11 class", class_name)]
    found += [("pybind11 method", f"{class_name}.{name}") for _kind, name in _chained(statement, _matching(statement, paren))]
    return found


def _torch_library(statement: str, var: str, namespace: str) -> list[tuple[str, str]]:
    own = re.match(rf"{re.escape(var)}\s*\.\s*(def|impl)\s*\(", statement)
    found = []
    if own:
        name = _first_string(_call_arguments(statement, own.end() - 1))
        if name:
            found.append((f"TORCH_LIBRARY {own.group(1)}", _op_name(name, namespace)))
        return found
    cls = re.match(rf"{re.escape(var)}\s*\.\s*class_\s*<[^;]*?>\s*\(", statement)
    if cls:
        class_name = _first_string(_call_arguments(statement, cls.end() - 1))
        if class_name:
            qualified = f"{namespace}.{class_name}" if namespace else class_name
            found.append(("TORCH_LIBRARY class", qualified))
            end = _matching(statement, cls.end() - 1)
            found += [("TORCH_LIBRARY method", f"{qualified}.{name}") for _kind, name in _chained(statement, end)]
    return found


def scan_source(text: str, relative: str) -> list[CudaOp]:
    """The operators registered in one C++/CUDA source."""
    code = _strip_comments(text)
    ops: list[CudaOp] = []
    for macro in _MACRO.finditer(code):
        open_paren = macro.end() - 1
        close = _matching(code, open_paren)
        arguments = [part.strip() for _offset, part in _split_top(code[open_paren + 1:close - 1], ",")]
        brace = close
        while brace < len(code) and code[brace].isspace():
            brace += 1
        if brace >= len(code) or code[brace] != "{" or len(arguments) < 2:
            continue
        body_end = _matching(code, brace) - 1
        body = code[brace + 1:body_end]
        var = arguments[-1]
        kind = macro.group(1)
        namespace = "" if kind == "PYBIND11_MODULE" else arguments[0]
        key = arguments[1] if kind == "TORCH_LIBRARY_IMPL" and len(arguments) >= 3 else ""
        for offset, statement in _split_top(body, ";"):
            stripped = statement.strip()
            if not stripped:
                continue
            found = _pybind(stripped, var) if kind == "PYBIND11_MODULE" else _torch_library(stripped, var, namespace)
            first = brace + 1 + offset + (len(statement) - len(statement.lstrip()))
            line = code.count("\n", 0, first) + 1
            ops.extend(CudaOp(relative, line, api, registration, key) for registration, api in found)
    return ops


def is_cpp_source(relative: str) -> bool:
    return relative.lower().endswith(EXTENSIONS)


def scan_bytes(data: bytes, relative: str) -> list[CudaOp]:
    if len(data) > MAX_BYTES or b"PYBIND11_MODULE" not in data and b"TORCH_LIBRARY" not in data:
        return []
    return scan_source(data.decode("utf-8", errors="replace"), relative)


def unique_ops(ops: list[CudaOp]) -> list[CudaOp]:
    """One row per operator and file: a def and its impls name one operator."""
    seen, kept = set(), []
    for op in sorted(ops, key=lambda o: (o.file, o.line)):
        if (op.file, op.api) not in seen:
            seen.add((op.file, op.api))
            kept.append(op)
    return kept
