"""Where a computation visibly runs on the CPU: `device="cpu"`, `torch.device("cpu")`, `.cpu()`,
`.to("cpu")`. Device and operator rules stay quiet there (the author chose the CPU on purpose)."""
from __future__ import annotations

from typing import Optional

from astroid import nodes

from npu_lint.analysis.names import bindings, keyword, qualified_name, single_value, values_stored_in_self


_TO_DEVICE = frozenset({"to", "cuda", "npu", "cpu"})
_CPU_DEPTH = 4


def is_cpu_device(node: Optional[nodes.NodeNG], depth: int = 0) -> bool:
    """"cpu", "cpu:0", `torch.device("cpu")`, or a local name assigned once from one."""
    if node is None or depth > _CPU_DEPTH:
        return False
    if isinstance(node, nodes.Const):
        return isinstance(node.value, str) and node.value.split(":")[0] == "cpu"
    if isinstance(node, nodes.Name):
        return is_cpu_device(single_value(node), depth + 1)
    if isinstance(node, nodes.Call) and node.args and qualified_name(node.func) == "torch.device":
        return is_cpu_device(node.args[0], depth + 1)
    return False


def says_cpu(call: nodes.Call) -> bool:
    """The call names the CPU as its device: `device="cpu"`, `.to("cpu")`, `.to(device=cpu)`."""
    if is_cpu_device(keyword(call, "device")):
        return True
    if isinstance(call.func, nodes.Attribute) and call.func.attrname == "to" and call.args:
        return is_cpu_device(call.args[0])
    return False


def explicitly_on_cpu(node: Optional[nodes.NodeNG], depth: int = 0) -> bool:
    """`x.cpu()`, `x.to("cpu")`, `torch.zeros(3, device="cpu")`, and what is computed from them by
    method calls: the author put the computation on the CPU on purpose (the advice of the fallback
    rules)."""
    node, depth = _making_call(node, depth, 6)
    if node is None:
        return False
    if says_cpu(node):
        return True
    if not isinstance(node.func, nodes.Attribute):
        return False
    method = node.func.attrname
    if method == "cpu":
        return True
    if method in _TO_DEVICE or _qname_plain(node.func.expr):
        return False
    return explicitly_on_cpu(node.func.expr, depth + 1)


def _making_call(node: Optional[nodes.NodeNG], depth: int, limit: int) -> tuple[Optional[nodes.Call], int]:
    """The call that makes `node`'s value, through local names assigned once, attributes its class
    stores once (sample-factory's `self.policy_versions = torch.zeros([n], dtype=torch.int32)`,
    then `self.policy_versions.share_memory_()`) and subscripts of them, and the depth reached;
    None past `limit` or where no call makes it."""
    while isinstance(node, (nodes.Name, nodes.Subscript, nodes.Attribute)) and depth <= limit:
        if isinstance(node, nodes.Name):
            node = single_value(node)
        elif isinstance(node, nodes.Subscript):
            node = node.value
        else:
            stored = values_stored_in_self(node)
            node = stored[0] if stored is not None and len(stored) == 1 else None
        depth += 1
    return (node, depth) if isinstance(node, nodes.Call) and depth <= limit else (None, depth)


def _qname_plain(node: nodes.NodeNG) -> bool:
    return qualified_name(node) is not None


def in_cpu_call(node: nodes.NodeNG) -> bool:
    """An argument of a call that names the CPU, of a method called on a tensor visibly on the
    CPU, or of a function whose first argument is one: `torch.empty(..., device="cpu",
    memory_format=torch.channels_last)`, `x.cpu().to(memory_format=torch.channels_last)`,
    `torch.quantize_per_tensor(x.cpu(), 0.1, 0, torch.quint8)`."""
    parent = node.parent
    if isinstance(parent, nodes.Keyword):
        parent = parent.parent
    if not isinstance(parent, nodes.Call) or parent.func is node:
        return False
    if says_cpu(parent):
        return True
    if isinstance(parent.func, nodes.Attribute) and qualified_name(parent.func.expr) is None:
        return explicitly_on_cpu(parent.func.expr)
    return bool(parent.args) and parent.args[0] is not node and explicitly_on_cpu(parent.args[0])


# torch factories that make a new tensor on the default device, the CPU, when given no `device=`
# (`torch.tensor`/`torch.as_tensor` only of Python values: they keep the device of a tensor).
_CPU_FACTORIES = frozenset(f"torch.{name}" for name in (
    "linspace", "logspace", "arange", "range", "zeros", "ones", "empty", "full", "eye", "rand", "randn",
    "randint", "randperm", "Tensor", "DoubleTensor",
    # the legacy typed constructors, CPU tensors too (`torch.FloatTensor(*img.size())`, ART's GRAPHITE)
    "FloatTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor", "ShortTensor", "CharTensor",
    "ByteTensor", "BoolTensor",
    # and their sparse twins (catalyst 22.4's MovieLens `torch.sparse.FloatTensor(i, v, size).to_dense()`):
    # torch.sparse.* are the CPU types, torch.cuda.sparse.* the CUDA ones
    "sparse.FloatTensor", "sparse.DoubleTensor", "sparse.HalfTensor", "sparse.LongTensor", "sparse.IntTensor",
    "sparse.ShortTensor", "sparse.CharTensor", "sparse.ByteTensor", "sparse.BoolTensor"))
_PYTHON_VALUES = (nodes.Const, nodes.List, nodes.Tuple, nodes.ListComp)
# Libraries whose functions return arrays in host memory.
_HOST_LIBRARIES = frozenset({"numpy", "scipy"})
# Tensor methods whose result stays on their receiver's device.
_SAME_DEVICE = frozenset({
    "double", "float", "view", "reshape", "contiguous", "clone", "t", "transpose", "permute", "squeeze",
    "unsqueeze", "flatten", "detach", "expand", "repeat", "abs", "neg", "exp", "log", "sqrt", "sum", "mean",
    # filled in place where it is (`torch.FloatTensor(n).uniform_(lo, hi)`)
    "uniform_", "normal_", "fill_", "zero_", "random_", "bernoulli_", "exponential_"})
# Ways a module moves the default device off the CPU: then a factory's tensor may not be there.
_DEFAULT_DEVICE_SETTERS = ("set_default_device", "set_default_tensor_type")


def made_on_cpu(node: Optional[nodes.NodeNG], module_text: str) -> bool:
    """A tensor that a torch factory makes without a device, so on the CPU, and what method calls
    compute from it there: `betas = torch.linspace(-6, 6, n, dtype=torch.float64)` (a diffusion
    schedule, computed once on the host before it becomes a buffer). Not where the module sets a
    default device."""
    return not any(setter in module_text for setter in _DEFAULT_DEVICE_SETTERS) and _made_on_cpu(node, 0)


def _made_on_cpu(node: Optional[nodes.NodeNG], depth: int) -> bool:
    node, depth = _making_call(node, depth, _CPU_DEPTH)
    if node is None:
        return False
    if isinstance(node.func, nodes.Attribute) and node.func.attrname in _SAME_DEVICE \
            and qualified_name(node.func.expr) is None:
        return _made_on_cpu(node.func.expr, depth + 1)
    if keyword(node, "device") is not None:
        return False
    factory = qualified_name(node.func)
    if factory == "torch.from_numpy":
        return True  # it shares the array's memory, which is the host's
    if factory in ("torch.tensor", "torch.as_tensor"):
        return bool(node.args) and (_python_values(node.args[0]) or _array_of_host_library(node.args[0]))
    return factory in _CPU_FACTORIES


def _python_values(value: nodes.NodeNG) -> bool:
    """A literal, or a literal list repeated (`[1.0] * len(preds[:, 0])`, ART's class gradients):
    Python values, never a tensor on a device."""
    if isinstance(value, nodes.BinOp) and value.op == "*":
        return isinstance(value.left, (nodes.List, nodes.Tuple)) or isinstance(value.right, (nodes.List, nodes.Tuple))
    return isinstance(value, _PYTHON_VALUES)


def _array_of_host_library(value: nodes.NodeNG) -> bool:
    """What a NumPy or SciPy function returns, also through a local name assigned from one (a
    tuple's item too): pyro's stable_log_prob.py `roots, weights = roots_legendre(num_points)`, then
    `torch.as_tensor(weights).double()`. An array lives on the host."""
    if isinstance(value, nodes.Name):
        assignments = bindings(value)
        if len(assignments) != 1 or not isinstance(assignments[0], nodes.AssignName):
            return False
        target = assignments[0]
        holder = target.parent.parent if isinstance(target.parent, nodes.Tuple) else target.parent
        if not (isinstance(holder, nodes.Assign) and len(holder.targets) == 1):
            return False
        value = holder.value
    return isinstance(value, nodes.Call) and (qualified_name(value.func) or "").split(".")[0] in _HOST_LIBRARIES
