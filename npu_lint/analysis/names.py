"""Qualified names from import statements alone (no inference).

`import torch as t; t.cuda.synchronize` -> "torch.cuda.synchronize". This is
the fast first step (what TorchFix does with LibCST): cheap, exact for names
bound by imports, silent for everything else.
"""
from __future__ import annotations

import re
from typing import Iterator, Optional

from astroid import nodes

from npu_lint.analysis.module_facts import facts_of, module_imported_by
from npu_lint.analysis.star_imports import star_binding


def imported_name(statement: nodes.Import | nodes.ImportFrom, local: str) -> str | None:
    """The dotted name that `local` is bound to by an import statement."""
    if isinstance(statement, nodes.Import):
        for name, alias in statement.names:
            if alias == local:
                return name
            if alias is None and name.split(".", 1)[0] == local:
                return local  # `import torch.cuda` binds `torch`
        return None
    if statement.level:  # relative imports are the user's own modules
        return None
    for name, alias in statement.names:
        if (alias or name) == local and name != "*":
            return f"{statement.modname}.{name}"
    return None


def qualified_name(node: nodes.NodeNG) -> str | None:
    """The dotted name of a Name or Attribute chain rooted in an import."""
    if isinstance(node, nodes.Attribute):
        base = qualified_name(node.expr) if not _self_name(node.expr) else _held_import(node)
        return f"{base}.{node.attrname}" if base and not _self_name(node.expr) else base
    if isinstance(node, nodes.Name):
        return _name_binding(node)
    return None


def _self_name(node: nodes.NodeNG) -> bool:
    return isinstance(node, nodes.Name) and node.name == "self"


def _held_import(attribute: nodes.Attribute) -> str | None:
    """What `self.<name>` stands for when its class (or a base of it) stores an import there once
    and nothing else: ParlAI 1.7's indexers keep `self.faiss = faiss` after a lazy `import faiss`,
    then call `self.faiss.index_cpu_to_all_gpus(...)`, as a module-level `faiss.` would. Else None."""
    value = held_value(attribute.expr, attribute.attrname)
    return _name_binding(value) if value is not None else None


def held_value(receiver: nodes.NodeNG, attribute: str) -> nodes.Name | None:
    """The import-bound name that `self.<attribute>` holds in the method `receiver` (`self`) is of:
    the one store of the attribute in its class and the bases astroid finds, `self.<attribute> =
    <name>` with `<name>` bound by an import of the module; else None."""
    if not (isinstance(receiver, nodes.Name) and receiver.name == "self") \
            or attribute not in _attributes_given_imports(receiver.root()):
        return None
    frame = receiver.frame()
    owner = frame.parent if isinstance(frame, nodes.FunctionDef) else None
    if not isinstance(owner, nodes.ClassDef):
        return None
    try:
        stores = owner.instance_attr(attribute)
    except Exception:  # astroid's AttributeInferenceError, or a base it cannot infer
        return None
    if len(stores) != 1:
        return None
    statement = stores[0].parent
    if isinstance(statement, nodes.Assign) and len(statement.targets) == 1 and statement.targets[0] is stores[0] \
            and isinstance(statement.value, nodes.Name):
        return statement.value
    return None


_HELD = "_npu_lint_attributes_given_imports"


def _attributes_given_imports(module: nodes.Module) -> frozenset[str]:
    """The attribute names of `self.<name> = <import-bound name>` stores in the module (computed
    once): only these are looked up on a class."""
    found = getattr(module, _HELD, None)
    if found is None:
        bound = facts_of(module).import_bound
        found = frozenset(
            target.attrname for target in module.nodes_of_class(nodes.AssignAttr)
            if bound and isinstance(target.expr, nodes.Name) and target.expr.name == "self"
            and isinstance(target.parent, nodes.Assign) and isinstance(target.parent.value, nodes.Name)
            and target.parent.value.name in bound) if bound else frozenset()
        setattr(module, _HELD, found)
    return found


_BINDING = "_npu_lint_binding"
_UNKNOWN = object()


def _name_binding(node: nodes.Name, depth: int = 0) -> str | None:
    """The import a name is bound to, asked of each node once: the checks ask about the same
    names again and again (55% of the calls over the real-code set were repeats)."""
    if depth:
        return _binding_of(node, depth)
    found = node.__dict__.get(_BINDING, _UNKNOWN)
    if found is _UNKNOWN:
        found = node.__dict__[_BINDING] = _binding_of(node, 0)
    return found


def _binding_of(node: nodes.Name, depth: int) -> str | None:
    facts = facts_of(node)
    starred = None
    if node.name not in facts.import_bound:
        if not facts.star_imports:
            return None  # no import anywhere binds it: astroid's scope lookup could not find one
        # Asked before the scope lookup: most names are no star-imported module's imports.
        starred = star_binding(node.root(), node.name, facts.star_imports)
        if starred is None:
            return None
    try:
        _scope, assignments = node.lookup(node.name)
    except Exception:  # astroid raises assorted errors on odd scopes
        return None
    # The engine's astroid finds no binding for a star-imported name, pylint's (which imports
    # the project) finds the star import: both get the answer of `star_imports`.
    stars = [a for a in assignments if _is_star_import(a)]
    assignments = [a for a in assignments if not _is_star_import(a)]
    if not assignments:
        if starred is None and facts.star_imports:
            starred = star_binding(node.root(), node.name, facts.star_imports)
        if starred is None and stars:
            # `import torch` then `from torch.distributed import *` (nanotron's distributed.py):
            # astroid lets the later star import shadow `torch`, though a library's star import
            # can only hand back the module the name already is
            assignments = [a for a in node.root().locals.get(node.name, ()) if not _is_star_import(a)]
            if not assignments:
                return None
        else:
            return starred
    bound = None
    for assignment in assignments:
        if _import_fallback(assignment):
            continue  # `except ImportError: torch = None`: used as a module, the name is the import
        copied = _module_alias_of(assignment)
        loaded = _module_loaded_into(assignment, depth)
        if loaded is not None:
            name = loaded  # `torch = importlib.import_module("torch")`: the name is that import
        elif copied is not None:
            # `ch = torch` at the top level (MadryLab's trak): the name is the import it copies
            name = _name_binding(copied, depth + 1) if depth < 3 else None
        elif isinstance(assignment, nodes.AssignName) and isinstance(assignment.parent, nodes.Arguments):
            name = _module_handed_to(assignment, depth)
        elif not isinstance(assignment, (nodes.Import, nodes.ImportFrom)):
            return None  # rebound by something else: leave it to inference
        else:
            name = imported_name(assignment, node.name)
        if name is None or (bound is not None and name != bound):
            return None
        bound = name
    return bound


def _module_handed_to(parameter: nodes.AssignName, depth: int) -> str | None:
    """The module every call of the module hands `parameter`, a parameter of a function or a
    private method that only the module calls (cornac 3.0.1's TIGER: `fit` imports torch
    lazily, then `self._ensure_device(torch)`, whose `torch.cuda.is_available()` is torch's);
    None when a call hands anything else, or the function may be called from elsewhere."""
    from npu_lint.analysis.call_arguments import arguments_for  # call_arguments reads bindings here

    if depth >= 3:
        return None
    given = arguments_for(parameter)
    if not given or not all(isinstance(argument, nodes.Name) for argument in given):
        return None
    names = {_name_binding(argument, depth + 1) for argument in given}
    return names.pop() if len(names) == 1 else None


def _module_alias_of(assignment: nodes.NodeNG) -> nodes.Name | None:
    """The name that `ch = torch`, a plain assignment at a module's top level, copies; else None."""
    statement = assignment.parent
    if isinstance(assignment, nodes.AssignName) and isinstance(statement, nodes.Assign) \
            and isinstance(statement.parent, nodes.Module) and len(statement.targets) == 1 \
            and statement.targets[0] is assignment and isinstance(statement.value, nodes.Name):
        return statement.value
    return None


def _module_loaded_into(assignment: nodes.NodeNG, depth: int) -> str | None:
    """The module that `torch = importlib.import_module("torch")` binds to the name it assigns
    (pyserini's resolve_device, which then tests `torch.cuda.is_available()`), when the callee
    is importlib's; else None."""
    statement = assignment.parent
    if not (isinstance(assignment, nodes.AssignName) and isinstance(statement, nodes.Assign)
            and len(statement.targets) == 1 and isinstance(statement.value, nodes.Call)):
        return None
    module = module_imported_by(statement.value)
    if module is None or depth >= 3:
        return None
    func = statement.value.func
    if isinstance(func, nodes.Attribute) and isinstance(func.expr, nodes.Name):
        callee = _name_binding(func.expr, depth + 1)
        callee = f"{callee}.{func.attrname}" if callee else None
    elif isinstance(func, nodes.Name):
        callee = _name_binding(func, depth + 1)
    else:
        callee = None
    return module if callee == "importlib.import_module" else None


def _import_fallback(assignment: nodes.NodeNG) -> bool:
    """`try: import torch` / `except ImportError: torch = None` (Liger-Kernel's multi-GPU tests), also
    `A = B = None` (torchao's tests, for imported classes) and `a, b = None, None` (flash-linear-attention's
    mamba_ssm imports): the None an exception handler binds when
    the import fails. Where the name is used (`torch.cuda.synchronize()`, `RowwiseParallel()`), it
    is the imported one: None has no attributes and is not called."""
    statement = assignment.parent
    if isinstance(statement, nodes.Tuple) and isinstance(statement.parent, nodes.Assign) \
            and isinstance(statement.parent.value, nodes.Tuple) \
            and all(isinstance(value, nodes.Const) and value.value is None for value in statement.parent.value.elts):
        statement = statement.parent  # `except ImportError: selective_scan_fn, mamba_inner_fn = None, None`
        return isinstance(assignment, nodes.AssignName) and (
            isinstance(statement.parent, nodes.ExceptHandler) or _other_branch_imports(statement, assignment.name))
    return (isinstance(assignment, nodes.AssignName) and isinstance(statement, nodes.Assign)
            and isinstance(statement.value, nodes.Const) and statement.value.value is None
            and (isinstance(statement.parent, nodes.ExceptHandler)
                 or _other_branch_imports(statement, assignment.name)))


def _other_branch_imports(statement: nodes.Assign, name: str) -> bool:
    """`if policy.use_cute_kernels: import cuda.bindings.driver as cuda` / `else: cuda = None`
    (fairchem's UMA Nitro): the None of the branch that skips the import, as an except's."""
    branch = statement.parent
    if not (isinstance(branch, nodes.If) and statement in branch.orelse):
        return False
    return any(isinstance(node, (nodes.Import, nodes.ImportFrom)) and imported_name(node, name) is not None
               for node in branch.body)


def sole_import(name: nodes.Name) -> nodes.Import | nodes.ImportFrom | None:
    """The import statement that alone binds `name` where it is read, the None an import's
    fallback binds aside (`if args.fp16: from torch.cuda import amp` / `else: amp = None`,
    simpletransformers' retrieval_utils.py, before `partial(embed, amp=amp)`): where the name is
    used, it is that import's. None where another statement binds it too."""
    found = [assignment for assignment in bindings(name) if not _import_fallback(assignment)]
    if len(found) != 1 or not isinstance(found[0], (nodes.Import, nodes.ImportFrom)):
        return None
    return found[0]


def _is_star_import(assignment: nodes.NodeNG) -> bool:
    return isinstance(assignment, nodes.ImportFrom) and any(name == "*" for name, _alias in assignment.names)


def assigned_values(name: nodes.Name) -> list[nodes.NodeNG]:
    """The values of the plain assignments (`x = ...`) that `name` may read."""
    try:
        _scope, assignments = name.lookup(name.name)
    except Exception:  # astroid raises assorted errors on odd scopes
        return []
    return [assignment.parent.value for assignment in assignments
            if isinstance(assignment, nodes.AssignName) and isinstance(assignment.parent, nodes.Assign)]


def bindings(name: nodes.Name) -> list[nodes.NodeNG]:
    """What binds `name` where it is read (astroid's lookup), or nothing where astroid cannot tell."""
    try:
        return list(name.lookup(name.name)[1])
    except Exception:  # astroid raises assorted errors on odd scopes
        return []


def values_stored_in_self(attribute: nodes.NodeNG) -> list[nodes.NodeNG] | None:
    """The values that the class of the method reading `self.<name>` stores in that attribute
    (`self.<name> = value` in any of its methods); None when `attribute` is no such read, the class
    stores nothing there, or a store is no plain assignment (`+=`, a tuple target)."""
    if not (isinstance(attribute, nodes.Attribute) and isinstance(attribute.expr, nodes.Name)
            and attribute.expr.name == "self"):
        return None
    method = attribute.frame()  # the method, also from a comprehension inside it
    klass = method.parent if isinstance(method, nodes.FunctionDef) else None
    if not isinstance(klass, nodes.ClassDef):
        return None
    stores = klass.instance_attrs.get(attribute.attrname, ())
    if not stores or not all(isinstance(store, nodes.AssignAttr) and isinstance(store.parent, nodes.Assign)
                             for store in stores):
        return None
    return [store.parent.value for store in stores]


def compared_operands(compare: nodes.Compare) -> list[nodes.NodeNG]:
    """Every operand of a comparison: `a`, `b` and `c` of `a < b <= c`."""
    return [compare.left, *(operand for _op, operand in compare.ops)]


def statements_after(statement: nodes.NodeNG) -> Iterator[nodes.NodeNG]:
    """The statements after `statement` in its block (what an `if ...: raise` leaves to run)."""
    sibling = statement.next_sibling()
    while sibling is not None:
        yield sibling
        sibling = sibling.next_sibling()


def outermost_attribute(node: nodes.NodeNG) -> nodes.NodeNG:
    """Climb `a.b.c` from any part to the whole chain."""
    while isinstance(node.parent, nodes.Attribute) and node.parent.expr is node:
        node = node.parent
    return node


ATTRIBUTE_NODES = (nodes.Attribute, nodes.AssignAttr, nodes.DelAttr)


def chain_root(node: nodes.NodeNG) -> Optional[nodes.Name]:
    """`a` of `a.b.c` (or of `a` itself), else None: the chain starts at a call, a subscript..."""
    while isinstance(node, ATTRIBUTE_NODES):
        node = node.expr
    return node if isinstance(node, nodes.Name) else None


def is_chain_top(node: nodes.NodeNG) -> bool:
    """True for the whole `a.b.c` (also as an assignment target), not for `a` or `a.b`."""
    return not (isinstance(node.parent, ATTRIBUTE_NODES) and node.parent.expr is node)


def chain_parts(top: nodes.NodeNG) -> list[tuple[nodes.NodeNG, str]]:
    """(node, qualified name) for `a.b.c`, `a.b`, `a`, resolving the root once.

    Empty when the root is not bound by an import.
    """
    parts = []
    node = top
    while isinstance(node, ATTRIBUTE_NODES):
        parts.append(node)
        node = node.expr
    if not isinstance(node, nodes.Name):
        return []
    qname = _name_binding(node)
    if qname is None:
        return []
    result = [(node, qname)]
    for attribute in reversed(parts):
        qname = f"{qname}.{attribute.attrname}"
        result.append((attribute, qname))
    result.reverse()
    return result


def name_trigger(qname: str):
    """The identifiers a use of `qname` must show: its last two segments (the last alone for
    `torch.x` and `Tensor.x`, reached as `torch.x` or `value.x`)."""
    parts = qname.split(".")
    if len(parts) >= 3 and parts[-2] != "Tensor":
        return (parts[-2], parts[-1])
    if len(parts) == 2 and parts[0] != "torch":  # triton.jit: both, `jit` alone is everywhere
        return (parts[0], parts[1])
    return parts[-1]


def single_value(name: nodes.Name) -> Optional[nodes.NodeNG]:
    """The value of the one plain assignment to a local name in its scope, else None."""
    try:
        _scope, assignments = name.lookup(name.name)
    except Exception:  # astroid raises assorted errors on odd scopes
        return None
    if len(assignments) != 1 or not isinstance(assignments[0], nodes.AssignName):
        return None
    statement = assignments[0].parent
    if isinstance(statement, nodes.Assign) and len(statement.targets) == 1 and statement.targets[0] is assignments[0]:
        return statement.value
    if isinstance(statement, nodes.AnnAssign) and statement.target is assignments[0]:
        return statement.value
    return None


def is_method_self(node: nodes.NodeNG) -> bool:
    """A Name that is the first parameter of the method it appears in (`self`, `cls`)."""
    if not isinstance(node, nodes.Name):
        return False
    method = node.scope()
    if not isinstance(method, nodes.FunctionDef) or not isinstance(method.parent, nodes.ClassDef):
        return False
    arguments = method.args.posonlyargs + method.args.args
    return bool(arguments) and arguments[0].name == node.name


def in_type_test(node: nodes.NodeNG) -> bool:
    """A class that is only tested for, not used: the class argument of `isinstance(x, C)` /
    `issubclass(k, C)`, the other side of `type(x) is C` / `type(x) == C` / `type(x) in (C, D)`,
    alone or in a tuple, also a tuple held by a local name that only such tests read
    (`options = (C, D)`, then `isinstance(x, options)`)."""
    if _tested_against(node):
        return True
    parent = node.parent
    if not isinstance(parent, (nodes.Tuple, nodes.List, nodes.Set)):
        return False
    return _tested_against(parent) or _held_for_type_tests(parent) or _grows_type_tests(parent)


def _tested_against(node: nodes.NodeNG) -> bool:
    parent = node.parent
    if isinstance(parent, nodes.Call):
        return len(parent.args) == 2 and parent.args[1] is node and isinstance(parent.func, nodes.Name) \
            and parent.func.name in ("isinstance", "issubclass")
    if isinstance(parent, nodes.Compare):
        operands = compared_operands(parent)
        ops = {op for op, _operand in parent.ops}
        return ops <= {"is", "is not", "==", "!=", "in", "not in"} and any(
            operand is not node and _is_type_call(operand) for operand in operands)
    return False


def _is_type_call(node: nodes.NodeNG) -> bool:
    return isinstance(node, nodes.Call) and isinstance(node.func, nodes.Name) and node.func.name == "type" \
        and len(node.args) == 1 and not node.keywords


def _held_for_type_tests(collection: nodes.NodeNG) -> bool:
    """`options = (C, D)` in a function whose every read of `options` is a type test (it may
    grow by `options += (E,)` or `options = options + (E,)` on the way: catalyst 22.4's
    `_is_ddp_wrapped`), also a module's private constant
    (`_STATEFUL = (nn.BatchNorm1d, nn.RNNBase)`) that its module only tests against or names in
    an f-string (the message of the error the test raises)."""
    statement = collection.parent
    if not (isinstance(statement, nodes.Assign) and statement.value is collection and len(statement.targets) == 1
            and isinstance(statement.targets[0], nodes.AssignName)):
        return False
    return _only_type_tests_read(statement.targets[0].name, statement)


def _grows_type_tests(collection: nodes.NodeNG) -> bool:
    """`(E,)` of `options = options + (E,)`, where `options` is held for type tests only."""
    grow = collection.parent
    statement = grow.parent
    if not (isinstance(grow, nodes.BinOp) and grow.op == "+" and grow.right is collection
            and isinstance(grow.left, nodes.Name) and isinstance(statement, nodes.Assign)
            and statement.value is grow and len(statement.targets) == 1
            and isinstance(statement.targets[0], nodes.AssignName)
            and statement.targets[0].name == grow.left.name):
        return False
    return _only_type_tests_read(grow.left.name, statement)


def _grown_in_place(target: nodes.AssignName) -> bool:
    """`options = options + (E,)`: the name grows by a tuple, as `options += (E,)` does."""
    statement = target.parent
    return isinstance(statement, nodes.Assign) and len(statement.targets) == 1 \
        and isinstance(statement.value, nodes.BinOp) and statement.value.op == "+" \
        and isinstance(statement.value.left, nodes.Name) and statement.value.left.name == target.name \
        and isinstance(statement.value.right, (nodes.Tuple, nodes.List))


def _only_type_tests_read(name: str, statement: nodes.Assign) -> bool:
    scope = statement.scope()
    if isinstance(scope, nodes.Module):
        if not name.startswith("_") or name.startswith("__"):
            return False  # a public module attribute may be imported and read anywhere
    elif not isinstance(scope, (nodes.FunctionDef, nodes.Lambda)):
        return False  # a class attribute may be read anywhere
    # One binding of the collection, and growing ones (`+=`, `name = name + (E,)`), whose read of
    # the name grows it and is no use.
    bound, grown = [], set()
    for target in scope.nodes_of_class(nodes.AssignName):
        if target.name != name or isinstance(target.parent, nodes.AugAssign):
            continue
        if _grown_in_place(target):
            grown.add(id(target.parent.value.left))
        else:
            bound.append(target)
    held = len(bound) == 1 and isinstance(bound[0].parent, nodes.Assign) \
        and isinstance(bound[0].parent.value, (nodes.Tuple, nodes.List, nodes.Set))
    reads = [n for n in scope.nodes_of_class(nodes.Name) if n.name == name and id(n) not in grown]
    return held and any(_tested_against(read) for read in reads) and all(
        _tested_against(read) or isinstance(read.parent, nodes.FormattedValue) for read in reads)


def names_without_running(node: nodes.NodeNG) -> bool:
    """A place that names a function or class without running it: a type test, the other side
    of a comparison (`fn is F.avg_pool3d`, `m.__class__ in (nn.RNN, nn.GRU)`), an `except`
    clause, a dict key or a subscript's index (`{nn.RNN: hook}`, `Union[nn.RNN, nn.GRU]`), an
    annotation, the key a registering decorator files its function under
    (`@meta_registry.register(nn.MaxPool1d)`, see `registration_key`). A call, a decorator, a base class or a value
    handed on (an argument, a dict value) may run it."""
    if in_type_test(node) or in_annotation(node):
        return True
    held = node.parent if isinstance(node.parent, (nodes.Tuple, nodes.List, nodes.Set)) else node
    parent = held.parent
    if registration_key(held):
        return True
    if isinstance(parent, nodes.Compare):
        return True
    if isinstance(parent, nodes.ExceptHandler):
        return held is parent.type
    if isinstance(parent, nodes.Subscript):
        return held is parent.slice
    if isinstance(parent, nodes.Dict):
        return any(held is key for key, _value in parent.items)
    return False


def registration_key(node: nodes.NodeNG) -> bool:
    """An argument of a registering decorator, `@registry.register(key)`,
    `@register_decomposition(key)`, `@implements(key)`, or of the same applied by hand,
    `registry.register(key)(fn)`: the function is what runs, filed under the key (torch.fx meta
    tables and leaf modules, profilers, `__torch_function__` overrides)."""
    call = node.parent
    if not isinstance(call, nodes.Call) or not any(node is argument for argument in call.args):
        return False
    name = last_name(call.func) or ""
    if not (name.startswith("register") or name == "implements"):
        return False
    applied = call.parent
    return isinstance(applied, nodes.Decorators) or (isinstance(applied, nodes.Call) and applied.func is call)


def in_annotation(node: nodes.NodeNG) -> bool:
    """Inside a type annotation (of a parameter, a return or a variable): it names a type and
    uses nothing, so `-> torch.profiler.profile` is not a use of the CUDA profiler. So is a type
    alias that only annotations name (see `_in_annotation_alias`)."""
    return _in_written_annotation(node) or _in_annotation_alias(node)


def _in_written_annotation(node: nodes.NodeNG) -> bool:
    child, parent = node, node.parent
    while parent is not None:
        if isinstance(parent, nodes.AnnAssign) and child is parent.annotation:
            return True
        if isinstance(parent, nodes.FunctionDef) and child is parent.returns:
            return True
        if isinstance(parent, nodes.Arguments) and (
                any(child is a for a in (*parent.annotations, *parent.posonlyargs_annotations,
                                         *parent.kwonlyargs_annotations))
                or child is parent.varargannotation or child is parent.kwargannotation):
            return True
        if parent.is_statement:
            return False
        child, parent = parent, parent.parent
    return False


# typing's forms that make a type from types; none of them is a value a call or a type test takes
_TYPE_FORMS = frozenset({"Union", "Optional", "Tuple", "List", "Dict", "Set", "FrozenSet", "Sequence",
                         "Mapping", "Iterable", "Iterator", "Callable", "Type"})


def _in_annotation_alias(node: nodes.NodeNG) -> bool:
    """Inside `IndexType = Union[str, slice, int, torch.LongTensor, torch.cuda.LongTensor, ...]`
    (mmdet3d 1.4's structures/point_data.py, mmpose 1.3's multilevel_pixel_data.py; `Events =
    Tuple[torch.cuda.Event, torch.cuda.Event]`, pytorch-pfn-extras' profiler), a module's or
    class's type alias that the module names in annotations only (`def __getitem__(self, item:
    IndexType)`), or nowhere: the alias is written for the reader and runs nothing. One that a
    type test or any other expression reads (`isinstance(item, MaskType)`) is a value."""
    statement = node.statement()
    if not (isinstance(statement, nodes.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], nodes.AssignName)
            and isinstance(statement.scope(), (nodes.Module, nodes.ClassDef))):
        return False
    value = statement.value
    if not (isinstance(value, nodes.Subscript) and last_name(value.value) in _TYPE_FORMS):
        return False
    child = node
    while child is not None and child is not value.slice:
        child = child.parent if child is not statement else None
    if child is None:
        return False
    alias = statement.targets[0].name
    return all(_in_written_annotation(use) for use in statement.root().nodes_of_class(nodes.Name)
               if use.name == alias)


def last_name(node: nodes.NodeNG) -> Optional[str]:
    """The last identifier of `a.b.c` or `c` (a call's callee, or an assignment target), else None."""
    if isinstance(node, (nodes.Attribute, nodes.AssignAttr)):
        return node.attrname
    if isinstance(node, (nodes.Name, nodes.AssignName)):
        return node.name
    return None


def keyword(call: nodes.Call, name: str) -> Optional[nodes.NodeNG]:
    """The value of a call's keyword argument `name`, else None."""
    for item in call.keywords or ():
        if item.arg == name:
            return item.value
    return None


_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


def identifier_words(identifier: str) -> tuple[str, ...]:
    """The words of an identifier or dotted name, lower case: `is_npu_available` -> is, npu,
    available; `NPUAccelerator` -> npu, accelerator; `torch_npu.npu` -> torch, npu, npu."""
    return tuple(word.lower() for word in _WORD.findall(identifier))


def exported_names(module: nodes.Module) -> frozenset[str]:
    """The strings of the module's literal `__all__` (`__all__ = [...]`, `__all__ += (...)`): names
    other modules import from it."""
    names = set()
    for statement in module.body:
        if isinstance(statement, nodes.Assign):
            targets = statement.targets
        elif isinstance(statement, nodes.AugAssign):
            targets = [statement.target]
        else:
            continue
        if any(isinstance(target, nodes.AssignName) and target.name == "__all__" for target in targets) \
                and isinstance(statement.value, (nodes.List, nodes.Tuple)):
            names.update(element.value for element in statement.value.elts
                         if isinstance(element, nodes.Const) and isinstance(element.value, str))
    return frozenset(names)


def class_of_method(node: nodes.NodeNG) -> nodes.ClassDef | None:
    """The class whose method `node` stands in (directly, not in a nested function), else None."""
    frame = node.frame()
    parent = frame.parent if isinstance(frame, nodes.FunctionDef) else None
    return parent if isinstance(parent, nodes.ClassDef) else None


def unpacked_into(values: nodes.Tuple, value: nodes.NodeNG) -> nodes.AssignName | None:
    """The name a tuple assignment stores `value` in: `_, heads, q_len, _, k_len, is_cuda =
    *q.shape, k.shape[-2], q.is_cuda` (lucidrains' Attend, in denoising-diffusion-pytorch and
    Coqui TTS's XTTS): values after a starred one line up with the targets from the end."""
    assign = values.parent
    if assign.value is not values or len(assign.targets) != 1 or not isinstance(assign.targets[0], nodes.Tuple):
        return None
    targets, elements = assign.targets[0].elts, values.elts
    if any(isinstance(target, nodes.Starred) for target in targets):
        return None
    index = next(i for i, element in enumerate(elements) if element is value)
    starred = [i for i, element in enumerate(elements) if isinstance(element, nodes.Starred)]
    if starred and index < starred[-1]:
        return None
    position = index - len(elements) if starred else index
    if (not starred and len(targets) != len(elements)) or -position > len(targets):
        return None
    target = targets[position]
    return target if isinstance(target, nodes.AssignName) else None
