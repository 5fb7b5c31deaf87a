"""Edits that spell the device without naming it: the agnostic route, and `torch.amp.X(device_type)`.

The device is written inline from the accelerator (data/device_api.yaml), in the module's own name
for torch, so a fix never assumes or shadows a variable of the user's.
"""
from __future__ import annotations

import re

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.edits import name_tokens, one_line_text
from npu_lint.analysis.names import exported_names, in_annotation, in_type_test
from npu_lint.core.findings import Edit, Position
from npu_lint.knowledge.device_api import device_api, device_type_call, takes_device_type_first, type_reference

_OPEN_PAREN = re.compile(r"\s*\(")
_LINE_REST_EMPTY = re.compile(r"\s*(#.*)?$")
NPU_DEVICE_TYPE = '"npu"'


def torch_alias(ctx: ModuleContext) -> str | None:
    """The name a top-level `import torch [as t]` (or `import torch.x`) binds to torch."""
    if "torch_alias" not in ctx.scratch:
        found = None
        for stmt in ctx.module.body:
            if isinstance(stmt, nodes.Import):
                for name, alias in stmt.names:
                    if name == "torch" or (name.startswith("torch.") and alias is None):
                        found = alias if name == "torch" and alias else "torch"
                        break
            if found:
                break
        ctx.scratch["torch_alias"] = found
    return ctx.scratch["torch_alias"]


def expression(ctx: ModuleContext, which: str) -> str | None:
    """The agnostic route's `device`, `device_type` or `backend` text; None without a torch binding."""
    alias = torch_alias(ctx)
    return getattr(device_api(), which).format(torch=alias) if alias else None


def device_type_text(ctx: ModuleContext) -> str | None:
    """What `torch.amp.X(...)` gets as its device type on this route."""
    return expression(ctx, "device_type") if ctx.settings.strategy == "agnostic" else NPU_DEVICE_TYPE


def insert_first_argument(ctx: ModuleContext, call: nodes.Call, text: str) -> Edit | None:
    """Put `text` first in the call's argument list."""
    func_end = ctx.end(call.func)
    line = ctx.index.line(func_end.line)
    opening = _OPEN_PAREN.match(line, func_end.column)
    if not opening:
        return None
    where = Position(func_end.line, opening.end())
    if not (call.args or call.keywords):
        return Edit(where, where, text)
    # `autocast(` with its arguments on the next lines: a space there would trail the line
    separator = "," if _LINE_REST_EMPTY.match(line, opening.end()) else ", "
    return Edit(where, where, text + separator)


def called(node: nodes.NodeNG) -> nodes.Call | None:
    parent = node.parent
    return parent if isinstance(parent, nodes.Call) and parent.func is node else None


def _module_path_span(ctx: ModuleContext, stmt: nodes.ImportFrom, dotted: str) -> tuple[Position, Position] | None:
    words = re.split(r"(\.)", dotted)
    tokens = list(name_tokens(ctx, stmt))
    for i in range(len(tokens) - len(words) + 1):
        if [t[0] for t in tokens[i:i + len(words)]] == words:
            return tokens[i][1], tokens[i + len(words) - 1][2]
    return None


def amp_import_bundle(ctx: ModuleContext, stmt: nodes.ImportFrom, release: str) -> tuple[Edit, ...] | None:
    """`from torch.cuda.amp import X` -> `from torch.amp import X`, with the device type put first in
    every call of X in the module: all or nothing, since a half-moved import breaks the calls. A
    use as a type (`scaler: GradScaler`, `isinstance(s, GradScaler)`) needs nothing: torch.amp's
    class is the one the fixed calls make, and with no call at all the import still moves. Not
    for a name the module's `__all__` exports (funasr's utils/amp.py): the calls of the modules
    that import it keep CUDA's signature, `autocast(enabled=...)`, which torch.amp's does not take."""
    key = ("amp_bundle", stmt.lineno, stmt.col_offset)
    if key in ctx.scratch:
        return ctx.scratch[key]
    ctx.scratch[key] = result = _amp_import_bundle(ctx, stmt, release)
    return result


def _amp_import_bundle(ctx: ModuleContext, stmt: nodes.ImportFrom, release: str) -> tuple[Edit, ...] | None:
    prefix = "torch.cuda.amp"
    text = device_type_text(ctx)
    if stmt.modname != prefix or stmt.level or text is None:
        return None
    if not all(device_type_call(f"{prefix}.{name}", release) for name, _alias in stmt.names):
        return None
    span = _module_path_span(ctx, stmt, prefix)
    if span is None:
        return None
    edits = [Edit(span[0], span[1], "torch.amp")]
    bound = {alias or name for name, alias in stmt.names}
    if bound & exported_names(ctx.module):
        return None
    for node in ctx.nodes_of(nodes.Name):
        if node.name not in bound:
            continue
        try:
            _scope, assigned = node.lookup(node.name)
        except Exception:
            return None
        if stmt not in assigned:
            continue
        call = called(node)
        qname = f"{prefix}.{_imported(stmt, node.name)}"
        if call is None and len(assigned) == 1 and names_a_type(node) and type_reference(qname, release):
            continue  # `scaler: GradScaler`: torch.amp's class is the one the fixed calls make
        usable = call is not None and len(assigned) == 1 and takes_device_type_first(qname, call)
        edit = insert_first_argument(ctx, call, text) if usable else None
        if edit is None:
            return None  # used other than by calling it: leave the import to the NPU rename
        edits.append(edit)
    return tuple(edits)


_LITERAL = re.compile(r"^(?P<prefix>[rRuUfF]*)(?P<quote>'|\")(?P<body>[^'\"\\\\\n]*)(?P=quote)$")


def string_edit(ctx: ModuleContext, node: nodes.NodeNG, which: str) -> tuple[str, tuple[Edit, ...]] | None:
    """A device string made neutral: "cuda" becomes the expression itself; "cuda:0", f"cuda:{i}" and
    "cuda:%d" become f-strings that start with it. (what the message shows, the edits)"""
    text = expression(ctx, which)
    if text is None:
        return None
    found = one_line_text(ctx, node)
    if found is None:
        return None
    (start, literal), end = found, ctx.end(node)
    match = _LITERAL.match(literal)
    if not match or not re.match(r"^(cuda|nccl)\b", match["body"]):
        return None
    prefix, quote, body = match["prefix"], match["quote"], match["body"]
    word, rest = re.match(r"^(cuda|nccl)(.*)$", body).groups()
    if not rest:
        if "f" in prefix.lower():
            return None
        return text, (Edit(start, end, text),)
    if which == "backend":
        return None
    if "f" not in prefix.lower():
        rest = rest.replace("{", "{{").replace("}", "}}")
        prefix = prefix + "f"
    return text, (Edit(start, end, f"{prefix}{quote}{{{text}}}{rest}{quote}"),)


def _imported(stmt: nodes.ImportFrom, local: str) -> str:
    """The name a from-import imports under `local` (`autocast` for `import autocast as ac`)."""
    return next((name for name, alias in stmt.names if (alias or name) == local), local)


def names_a_type(node: nodes.NodeNG) -> bool:
    """Is `node` used as a class, not called: a type test (`isinstance(x, C)`), an annotation, a
    key of a dict display?"""
    if in_type_test(node) or in_annotation(node):
        return True
    parent = node.parent
    return isinstance(parent, nodes.Dict) and any(key is node for key, _value in parent.items)
