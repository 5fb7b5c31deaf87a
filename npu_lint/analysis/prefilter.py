"""Which files can reach astroid at all: two cheap stages before the expensive one.

1. A substring scan of the text for the trigger words of the enabled rules
   (only when every word is long enough to be rare).
2. A walk of Python's own `ast` tree: identifier triggers must appear as a
   name, an attribute or an imported module ("=word": a keyword argument); string triggers inside a string
   that is not a docstring. `use_cuda = False` or a comment that says "cuda"
   no longer costs an astroid build, which is 16 times the parse.
"""
from __future__ import annotations

import ast

_SCOPES = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def words_in_tree(tree: ast.AST) -> tuple[set[str], str]:
    """(identifiers, all non-docstring string constants joined by NUL) of a module."""
    identifiers: set[str] = set()
    strings: list[str] = []
    docstrings: set[int] = set()
    stack = [tree]
    name, attribute, alias, import_from, constant = ast.Name, ast.Attribute, ast.alias, ast.ImportFrom, ast.Constant
    keyword = ast.keyword
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is name:
            identifiers.add(node.id)
        elif kind is attribute:
            identifiers.add(node.attr)
        elif kind is keyword and node.arg:
            identifiers.add("=" + node.arg)  # `device=` of a call: only "=device" triggers match it
        elif kind is constant:
            if type(node.value) is str and id(node) not in docstrings:
                strings.append(node.value)
            continue
        elif kind is alias:
            identifiers.update(node.name.split("."))
            if node.asname:
                identifiers.add(node.asname)
            continue
        elif kind is import_from:
            if node.module:
                identifiers.update(node.module.split("."))
        elif isinstance(node, _SCOPES) and node.body:
            first = node.body[0]
            if type(first) is ast.Expr and type(first.value) is constant:
                docstrings.add(id(first.value))
        stack.extend(ast.iter_child_nodes(node))
    return identifiers, "\x00".join(strings)


def words_could_fire(words: tuple[set[str], str], triggers: frozenset, string_triggers: frozenset[str]) -> bool:
    """Identifier triggers (a word, or a tuple of words that must all appear), and string
    triggers (a substring of some string literal; "^x": a string that starts with x), against
    the words of a tree collected by `words_in_tree`."""
    identifiers, strings = words
    for trigger in triggers:
        if isinstance(trigger, tuple):
            if all(word in identifiers for word in trigger):
                return True
        elif trigger in identifiers:
            return True
    if not string_triggers:
        return False
    strings = "\x00" + strings
    return any(("\x00" + t[1:] if t.startswith("^") else t) in strings for t in string_triggers)


def text_words(triggers: frozenset, string_triggers: frozenset[str]) -> set[str]:
    """The words of all triggers, for the substring scan of stage 1."""
    words = {(t[-1] if isinstance(t, tuple) else t).lstrip("=") for t in triggers}
    words.update(t.lstrip("^") for t in string_triggers)
    return words
