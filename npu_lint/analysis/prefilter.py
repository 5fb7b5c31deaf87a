"""Which files can reach astroid at all: two cheap stages before the expensive one.

1. The identifier-like tokens of the raw text (comments and strings included, so a superset
   of what stage 2 sees) against the trigger words of the enabled rules, matched whole, and
   the string triggers as substrings of the text. A file that fails this is not even parsed:
   it names nothing any enabled rule looks for (a regex pass costs a fifth of `ast.parse`).
2. A walk of Python's own `ast` tree: identifier triggers must appear as a
   name, an attribute or an imported module ("=word": a keyword argument; "(word": the last name
   of a callee, `x.word(...)` or an imported `word(...)`); string triggers inside a string
   that is not a docstring. `use_cuda = False` or a comment that says "cuda"
   no longer costs an astroid build, which is 16 times the parse.
"""
from __future__ import annotations

import ast
import re
from typing import NamedTuple

from npu_lint.analysis.api_names import normalize_api
from npu_lint.analysis.module_facts import ModuleFacts
from npu_lint.analysis.star_imports import StarImport

_SCOPES = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
# Fields that never hold a node (names, flags, contexts): not worth a getattr on every node.
_SCALAR_FIELDS = frozenset({"ctx", "id", "attr", "name", "arg", "asname", "module", "level", "kind",
                            "type_comment", "is_async", "conversion", "simple", "op", "ops", "type_ignores"})
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


class TreeWords(NamedTuple):
    """What stage 2 reads off Python's ast of a file, once."""

    identifiers: set[str]  # names, attributes, imported modules and their parts, "=keyword"
    attributes: set[str]  # attributes and the parts of import statements: what ".word" matches
    called: set[str]  # the last names of callees (`f` of `a.f(...)` and `f(...)`)
    strings: str  # every string constant that is not a docstring, each after a NUL, and a NUL
    compared: set[str]  # string constants that are an operand of a comparison (`x.type == "cpu"`)
    facts: ModuleFacts
    tree: ast.AST
    lazy: dict  # what only some files need, computed once: see `qualified_names`


def words_in_tree(tree: ast.AST) -> TreeWords:
    """The identifiers, strings and name facts of a module, in one walk."""
    identifiers: set[str] = set()
    attributes: set[str] = set()
    called: set[str] = set()
    strings: list[str] = []
    compared: set[str] = set()
    docstrings: set[int] = set()
    import_bound: set[str] = set()
    call_roots: dict[str, set[str]] = {}
    stars: list[StarImport] = []
    imported: set[str] = set()
    stack = [tree]
    name, attribute, alias, import_from, constant = ast.Name, ast.Attribute, ast.alias, ast.ImportFrom, ast.Constant
    keyword, assign, ann_assign, call, node_class = ast.keyword, ast.Assign, ast.AnnAssign, ast.Call, ast.AST
    import_, compare = ast.Import, ast.Compare
    child_fields = _CHILD_FIELDS
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is name:
            identifiers.add(node.id)
            continue
        if kind is attribute:
            identifiers.add(node.attr)
            attributes.add(node.attr)
        elif kind is keyword and node.arg:
            identifiers.add("=" + node.arg)  # `device=` of a call: only "=device" triggers match it
        elif kind is constant:
            if type(node.value) is str and id(node) not in docstrings:
                strings.append(node.value)
            continue
        elif kind is alias:
            parts = node.name.split(".")
            identifiers.update(parts)
            attributes.update(parts)
            if node.asname:
                identifiers.add(node.asname)
                attributes.add(node.asname)
            if node.name != "*":
                import_bound.add(node.asname or node.name.split(".", 1)[0])
            continue
        elif kind is import_:
            imported.update(alias.name for alias in node.names)
        elif kind is import_from:
            if not node.level:
                imported.add(node.module)
            if node.module:
                parts = node.module.split(".")
                identifiers.update(parts)
                attributes.update(parts)
            if node.names[0].name == "*":  # `*` is always alone
                stars.append(StarImport(node.level, node.module or "", node.lineno))
        elif kind is call:
            func = node.func
            if type(func) is attribute:
                called.add(func.attr)
            elif type(func) is name:
                called.add(func.id)
        elif (kind is assign or kind is ann_assign) and type(node.value) is call:
            root = _call_root(node.value)
            module = module_imported_by(node.value)
            for target in node.targets if kind is assign else (node.target,):
                if type(target) is name:
                    call_roots.setdefault(target.id, set()).add(root)
                    if module:
                        import_bound.add(target.id)  # `torch = importlib.import_module("torch")`
        elif kind is compare:
            for operand in (node.left, *node.comparators):
                if type(operand) is constant and type(operand.value) is str:
                    compared.add(operand.value)
        elif kind in _SCOPES and node.body:
            first = node.body[0]
            if type(first) is ast.Expr and type(first.value) is constant:
                docstrings.add(id(first.value))
        fields = child_fields.get(kind)
        if fields is None:
            fields = child_fields[kind] = _child_fields(kind)
        for field in fields:
            value = getattr(node, field, None)
            if type(value) is list:
                stack.extend(value)  # a few lists hold a name or None (`global`, `{**d}`): no fields
            elif isinstance(value, node_class):
                stack.append(value)
    for target, source in module_aliases(tree):
        if source in import_bound:
            import_bound.add(target)
    facts = ModuleFacts(frozenset(import_bound), {k: frozenset(v) for k, v in call_roots.items()},
                        tuple(sorted(stars, key=lambda star: star.line)), frozenset(imported))
    strings.append("")
    return TreeWords(identifiers, attributes, called, "\x00" + "\x00".join(strings), compared, facts, tree, {})


def module_aliases(tree: ast.AST) -> list[tuple[str, str]]:
    """`ch = torch` at a module's top level (MadryLab's trak and ffcv): (the new name, the name it
    copies), in source order. `names.qualified_name` follows such a name where it copies an import."""
    return [(statement.targets[0].id, statement.value.id) for statement in getattr(tree, "body", ())
            if type(statement) is ast.Assign and len(statement.targets) == 1
            and type(statement.targets[0]) is ast.Name and type(statement.value) is ast.Name]


def module_imported_by(call: ast.Call) -> str | None:
    """The module that `importlib.import_module("torch")` (also `import_module("torch")`) imports
    by a literal name, bound to a name as an import statement would (pyserini's resolve_device:
    `torch = importlib.import_module('torch')`, then `torch.cuda.is_available()`); else None."""
    func = call.func
    named = func.attr if type(func) is ast.Attribute else func.id if type(func) is ast.Name else None
    if named != "import_module" or len(call.args) != 1 or call.keywords:
        return None
    argument = call.args[0]
    if type(argument) is ast.Constant and type(argument.value) is str and argument.value \
            and not argument.value.startswith("."):
        return argument.value
    return None


def _child_fields(kind: type) -> tuple[str, ...]:
    """The fields of a node type that may hold nodes; none for what is not a node."""
    if not issubclass(kind, ast.AST):
        return ()
    return tuple(f for f in kind._fields if f not in _SCALAR_FIELDS)


def _call_root(call: ast.Call) -> str:
    """`a` of `a.b.c(...)`; "" when the callee is not rooted in a name."""
    func = call.func
    while type(func) is ast.Attribute:
        func = func.value
    return func.id if type(func) is ast.Name else ""


_SPECIAL = ".('@"  # the first character of a trigger word that is not matched as a plain identifier
_COMPARED = "=='"  # how a trigger word for a compared string literal starts ("=device" is a keyword)


def _special(word: str) -> bool:
    return word[0] in _SPECIAL or word.startswith(_COMPARED)


class Triggers:
    """A check's triggers, sorted once so that each file costs set operations, not a loop over
    every word: identifier triggers (a word, or a tuple of words that must all appear; ".word":
    only as an attribute or in an import statement, never a bare name; "(word": that, and the
    last name of some callee; in a tuple only: "'text" a string literal that is exactly text,
    "@name" a name or attribute chain that the imports make this API name, "=='text" a string literal
    that is exactly text and an operand of a comparison) and string triggers (a substring of some
    string literal; "^x": a string that starts with x; "x$": one that ends with x)."""

    def __init__(self, triggers: frozenset, string_triggers: frozenset[str] = frozenset()):
        self.names = frozenset(t for t in triggers if isinstance(t, str) and t[0] not in ".(")
        self.attributes = frozenset(t[1:] for t in triggers if isinstance(t, str) and t[0] == ".")
        self.calls = frozenset(t[1:] for t in triggers if isinstance(t, str) and t[0] == "(")
        # A group's plain words first, as one subset test: most groups fail there, before any
        # special word (and the lazily computed `qualified_names`) is asked about.
        self.groups = tuple((frozenset(w for w in t if not _special(w)), tuple(w for w in t if _special(w)))
                            for t in triggers if isinstance(t, tuple))
        self.strings = tuple(piece for t in sorted(string_triggers) for piece in _string_pieces(t))

    def could_fire(self, words: TreeWords) -> bool:
        """Against the words of a tree collected by `words_in_tree`."""
        alone = self.__dict__.get("_alone")
        if alone is None:
            alone = self.__dict__["_alone"] = TriggerIndex((self,))
        return bool(alone.firing(words))


class TriggerIndex:
    """Many checks' `Triggers` at once, indexed by word: a file costs a few set intersections
    with the words that let some check in, not a test of every check's words and groups (one
    `could_fire` per check was 4% of `check`, most of it groups tested against every file)."""

    def __init__(self, triggers: tuple[Triggers, ...]):
        self.count = len(triggers)
        by_name: dict[str, list[int]] = {}
        by_attribute: dict[str, list[int]] = {}
        by_call: dict[str, list[int]] = {}
        # (index, plain words, special words), keyed by a word each needs: a plain word (the
        # longest: likely the rarest) among the identifiers, else an attribute word, else none
        groups_by_name: dict[str, list[tuple[int, frozenset, tuple]]] = {}
        groups_by_attribute: dict[str, list[tuple[int, frozenset, tuple]]] = {}
        self.unkeyed_groups: list[tuple[int, frozenset, tuple]] = []
        self.strings = tuple((index, t.strings) for index, t in enumerate(triggers) if t.strings)
        for index, t in enumerate(triggers):
            for word in t.names:
                by_name.setdefault(word, []).append(index)
            for word in t.attributes:
                by_attribute.setdefault(word, []).append(index)
            for word in t.calls:
                by_call.setdefault(word, []).append(index)
            for plain, special in t.groups:
                group = (index, plain, special)
                attribute = next((word[1:] for word in special if word[0] in ".("), None)
                if plain:
                    groups_by_name.setdefault(max(sorted(plain), key=len), []).append(group)
                elif attribute is not None:
                    groups_by_attribute.setdefault(attribute, []).append(group)
                else:
                    self.unkeyed_groups.append(group)
        self.by_name, self.by_attribute, self.by_call = by_name, by_attribute, by_call
        self.groups_by_name, self.groups_by_attribute = groups_by_name, groups_by_attribute
        self.name_keys, self.attribute_keys, self.call_keys = frozenset(by_name), frozenset(by_attribute), frozenset(by_call)
        self.group_name_keys, self.group_attribute_keys = frozenset(groups_by_name), frozenset(groups_by_attribute)

    def firing(self, words: TreeWords) -> list[int]:
        """The indexes, in order, of the triggers these words can fire."""
        identifiers, attributes = words.identifiers, words.attributes
        fired: set[int] = set()
        for word in self.name_keys.intersection(identifiers):
            fired.update(self.by_name[word])
        for word in self.attribute_keys.intersection(attributes):
            fired.update(self.by_attribute[word])
        for word in self.call_keys.intersection(words.called):
            if word in attributes:
                fired.update(self.by_call[word])
        groups = [group for word in self.group_name_keys.intersection(identifiers) for group in self.groups_by_name[word]]
        groups += [group for word in self.group_attribute_keys.intersection(attributes)
                   for group in self.groups_by_attribute[word]]
        for index, plain, special in groups + self.unkeyed_groups:
            if index not in fired and plain <= identifiers and all(_shows(word, words) for word in special):
                fired.add(index)
        strings = words.strings
        for index, pieces in self.strings:
            if index not in fired and any(piece in strings for piece in pieces):
                fired.add(index)
        return sorted(fired)


def _string_pieces(trigger: str) -> tuple[str, ...]:
    """What `TreeWords.strings` (each string after a NUL, and a NUL) holds when a string literal
    starts with ("^x") or ends with ("x$", also before a final newline, as a regex's `$`) x."""
    if trigger.startswith("^"):
        return ("\x00" + trigger[1:],)
    if trigger.endswith("$"):
        return (trigger[:-1] + "\x00", trigger[:-1] + "\n\x00")
    return (trigger,)


def _shows(word: str, words: TreeWords) -> bool:
    """Does a tree with these words show this trigger word (see Triggers)?"""
    kind = word[0]
    if kind == ".":
        return word[1:] in words.attributes
    if kind == "(":
        return word[1:] in words.called and word[1:] in words.attributes
    if kind == "'":
        return "\x00" + word[1:] + "\x00" in words.strings
    if word.startswith(_COMPARED):
        return word[len(_COMPARED):] in words.compared
    if kind == "@":
        names = qualified_names(words)
        return names is None or word[1:] in names
    return word in words.identifiers


def qualified_names(words: TreeWords) -> frozenset[str] | None:
    """The API names (normalized) of the module's names and attribute chains that absolute imports
    bind: what `names.qualified_name` can answer anywhere in it, and more (every import of a
    name counts, in any scope). None when a star import may bind names too."""
    if "qualified" not in words.lazy:
        words.lazy["qualified"] = _qualified_names(words.tree, words.facts.import_bound)
    return words.lazy["qualified"]


def _qualified_names(tree: ast.AST, import_bound: frozenset[str]) -> frozenset[str] | None:
    bindings: dict[str, set[str]] = {}
    chains: list[tuple[str, str]] = []  # (root name, "" or ".b" or ".b.c"): every prefix of a chain
    # `self.faiss = faiss` (an import-bound name kept on self), and the chains `self.faiss.x`: in
    # any class, a superset of what `names.qualified_name` answers for a class's one such store
    held: dict[str, set[str]] = {}
    self_chains: list[tuple[str, str]] = []
    stack = [tree]
    attribute, name, node_class = ast.Attribute, ast.Name, ast.AST
    child_fields = _CHILD_FIELDS
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is attribute:  # the whole chain at once, down to its root
            attributes, value = [node.attr], node.value
            while type(value) is attribute:
                attributes.append(value.attr)
                value = value.value
            if type(value) is not name:
                stack.append(value)
            elif value.id == "self" and len(attributes) > 1:
                suffix = ""
                self_chains.append((attributes[-1], suffix))
                for part in reversed(attributes[:-1]):
                    suffix = f"{suffix}.{part}"
                    self_chains.append((attributes[-1], suffix))
            elif value.id in import_bound:
                suffix = ""
                chains.append((value.id, suffix))
                for part in reversed(attributes):
                    suffix = f"{suffix}.{part}"
                    chains.append((value.id, suffix))
            continue
        if kind is name:
            if node.id in import_bound:
                chains.append((node.id, ""))
            continue
        if kind is ast.Import:
            for alias in node.names:
                local = alias.asname or alias.name.split(".", 1)[0]
                bindings.setdefault(local, set()).add(alias.name if alias.asname else local)
            continue
        if kind is ast.Assign and type(node.value) is name and node.value.id in import_bound:
            for target in node.targets:
                if type(target) is attribute and type(target.value) is name and target.value.id == "self":
                    held.setdefault(target.attr, set()).add(node.value.id)
        if kind is ast.Assign and type(node.value) is ast.Call:
            module = module_imported_by(node.value)
            if module:
                for target in node.targets:
                    if type(target) is name:
                        bindings.setdefault(target.id, set()).add(module)
        if kind is ast.ImportFrom:
            if any(alias.name == "*" for alias in node.names):
                return None
            if not node.level:  # relative imports are the project's own modules
                for alias in node.names:
                    bindings.setdefault(alias.asname or alias.name, set()).add(f"{node.module}.{alias.name}")
            continue
        fields = child_fields.get(kind)
        if fields is None:
            fields = child_fields[kind] = _child_fields(kind)
        for field in fields:
            value = getattr(node, field, None)
            if type(value) is list:
                stack.extend(value)  # a few lists hold a name or None (`global`, `{**d}`): no fields
            elif isinstance(value, node_class):
                stack.append(value)
    for target, source in module_aliases(tree):
        if source in bindings:
            bindings.setdefault(target, set()).update(bindings[source])
    chains += [(root, suffix) for attribute_name, suffix in self_chains for root in held.get(attribute_name, ())]
    return frozenset(normalize_api(bound + suffix) for root, suffix in chains for bound in bindings.get(root, ()))


# Trigger words are ASCII identifiers; a token that starts inside a non-ASCII one is only extra.
_TOKEN = re.compile(r"[A-Za-z_]\w*")
# Where stage 2 finds an attribute (".word", "(word"): after a dot (across spaces, line
# continuations and comments inside brackets), or among the words of an import statement (its
# names, `as` names, dotted parts, parenthesized lists with comments) or of `from MODULE`. Each
# pattern starts with a literal, so the regex engine jumps from one candidate to the next.
_AFTER_DOT = re.compile(r"\.(?:[\s\\]|#[^\n]*\n)*([A-Za-z_]\w*)")
_IMPORTED = re.compile(r"import\b((?:[ \t]|\\\r?\n)*\((?:[^)#]|#[^\n]*\n)*\)|(?:[^\n;#()\\]|\\\r?\n)*)")
_FROM_MODULE = re.compile(r"from[\s\\]+([\w.]+)")


class TextScan:
    """Stage 1: could a file with this text fire any of these triggers? Never a false "no"."""

    def __init__(self, triggers: frozenset, string_triggers: frozenset[str]):
        # word -> the triggers it may complete: a plain word or "=word" alone, a tuple with all its
        # words; each as (every word that must be a token of the text, words only an attribute or
        # import may show). Keyed by the longest such word, likely the rarest: keyed by a word
        # like `out` or `nn`, a trigger was tried on nearly every file.
        self._by_word: dict[str, list[tuple[frozenset[str], tuple[str, ...]]]] = {}
        self._always = False
        for trigger in triggers:
            words = trigger if isinstance(trigger, tuple) else (trigger,)
            plain = [w.lstrip("=") for w in words if w[0] not in ".('@" and not w.startswith(_COMPARED)]
            attributes = tuple(w[1:] for w in words if w[0] in ".(")
            # A string literal's text is written in the file too (as the string triggers below
            # assume: escapes and implicit concatenation hide it from both).
            for literal in (w[len(_COMPARED):] if w.startswith(_COMPARED) else w[1:] for w in words
                            if w[0] == "'" or w.startswith(_COMPARED)):
                plain += _TOKEN.findall(literal)
            needed = frozenset(plain) | frozenset(attributes)
            if not needed:
                self._always = True  # nothing the text scan can read: stage 2 decides
                continue
            self._by_word.setdefault(max(sorted(needed), key=len), []).append((needed, attributes))
        self._words = frozenset(self._by_word)
        # String triggers: "^x" needs a quote right before x, "x$" x right before a closing quote
        # (or an escaped or real newline, which `$` also allows before); others are plain substrings.
        # The "^x" ones are one regex whose every branch starts with a quote, so the regex engine
        # jumps from quote to quote; compiled on first use (not at start-up, not in a snapshot).
        self._substrings = tuple(sorted(t for t in string_triggers if not _anchored(t)))
        self._starts = tuple(sorted(t[1:] for t in string_triggers if t.startswith("^")))
        self._ends = tuple(sorted(t[:-1] for t in string_triggers if t.endswith("$") and not t.startswith("^")))
        self._starts_pattern: re.Pattern | None = None

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_starts_pattern": None}

    def could_fire(self, text: str) -> bool:
        if any(piece in text for piece in self._substrings) or self._anchored_in(text):
            return True
        if self._always:
            return True
        tokens = set(_TOKEN.findall(text))
        attributes = None
        for word in self._words.intersection(tokens):
            for needed, needs_attribute in self._by_word[word]:
                if not needed <= tokens:
                    continue
                if needs_attribute:
                    if attributes is None:
                        attributes = _attribute_words(text)
                    if not all(w in attributes for w in needs_attribute):
                        continue
                return True
        return False

    def _anchored_in(self, text: str) -> bool:
        if self._starts:
            if self._starts_pattern is None:
                self._starts_pattern = re.compile("['\"]" + _trie_pattern(self._starts))
            if self._starts_pattern.search(text):
                return True
        return any(end in text and re.search(re.escape(end) + r"(?:\\n|\n)?['\"]", text) for end in self._ends)


def _trie_pattern(words: tuple[str, ...]) -> str:
    """A regex matching any of `words`, with shared beginnings written once (`cud(?:a|nn)`): the
    regex engine tries one branch per character, not one per word (130 words: 1.8 times faster
    over the real-code set than their plain alternation)."""
    trie: dict = {}
    for word in words:
        node = trie
        for character in word:
            node = node.setdefault(character, {})
        node[""] = {}  # a word ends here

    def pattern(node: dict) -> str:
        branches = [re.escape(character) + pattern(child) for character, child in sorted(node.items()) if character]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return pattern(trie)


def _anchored(trigger: str) -> bool:
    return trigger.startswith("^") or trigger.endswith("$")


def _attribute_words(text: str) -> set[str]:
    """A superset of the words stage 2 counts as attributes (`TreeWords.attributes`)."""
    words = set(_AFTER_DOT.findall(text))
    for statement in _IMPORTED.findall(text):
        words.update(_TOKEN.findall(statement))
    for module in _FROM_MODULE.findall(text):
        words.update(module.split("."))
    return words
