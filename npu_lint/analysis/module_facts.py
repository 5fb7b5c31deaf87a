"""Name facts of a module that rules ask about for every attribute chain or call.

They are read off Python's ast in the engine's prefilter walk (which visits every node
anyway) and attached to the astroid module built from it; a module that did not come from
the engine (pylint hands over its own) gets them from one walk of its astroid tree.
"""
from __future__ import annotations


from astroid import nodes

from npu_lint.analysis.star_imports import StarImport
from npu_lint.core.records import record

_ATTRIBUTE = "_npu_module_facts"


@record(frozen=True)
class ModuleFacts:
    # Every local name an import statement binds, anywhere in the module: a name outside
    # it cannot be import-bound, whatever astroid's (costly) scope lookup would say.
    import_bound: frozenset[str]
    # name -> the root names of the calls plain assignments give it (`x = lib.Cls(...)`: "lib";
    # "" for a callee not rooted in a name).
    call_roots: dict[str, frozenset[str]]
    # The module's `from x import *` statements, in source order: with any, a name no import
    # of the module binds may still come from an import of the star-imported module.
    star_imports: tuple[StarImport, ...] = ()
    # The modules the module's absolute imports name (`import a.b`: "a.b"; `from a.b import c`:
    # "a.b"): whether it imports torch_npu, without a walk of its astroid tree per question.
    imported: frozenset[str] = frozenset()


def attach(module: nodes.Module, facts: ModuleFacts) -> None:
    setattr(module, _ATTRIBUTE, facts)


def facts_of(node: nodes.NodeNG) -> ModuleFacts:
    """The facts of the module `node` belongs to."""
    module = node.root()
    facts = getattr(module, _ATTRIBUTE, None)
    if facts is None:
        facts = _from_astroid(module)
        attach(module, facts)
    return facts


def _from_astroid(module: nodes.NodeNG) -> ModuleFacts:
    import_bound: set[str] = set()
    call_roots: dict[str, set[str]] = {}
    stars: list[StarImport] = []
    imported: set[str] = set()
    for node in module.nodes_of_class((nodes.Import, nodes.ImportFrom, nodes.Assign, nodes.AnnAssign)):
        if isinstance(node, (nodes.Import, nodes.ImportFrom)):
            import_bound.update(alias or name.split(".", 1)[0] for name, alias in node.names if name != "*")
            if isinstance(node, nodes.Import):
                imported.update(name for name, _alias in node.names)
            elif not node.level:
                imported.add(node.modname)
            if isinstance(node, nodes.ImportFrom) and any(name == "*" for name, _alias in node.names):
                stars.append(StarImport(node.level or 0, node.modname, node.lineno))
        elif isinstance(node.value, nodes.Call):
            root = node.value.func
            while isinstance(root, nodes.Attribute):
                root = root.expr
            root_name = root.name if isinstance(root, nodes.Name) else ""
            loaded = module_imported_by(node.value)
            for target in node.targets if isinstance(node, nodes.Assign) else (node.target,):
                if isinstance(target, nodes.AssignName):
                    call_roots.setdefault(target.name, set()).add(root_name)
                    if loaded:
                        import_bound.add(target.name)  # `torch = importlib.import_module("torch")`
    for statement in getattr(module, "body", ()):
        # `ch = torch` at the top level: the name copies an import (analysis/prefilter.py's module_aliases)
        if isinstance(statement, nodes.Assign) and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], nodes.AssignName) and isinstance(statement.value, nodes.Name) \
                and statement.value.name in import_bound:
            import_bound.add(statement.targets[0].name)
    return ModuleFacts(frozenset(import_bound), {k: frozenset(v) for k, v in call_roots.items()},
                       tuple(sorted(stars, key=lambda star: star.line)), frozenset(imported))


def module_imported_by(call: nodes.Call) -> str | None:
    """The module that `importlib.import_module("torch")` imports by a literal name (the astroid
    twin of analysis/prefilter.py's); else None. Whether `import_module` is importlib's is left to
    the caller that names it (names.py)."""
    func = call.func
    named = func.attrname if isinstance(func, nodes.Attribute) else func.name if isinstance(func, nodes.Name) else None
    if named != "import_module" or len(call.args) != 1 or call.keywords:
        return None
    argument = call.args[0]
    if isinstance(argument, nodes.Const) and isinstance(argument.value, str) and argument.value \
            and not argument.value.startswith("."):
        return argument.value
    return None
