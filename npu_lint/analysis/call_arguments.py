"""What the module's own calls hand a parameter of one of its functions.

    def check_training_environment(device, model_type, dataset_path):    torch-rechub 0.9.0's
        if device == 'cuda':                                             run_hllm_movielens.py
    ...
    check_training_environment(device, model_type, dataset_path)       (in `main`)
    main(dataset_path, args.model_type, ..., args.device, ...)         (under `__main__`)

A parameter without a default holds whatever its callers give; where the function is only ever
called by its name in its own module, and no other module calls it (it is private, or its module
is a program's own: a script with a `__main__` guard, not a library), those calls are all the
callers there are, so what they hand over says what the parameter holds.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.entry_module import is_main_guard
from npu_lint.analysis.names import bindings


def arguments_for(parameter: nodes.AssignName) -> list[nodes.NodeNG] | None:
    """The argument every call of the module gives `parameter`, a parameter of one of its
    top-level functions that only it calls; None when the function is never called, is also read other than as a
    callee (handed on as a callback, exported), or a call gives no argument there or hands
    `*args` / `**kwargs` that may carry it."""
    arguments = parameter.parent
    function = arguments.parent if isinstance(arguments, nodes.Arguments) else None
    if isinstance(function, nodes.FunctionDef) and isinstance(function.parent, nodes.ClassDef):
        return _method_arguments_for(function, parameter)
    if not (isinstance(function, nodes.FunctionDef) and isinstance(function.parent, nodes.Module)):
        return None
    if not (function.name.startswith("_") or any(is_main_guard(stmt) for stmt in function.parent.body)):
        return None  # a library's function, which other modules may call with anything
    calls = (_called_by(name) for name in function.root().nodes_of_class(nodes.Name)
             if name.name == function.name and function in bindings(name))
    return _handed_at_every_call(calls, parameter.name, _position(arguments, parameter))


def _method_arguments_for(method: nodes.FunctionDef, parameter: nodes.AssignName) -> list[nodes.NodeNG] | None:
    """What every `self._name(...)` of the module hands `parameter` of the private method `_name`
    (sam2's Trainer: `__init__(..., accelerator: str = "cuda")` hands `accelerator` to
    `self._setup_device(accelerator)`, which tests `if accelerator == "cuda":`). A private method
    (one leading underscore, not a dunder), undecorated, read only as `self._name(...)` calls in
    the module; None when it is also read otherwise (handed on, called on another object) or a
    call gives no argument there."""
    name = method.name
    if not name.startswith("_") or name.startswith("__") or method.decorators is not None:
        return None
    positional = [*method.args.posonlyargs, *(method.args.args or [])]
    if not positional or positional[0].name != "self" or parameter is positional[0]:
        return None
    position = _position(method.args, parameter)
    position = position - 1 if position is not None else None  # `self` is not handed by the call
    calls = (_called_by(attribute) if isinstance(attribute.expr, nodes.Name) and attribute.expr.name == "self"
             else None for attribute in method.root().nodes_of_class(nodes.Attribute) if attribute.attrname == name)
    return _handed_at_every_call(calls, parameter.name, position)


def _called_by(reference: nodes.NodeNG) -> nodes.Call | None:
    """The call whose function `reference` is; None when it is read any other way."""
    call = reference.parent
    return call if isinstance(call, nodes.Call) and call.func is reference else None


def _handed_at_every_call(calls, name: str, position: int | None) -> list[nodes.NodeNG] | None:
    """What each call hands the parameter (`name`, or at `position`); None when a reference is no
    call (None among `calls`) or a call gives the parameter nothing."""
    given: list[nodes.NodeNG] = []
    for call in calls:
        argument = _argument_at(call, name, position) if call is not None else None
        if argument is None:
            return None
        given.append(argument)
    return given or None


def _position(arguments: nodes.Arguments, parameter: nodes.AssignName) -> int | None:
    positional = [*arguments.posonlyargs, *(arguments.args or [])]
    return positional.index(parameter) if parameter in positional else None


def _argument_at(call: nodes.Call, name: str, position: int | None) -> nodes.NodeNG | None:
    if any(isinstance(argument, nodes.Starred) for argument in call.args) \
            or any(keyword.arg is None for keyword in call.keywords or ()):
        return None
    if position is not None and position < len(call.args):
        return call.args[position]
    return next((keyword.value for keyword in call.keywords or () if keyword.arg == name), None)
