"""Text edits the checks attach to findings, computed from tokens.

astroid gives statement and expression ranges but not the position of each
name inside `from torch.cuda import amp`; the tokens of the statement's lines
do. Every helper returns None when the text is not what it expects, and the
finding then simply carries no edit.
"""
from __future__ import annotations

import io
import re
import tokenize
from typing import Iterator

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.core.findings import Edit, Position

_STRING_PREFIX = re.compile(r"^[rRbBuUfFtT]*('''|\"\"\"|'|\")")


def name_tokens(ctx: ModuleContext, stmt: nodes.NodeNG) -> Iterator[tuple[str, Position, Position]]:
    """NAME and OP tokens of a statement, with character positions."""
    first, last = stmt.lineno, stmt.end_lineno or stmt.lineno
    start = ctx.start(stmt)
    text = "".join(ctx.index.line(n) for n in range(first, last + 1))
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type not in (tokenize.NAME, tokenize.OP):
                continue
            begin = Position(first + token.start[0] - 1, token.start[1])
            if begin < start:
                continue
            yield token.string, begin, Position(first + token.end[0] - 1, token.end[1])
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return


def attribute_name_edit(ctx: ModuleContext, node: nodes.Attribute, new: str) -> Edit | None:
    """Replace the attribute name at the end of `expr.attr`."""
    end = ctx.end(node)
    start = Position(end.line, end.column - len(node.attrname))
    if start.column < 0 or ctx.index.line(end.line)[start.column:end.column] != node.attrname:
        return None
    return Edit(start, end, new)


def name_edit(ctx: ModuleContext, node: nodes.Name, new: str) -> Edit:
    return Edit(ctx.start(node), ctx.end(node), new)


def module_path_edit(
    ctx: ModuleContext, stmt: nodes.Import | nodes.ImportFrom, dotted: str, segment_index: int, new: str
) -> Edit | None:
    """In the dotted module path `dotted` written in stmt, replace one segment."""
    parts = dotted.split(".")
    tokens = [t for t in name_tokens(ctx, stmt) if t[0] != "."]
    for i in range(len(tokens) - len(parts) + 1):
        if [t[0] for t in tokens[i:i + len(parts)]] == parts:
            _, begin, end = tokens[i + segment_index]
            return Edit(begin, end, new)
    return None


def imported_name_position(
    ctx: ModuleContext, stmt: nodes.ImportFrom, name: str
) -> tuple[Position, Position] | None:
    """Where `name` stands after the `import` keyword of a from-import."""
    seen_import = False
    for text, begin, end in name_tokens(ctx, stmt):
        if text == "import":
            seen_import = True
        elif seen_import and text == name:
            return begin, end
    return None


def one_line_text(ctx: ModuleContext, node: nodes.NodeNG) -> tuple[Position, str] | None:
    """Where `node` starts and its source text, when it stands on one line; else None."""
    start, end = ctx.start(node), ctx.end(node)
    if start.line != end.line:
        return None
    return start, ctx.index.segment((start.line, start.column), (end.line, end.column))


def string_part_edit(ctx: ModuleContext, node: nodes.NodeNG, value: str, old: str, new: str) -> Edit | None:
    """Replace `old` where it is a whole comma-separated part of a plain one-line string literal
    (`"cpu:gloo,cuda:nccl"`); None for a literal whose text is not its value (escapes, f-strings,
    implicit concatenation)."""
    parts = value.split(",")
    if old not in (part.strip() for part in parts):
        return None
    found = one_line_text(ctx, node)
    if found is None:
        return None
    start, literal = found
    match = _STRING_PREFIX.match(literal)
    if not match or "f" in match.group(0).lower() or literal[match.end():len(literal) - len(match.group(1))] != value:
        return None
    offset = 0
    for part in parts:
        if part.strip() == old:
            begin = start.column + match.end() + offset + part.index(old)
            return Edit(Position(start.line, begin), Position(start.line, begin + len(old)), new)
        offset += len(part) + 1
    return None


def string_prefix_edit(ctx: ModuleContext, node: nodes.NodeNG, old: str, new: str) -> Edit | None:
    """Replace `old` at the start of a string literal's content."""
    start = ctx.start(node)
    line = ctx.index.line(start.line)
    match = _STRING_PREFIX.match(line[start.column:])
    if not match:
        return None
    content = start.column + match.end()
    if line[content:content + len(old)] != old:
        return None
    return Edit(Position(start.line, content), Position(start.line, content + len(old)), new)


def append_keyword_argument(ctx: ModuleContext, call: nodes.Call, keyword: str) -> Edit | None:
    """Pass `keyword` (`name=value`) last: right after the call's last argument, so a trailing
    comma or a comment before the closing parenthesis stays where it is."""
    arguments = [*(call.args or ()), *(call.keywords or ())]
    if len(arguments) == 1 and isinstance(arguments[0], nodes.GeneratorExp) \
            and ctx.end(arguments[0]) == ctx.end(call):
        return None  # `f(x for x in xs)` (the generator spans the call's parentheses): no room
    if not arguments:
        text = ctx.node_text(call)
        if not text.endswith(")"):
            return None
        end = ctx.end(call)
        position = Position(end.line, end.column - 1)
        return Edit(position, position, keyword)
    last = max(arguments, key=lambda node: (ctx.end(node).line, ctx.end(node).column))
    position = ctx.end(last)
    return Edit(position, position, ", " + keyword)
