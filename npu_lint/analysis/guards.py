"""Uses that code has already guarded: `hasattr(torch.cuda, "x") and torch.cuda.x`; and what a
test decides (`guarded_by`): the code that runs only when it comes out true.

A name the NPU lacks, read only after `hasattr(<module>, "<name>")` said it exists, is what
"remove it or guard it" asks for; the one change left is the module in the `hasattr` call.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from astroid import nodes

from npu_lint.analysis.flags import flag_reads
from npu_lint.analysis.names import bindings, class_of_method, is_method_self, qualified_name, statements_after

if TYPE_CHECKING:
    from npu_lint.analysis.context import ModuleContext


def guarded_by_hasattr(node: nodes.NodeNG, qname: str) -> bool:
    """Is `node` (naming `qname`) evaluated only after a `hasattr` that asks for it?"""
    child, parent = node, node.parent
    while parent is not None and not isinstance(parent, (nodes.FunctionDef, nodes.ClassDef, nodes.Module)):
        if isinstance(parent, nodes.BoolOp) and parent.op == "and":
            earlier = [value for value in parent.values if value is not child][:_index(parent.values, child)]
            if any(_asks_for(test, qname) for test in earlier):
                return True
        if isinstance(parent, (nodes.If, nodes.IfExp)) and child is not parent.test \
                and any(child is inner for inner in _bodies(parent)) and _asks_for(parent.test, qname):
            return True
        child, parent = parent, parent.parent
    return False


def _index(values, child) -> int:
    return next((i for i, value in enumerate(values) if value is child), 0)


def _bodies(node):
    return node.body if isinstance(node, nodes.If) else [node.body]


def _asks_for(test: nodes.NodeNG, qname: str) -> bool:
    """`hasattr(m, "x")` with `m.x` a prefix of qname, alone or in an `and` chain."""
    if isinstance(test, nodes.BoolOp) and test.op == "and":
        return any(_asks_for(value, qname) for value in test.values)
    if not (isinstance(test, nodes.Call) and isinstance(test.func, nodes.Name) and test.func.name == "hasattr"
            and len(test.args) == 2 and isinstance(test.args[1], nodes.Const)
            and isinstance(test.args[1].value, str)):
        return False
    owner = qualified_name(test.args[0])
    asked = f"{owner}.{test.args[1].value}" if owner else None
    return asked is not None and (qname == asked or qname.startswith(asked + "."))


def guarded_by(node: nodes.NodeNG, ctx: "ModuleContext", positive: bool = True, through_flags: bool = True,
               through_calls: bool = True) -> list:
    """What runs only when the test `node` is part of comes out true: the later operands of an
    `and` (of an `or` under `not`), the body of the `if`, `while` or conditional expression it
    decides (the `else`, and what follows an `if not ...: return`, under `not`); for a test stored
    in a flag (`self.use_flash = torch.cuda.is_available() and ...`), what the tests of the flag
    decide; for a test (or a read of its flag) handed whole to a parameter of the module's own
    function (`train(x, use_cuda=self.use_cuda)`, then `if use_cuda: x = x.cuda()` in `train`), what
    the tests of that parameter decide there. `positive` False: what runs when `node` comes out false."""
    expression = node.parent if isinstance(node.parent, nodes.Call) and node.parent.func is node else node
    guarded = []
    while True:
        parent = expression.parent
        if isinstance(parent, (nodes.Assign, nodes.AnnAssign)) and parent.value is expression and through_flags:
            for read in flag_reads(parent, ctx):
                guarded.extend(guarded_by(read, ctx, positive, through_flags=False, through_calls=through_calls))
            return guarded
        reads = _parameter_reads(expression, parent) \
            if through_calls and not guarded and isinstance(parent, (nodes.Call, nodes.Keyword)) else None
        if reads is not None:
            for read in reads:
                guarded.extend(guarded_by(read, ctx, positive, through_flags=False, through_calls=False))
            return guarded
        if isinstance(parent, nodes.UnaryOp) and parent.op == "not":
            positive = not positive
        elif isinstance(parent, nodes.BoolOp) and parent.op == ("and" if positive else "or"):
            guarded.extend(parent.values[parent.values.index(expression) + 1:])
        elif positive and _loop_count(parent, expression):
            # `for i in range(torch.cuda.device_count()):` runs its body only where there are devices,
            # and so does a comprehension over it (bitsandbytes' cuda_specs.py: `sorted(
            # torch.cuda.get_device_capability(torch.cuda.device(i)) for i in range(...))`)
            loop = parent.parent
            if isinstance(loop, nodes.Comprehension):
                built = loop.parent
                parts = [built.key, built.value] if isinstance(built, nodes.DictComp) else [built.elt]
                return guarded + list(loop.ifs) + parts
            return guarded + list(loop.body)
        elif isinstance(parent, (nodes.If, nodes.While, nodes.IfExp)) and parent.test is expression:
            if isinstance(parent, nodes.IfExp):
                return guarded + [parent.body if positive else parent.orelse]
            if positive:
                return guarded + list(parent.body)
            ends = parent.body and isinstance(parent.body[-1], (nodes.Return, nodes.Raise))
            return guarded + list(parent.orelse) + (list(statements_after(parent)) if ends else [])
        elif not isinstance(parent, nodes.Compare):
            return guarded
        expression = parent


def _loop_count(call, expression) -> bool:
    """Is `call` a `range(...)` that `expression` bounds and a `for` loop (or a comprehension)
    iterates over?"""
    return isinstance(call, nodes.Call) and isinstance(call.func, nodes.Name) and call.func.name == "range" \
        and bool(call.args) and call.args[-1 if len(call.args) < 3 else 1] is expression \
        and isinstance(call.parent, (nodes.For, nodes.Comprehension)) and call.parent.iter is call


def _parameter_reads(argument: nodes.NodeNG, holder: nodes.NodeNG) -> list[nodes.NodeNG] | None:
    """The loads, in the module's own function that a call hands `argument` to whole (positionally
    or by keyword; `holder` is the call or the keyword), of the parameter that receives it; None
    when the callee is no function of the module (`f(...)` of a top-level `def f`, `self.m(...)`
    of a method of the caller's class: `range(torch.cuda.device_count())` is read as before);
    [] when the call unpacks `*args` / `**kwargs`, or the function stores that parameter again
    (then a read need not see the argument)."""
    call = holder.parent if isinstance(holder, nodes.Keyword) else holder
    if not isinstance(call, nodes.Call) or call.func is argument:
        return None
    function, skip = _own_callee(call)
    if function is None:
        return None
    if any(isinstance(a, nodes.Starred) for a in call.args) or any(k.arg is None for k in call.keywords or ()):
        return []
    positional = [*function.args.posonlyargs, *(function.args.args or [])][skip:]
    if isinstance(holder, nodes.Keyword):
        names = [a.name for a in (*positional, *(function.args.kwonlyargs or []))]
        name = holder.arg if holder.arg in names else None
    else:
        index = next((i for i, a in enumerate(call.args) if a is argument), None)
        name = positional[index].name if index is not None and index < len(positional) else None
    if name is None:
        return []
    stores = [n for n in function.nodes_of_class(nodes.AssignName) if n.name == name and n.scope() is function]
    if len(stores) != 1:  # the parameter itself, and no later store
        return []
    return [n for n in function.nodes_of_class(nodes.Name) if n.name == name and n.scope() is function]


def _own_callee(call: nodes.Call) -> tuple[nodes.FunctionDef | None, int]:
    """The function of the module that `call` calls, and how many leading parameters the call does
    not hand (`self`): a top-level function called by its name, or a method called on `self` in a
    method of the same class; (None, 0) otherwise."""
    func = call.func
    if isinstance(func, nodes.Name):
        bound = bindings(func)
        if len(bound) == 1 and isinstance(bound[0], nodes.FunctionDef) and isinstance(bound[0].parent, nodes.Module) \
                and bound[0].decorators is None:
            return bound[0], 0
        return None, 0
    if isinstance(func, nodes.Attribute) and is_method_self(func.expr):
        klass = class_of_method(func)
        found = klass.locals.get(func.attrname, ()) if klass is not None else ()
        if len(found) == 1 and isinstance(found[0], nodes.FunctionDef) and found[0].decorators is None:
            return found[0], 1
    return None, 0
