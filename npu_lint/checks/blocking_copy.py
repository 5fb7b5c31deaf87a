"""check: blocking_host_to_device_copy -- `.to(device)` / `.cuda()` / `.npu()` of a batch inside a
loop, without `non_blocking=True`.

Only calls inside a loop are judged (that is where a training step copies each batch), not in
a loop over a Module's parts or over a collection of models (`for m in self._models`), only
on values that are Tensors or unknown (a Module's `.to()` moves parameters once), and only
when the call names a device, not a dtype or the CPU or another vendor's device (`.to("hpu")`
in neural-compressor's Gaudi code, which an NPU program never runs), nor the device the tensor
is already on (`x.detach().clone().to(x.device)`, torchmetrics' Metric caching its states: no copy leaves the
device, so nothing waits for the host; nor back to the device it had before the loop moved
it), nor a tensor a torch factory has just made on the host (`torch.full(shape,
0).to(mask.device)`, `torch.from_numpy(a).to(device)`): its memory is pageable, so
`non_blocking=True` gains nothing; making it on the device is what would help; nor the device of
the input the loop slices or walks while it sends that input to another device
(descript-audio-codec's `c.to(original_device)`): a result sent back where its input came from,
often the host, where the copy must block. A loop
over a Module's own tensors, or over the keys of a checkpoint `torch.load` read (rwkv), moves the
weights once as the model is set up, and so does a loop over parameters that moves the state an
optimizer or an EMA keeps beside each (`for p in group["params"]`), and so does a loop in a method
that restores saved state (`load_state_dict`, `__setstate__`). A
test's loop (pytorch-ignite's metric tests move random batches per iteration) is left alone, as
the other advice for training code leaves tests: how fast a test copies is not what it checks.
"""
from __future__ import annotations

from astroid import nodes

from npu_lint.analysis.context import ModuleContext
from npu_lint.analysis.cpu_device import is_cpu_device, made_on_cpu
from npu_lint.analysis.loops import enclosing_loop
from npu_lint.analysis.names import (
    assigned_values, bindings, identifier_words, is_method_self, keyword, qualified_name,
    single_value, values_stored_in_self
)
from npu_lint.analysis.npu_branches import OTHER_ACCELERATORS
from npu_lint.analysis.receivers import ReceiverKind, receiver_kind
from npu_lint.analysis.test_code import in_test_function
from npu_lint.checks.base import Check
from npu_lint.core.findings import Confidence

DEVICE_METHODS = frozenset({"cuda", "npu"})
# How code names a device: `device`, `self.device`, `args.gpu`, `local_rank`, `torch.device(...)`.
_DEVICE_WORDS = ("device", "dev", "gpu", "npu", "cuda", "rank")
# The methods that list a Module's own tensors, or its submodules (adapters' model_mixin.py moves
# each fusion layer it finds in `layer.modules()`): parts of the model, moved as it is set up.
_MODULE_PARTS = frozenset({"parameters", "named_parameters", "buffers", "named_buffers", "state_dict",
                           "modules", "named_modules", "children", "named_children"})

# The dictionaries a Module keeps its parts in, which those methods read.
_MODULE_DICTS = frozenset({"_parameters", "_buffers", "_modules"})

# Reading a checkpoint's tensors: `torch.load` and safetensors' loaders give a name -> tensor mapping.
_CHECKPOINT_LOADERS = frozenset({"torch.load", "safetensors.torch.load_file", "safetensors.torch.load"})
_MAPPING_VIEWS = frozenset({"keys", "items", "values"})
_COPIES = frozenset({"list", "sorted", "tuple", "enumerate", "reversed"})


def _destination(call: nodes.Call) -> nodes.NodeNG | None:
    """The device `.to(...)` names: its `device=` keyword, else its first argument."""
    return keyword(call, "device") or (call.args[0] if call.args else None)


def _names_a_device(call: nodes.Call, ctx: ModuleContext) -> bool:
    """Does `.to(...)` name a device other than the CPU (not a dtype, not another tensor)?"""
    device = _destination(call)
    if device is None or is_cpu_device(device):
        return False  # `eval_device = "cpu"` ... `.to(eval_device)`: a copy back to the host
    if isinstance(device, nodes.Const):
        if isinstance(device.value, bool):
            return False
        return isinstance(device.value, int) or (
            isinstance(device.value, str) and not device.value.startswith(("cpu", "meta"))
            and device.value.split(":")[0] not in OTHER_ACCELERATORS)  # "hpu": Gaudi's code, not the NPU's
    source = ctx.node_text(device)
    text = source.lower()
    if "cpu" in text or "dtype" in text:
        return False
    last = source.rsplit(".", 1)[-1]
    return _device_words(source if isinstance(device, (nodes.Call, nodes.Subscript)) else last)


def _device_words(source: str) -> bool:
    """Is a word of `source` one code names a device by? Whole words, not substrings: `input_type`
    (a dtype) holds "npu", `stddev` holds "dev"."""
    return any(word.startswith(_DEVICE_WORDS) for word in identifier_words(source))


def _to_own_device(call: nodes.Call) -> bool:
    """`x.detach().clone().to(x.device)`, `x[i].to(x.device)`: the device of the tensor the
    receiver is made from, on which the receiver already is. Also through a name the device was
    kept in before the tensor moved (pytorch-ood's `org_device = z.device`, `z = z.to(device)`, ...,
    `z = z.to(org_device)`): the tensor goes back where its caller keeps it, often the host."""
    device = _destination(call)
    if isinstance(device, nodes.Name):
        device = single_value(device)
    if not (isinstance(device, nodes.Attribute) and device.attrname == "device"):
        return False
    source = call.func.expr
    while True:
        if isinstance(source, nodes.Call) and isinstance(source.func, nodes.Attribute):
            source = source.func.expr
        elif isinstance(source, nodes.Subscript):
            source = source.value
        else:
            break
    return source.as_string() == device.expr.as_string()


def _built_here(receiver: nodes.NodeNG) -> bool:
    """A class called by its CamelCase name outside torch (botorch's map_saas.py builds
    `MaternKernel(nu=2.5, ...).to(dtype=dtype, device=device)` once per pass of its loop): a
    module or a model moved once, as it is made, not a batch; torch's own (`torch.Tensor(...)`)
    are left to inference. So is a local name given one such object (open-unmix's
    `target_unmix = OpenUnmix(...)`, then `target_unmix.to(device)` once per target model)."""
    if isinstance(receiver, nodes.Name):
        receiver = single_value(receiver)
    if not isinstance(receiver, nodes.Call):
        return False
    callee = receiver.func
    name = callee.attrname if isinstance(callee, nodes.Attribute) else getattr(callee, "name", "")
    if not (name[:1].isupper() and any(letter.islower() for letter in name)):
        return False
    return not (qualified_name(callee) or "").startswith("torch.")


def _over_module_parts(loop: nodes.NodeNG) -> bool:
    """`for param in learner.parameters(): param = param.to(device)` (deepchem's
    metalearning/torch_maml.py), `for name, t in model.state_dict().items()`, `for m in
    layer.modules()`, `for key, value in module._buffers.items()`: the loop walks a Module's own tensors or submodules, which move once as the
    model is set up, not a batch per step."""
    iterable = loop.iter if isinstance(loop, (nodes.For, nodes.AsyncFor)) else None
    while isinstance(iterable, nodes.Call) and isinstance(iterable.func, nodes.Attribute):
        if iterable.func.attrname in _MODULE_PARTS:
            return True
        iterable = iterable.func.expr
    # `for key, value in module._buffers.items()` (higher 0.2's patch.py, copying a module's
    # buffers into its functional twin): the Module's own dictionaries of its parts.
    return isinstance(iterable, nodes.Attribute) and iterable.attrname in _MODULE_DICTS


def _over_parameters(loop: nodes.NodeNG) -> bool:
    """`for p in group["params"]:` (schedulefree's optimizers moving their `z` state to
    `p.device`), `for i, p in enumerate(params)` (torch_ema's shadow parameters): the loop walks
    a model's parameters, and what it copies is state kept beside each of them, moved with the
    model, not a batch per step. The collection is a parameter group's "params" entry, or named
    for parameters by its last word."""
    if not isinstance(loop, (nodes.For, nodes.AsyncFor)):
        return False
    return any(_names_parameters(iterable) for _target, iterable in _loop_pairs(loop.target, loop.iter))


def _names_parameters(iterable: nodes.NodeNG) -> bool:
    if isinstance(iterable, nodes.Subscript):
        key = iterable.slice
        return isinstance(key, nodes.Const) and key.value == "params"
    name = iterable.attrname if isinstance(iterable, nodes.Attribute) else getattr(iterable, "name", "")
    words = identifier_words(name) if isinstance(iterable, (nodes.Attribute, nodes.Name)) else []
    return bool(words) and words[-1] in ("params", "parameters")


def _over_checkpoint(loop: nodes.NodeNG) -> bool:
    """`for x in keys: w[x] = w[x].to(device=DEVICE)` after `w = torch.load(path, map_location="cpu")`
    and `keys = list(w.keys())` (rwkv 0.8's model.py): the loop walks the keys, items or values of a
    checkpoint that `torch.load` read (also through a dict that renames its keys), moving each weight
    once as the model is set up, not a batch per step."""
    iterable = loop.iter if isinstance(loop, (nodes.For, nodes.AsyncFor)) else None
    return iterable is not None and _entries_of_checkpoint(iterable, set())


def _entries_of_checkpoint(node: nodes.NodeNG, seen: set[int]) -> bool:
    """`w.keys()`, `list(w.items())`, or a name assigned one, where `w` holds a loaded checkpoint."""
    if id(node) in seen:
        return False
    seen.add(id(node))
    if isinstance(node, nodes.Call) and isinstance(node.func, nodes.Attribute) and not node.args \
            and node.func.attrname in _MAPPING_VIEWS:
        return _loaded_checkpoint(node.func.expr, seen)
    if isinstance(node, nodes.Call) and isinstance(node.func, nodes.Name) and node.func.name in _COPIES \
            and len(node.args) == 1:
        return _entries_of_checkpoint(node.args[0], seen)
    return isinstance(node, nodes.Name) and any(_entries_of_checkpoint(value, seen) for value in assigned_values(node))


def _loaded_checkpoint(node: nodes.NodeNG, seen: set[int]) -> bool:
    """Does `node` hold what `torch.load` returned: the call, a name or `self.<name>` assigned it, or a
    dict comprehension over its items (`{k.replace(...): v for k, v in w.items()}`)?"""
    if id(node) in seen:
        return False
    seen.add(id(node))
    if isinstance(node, nodes.Call):
        return qualified_name(node.func) in _CHECKPOINT_LOADERS
    if isinstance(node, nodes.DictComp) and len(node.generators) == 1:
        return _entries_of_checkpoint(node.generators[0].iter, seen)
    if isinstance(node, nodes.Name):
        return any(_loaded_checkpoint(value, seen) for value in assigned_values(node))
    return isinstance(node, nodes.Attribute) and any(
        _loaded_checkpoint(value, seen) for value in values_stored_in_self(node) or ())




def _over_models(loop: nodes.NodeNG, receiver: nodes.NodeNG) -> bool:
    """`for m in self._models: m.to(device)` (ART's espresso estimator, each model of a loaded
    ensemble), `for module, shapes in zip(modules, shapes): ... module.weight.data.to(device)`
    (ART's interval certifier, copying each layer's weights as it converts the model): the value
    moved is the loop's model or a part of it, which moves once, as the models are set up. The
    collection must be named for models or modules by its last word (`models`, `sub_modules`):
    `model_inputs` is a list of batches."""
    if not isinstance(loop, (nodes.For, nodes.AsyncFor)):
        return False
    root = receiver
    while isinstance(root, (nodes.Attribute, nodes.Subscript)):
        root = root.expr if isinstance(root, nodes.Attribute) else root.value
    if not isinstance(root, nodes.Name):
        return False
    return any(target.name == root.name and _named_for_models(iterable)
               for target, iterable in _loop_pairs(loop.target, loop.iter))


def _loop_pairs(target: nodes.NodeNG, iterable: nodes.NodeNG):
    """(loop variable, the collection it walks): `for m in models`, and through `enumerate(models)`
    and `zip(models, shapes)` with a tuple of names."""
    if isinstance(target, nodes.AssignName):
        yield target, iterable
        return
    if not (isinstance(target, nodes.Tuple) and isinstance(iterable, nodes.Call)
            and isinstance(iterable.func, nodes.Name) and not iterable.keywords):
        return
    names, args = target.elts, iterable.args
    if iterable.func.name == "enumerate" and len(names) == 2 and len(args) == 1:
        yield from _loop_pairs(names[1], args[0])
    elif iterable.func.name == "zip" and len(names) == len(args):
        for name, arg in zip(names, args):
            yield from _loop_pairs(name, arg)


def _named_for_models(iterable: nodes.NodeNG) -> bool:
    if isinstance(iterable, nodes.Attribute):
        words = identifier_words(iterable.attrname)
    elif isinstance(iterable, nodes.Name):
        words = identifier_words(iterable.name)
    else:
        return False
    return bool(words) and words[-1] in ("models", "modules")


def _fresh_host_tensor(receiver: nodes.NodeNG, ctx: ModuleContext) -> bool:
    """A tensor a torch factory has just made on the host, so in pageable memory (adapters'
    `torch.full(ones_shape, prefix_value, dtype=mask.dtype).to(mask.device)`, a tensor of numpy's):
    `non_blocking=True` gains nothing there. Not one made pinned (`pin_memory=True`)."""
    if not made_on_cpu(receiver, ctx.text):
        return False
    made = single_value(receiver) if isinstance(receiver, nodes.Name) else receiver
    return made is not None and "pin_memory" not in ctx.node_text(made)


def _input_device(device: nodes.NodeNG | None, loop: nodes.NodeNG) -> bool:
    """`audio.device` of the tensor the loop works through and never rebinds (torchcrepe's
    `result.to(audio.device)`), or a name that saved it before the loop (descript-audio-codec's
    `original_device = audio_signal.device`): where the loop's data came from."""
    if isinstance(device, nodes.Name):
        saved = single_value(device)
        return saved is not None and not loop.parent_of(saved) and _input_device(saved, loop)
    if not (isinstance(device, nodes.Attribute) and device.attrname == "device"
            and isinstance(device.expr, nodes.Name)) or is_method_self(device.expr):
        return False
    found = bindings(device.expr)
    return bool(found) and not any(loop.parent_of(binding) for binding in found) \
        and _works_through(device.expr.name, loop)


def _iterable_call(loop: nodes.NodeNG) -> nodes.Call | None:
    """The call that makes what the loop walks: `for frames in preprocess(audio, ...)`, also through
    a name assigned it once (`generator = preprocess(...)`, then `for frames in generator`)."""
    iterable = loop.iter if isinstance(loop, (nodes.For, nodes.AsyncFor)) else None
    if isinstance(iterable, nodes.Name):
        iterable = single_value(iterable)
    return iterable if isinstance(iterable, nodes.Call) else None


def _works_through(name: str, loop: nodes.NodeNG) -> bool:
    """Does the loop walk `name`'s data: slice it (`audio_signal[..., i : i + n]`), or iterate over
    what a call makes from it (`for frames in preprocess(audio, ...)`)?"""
    if any(isinstance(part.value, nodes.Name) and part.value.name == name
           for part in loop.nodes_of_class(nodes.Subscript)):
        return True
    made = _iterable_call(loop)
    return made is not None and any(isinstance(arg, nodes.Name) and arg.name == name for arg in made.args)


def _sends_elsewhere(call: nodes.Call, loop: nodes.NodeNG, ctx: ModuleContext) -> bool:
    """Does the loop also send its data to a device named otherwise: another copy in its body
    (`x.to(self.device)`), or a device handed to the call that makes what it walks
    (`preprocess(audio, sample_rate, hop_length, batch_size, device)`)?"""
    here = ctx.node_text(_destination(call))
    return _copies_elsewhere(call, loop, here, ctx) or _hands_a_device(_iterable_call(loop), here, ctx)


def _copies_elsewhere(call: nodes.Call, loop: nodes.NodeNG, here: str, ctx: ModuleContext) -> bool:
    for other in loop.nodes_of_class(nodes.Call):
        func = other.func
        if other is call or not isinstance(func, nodes.Attribute):
            continue
        if func.attrname in DEVICE_METHODS:
            return True
        if func.attrname == "to" and _names_a_device(other, ctx) and ctx.node_text(_destination(other)) != here:
            return True
    return False


def _hands_a_device(made: nodes.Call | None, here: str, ctx: ModuleContext) -> bool:
    if made is None:
        return False
    handed = [*made.args, *(k.value for k in made.keywords or ())]
    return any(isinstance(arg, (nodes.Name, nodes.Attribute)) and ctx.node_text(arg) != here
               and _device_words(ctx.node_text(arg).rsplit(".", 1)[-1]) for arg in handed)


def _copy_back(call: nodes.Call, loop: nodes.NodeNG, ctx: ModuleContext) -> bool:
    """`for i in range(0, n, hop): c = encode(x[..., i : i + hop].to(self.device));
    codes.append(c.to(original_device))` (descript-audio-codec's compress, chunk by chunk): the loop
    sends its input's chunks to one device and each result back to the device the input came from,
    the host for a long recording. There a copy with `non_blocking=True` may be read before it lands,
    so the advice would be wrong; on the device the copy is no copy at all."""
    return _input_device(_destination(call), loop) and _sends_elsewhere(call, loop, ctx)


# The methods that restore saved state (`Optimizer.load_state_dict`, `Module._load_from_state_dict`,
# pickling's `__setstate__`): their loops move each saved tensor once, as training resumes.
_RESTORING_METHODS = frozenset({"load_state_dict", "_load_from_state_dict", "__setstate__"})


def _restores_state(call: nodes.Call) -> bool:
    """`def load_state_dict(self, state_dict): ... self.state[p][k] = v.to(device=p.device)`
    (optimizers that keep extra state): a copy in a method that restores a checkpoint runs once."""
    scope = call.scope()
    while isinstance(scope, (nodes.Lambda, nodes.ComprehensionScope)):
        scope = scope.parent.scope()
    return isinstance(scope, nodes.FunctionDef) and scope.name in _RESTORING_METHODS \
        and isinstance(scope.parent, nodes.ClassDef)


class BlockingCopy(Check):
    node_types = (nodes.Call,)

    def triggers(self) -> frozenset[str]:
        return frozenset({"to", *DEVICE_METHODS})

    def visit(self, node: nodes.Call, ctx: ModuleContext) -> None:
        func = node.func
        if not isinstance(func, nodes.Attribute) or func.attrname not in DEVICE_METHODS | {"to"}:
            return
        if any(k.arg in ("non_blocking", "async") or k.arg is None for k in node.keywords or ()):
            return
        if func.attrname == "to" and (not _names_a_device(node, ctx) or len(node.args) >= 3):
            return  # not a copy to a device, or .to(device, dtype, non_blocking) positionally
        if func.attrname == "to" and _to_own_device(node):
            return  # to the device the tensor is on: no copy from the host
        if func.attrname in DEVICE_METHODS and len(node.args) >= 2:
            return  # .cuda(device, non_blocking) positionally
        loop = enclosing_loop(node)
        if qualified_name(func.expr) is not None or loop is None or _over_module_parts(loop) \
                or _over_parameters(loop) or _over_checkpoint(loop):
            return
        if _over_models(loop, func.expr):
            return  # `for m in self._models: m.to(device)`: each model moved once, as it is set up
        receiver = ctx.node_text(func.expr).rsplit(".", 1)[-1].lower()
        if "model" in receiver or "module" in receiver:
            return  # `for model in models: model.cuda()` moves parameters, once
        kind = receiver_kind(func.expr)
        if kind not in (ReceiverKind.TENSOR, ReceiverKind.UNKNOWN):
            return
        if kind is ReceiverKind.UNKNOWN and _built_here(func.expr):
            return  # `MaternKernel(...).to(dtype=dtype, device=device)`: an object moved as it is made
        if _fresh_host_tensor(func.expr, ctx):
            return  # `torch.full(shape, 0).to(x.device)`: a tensor just made in pageable host memory
        if func.attrname == "to" and _copy_back(node, loop, ctx):
            return  # `c.to(original_device)` after `x.to(self.device)`: a result sent back to its input's device
        if in_test_function(node) or _restores_state(node):
            return
        confidence = Confidence.INFERENCE if kind is ReceiverKind.TENSOR else Confidence.INFERENCE_FAILURE
        ctx.report(self.rule, node, confidence=confidence, call=f".{func.attrname}()")
