"""What torch_npu's transfer_to_npu rewrites at run time, per release (the `auto` strategy)."""
from __future__ import annotations

import dataclasses
import functools

from astroid import nodes

from npu_lint.analysis.names import qualified_name
from npu_lint.knowledge import release_data
from npu_lint.knowledge.loader import RuleDataError
from npu_lint.knowledge.location import data_file
from npu_lint.knowledge.yaml_data import load_yaml
from npu_lint.core.records import record

TRANSFER_FILE = "transfer_to_npu.yaml"
TRANSFER_IMPORT = "from torch_npu.contrib import transfer_to_npu"


@record(frozen=True)
class TransferFacts:
    reaches: dict[str, str]
    cuda_path_libraries: tuple[str, ...]
    # package -> the wrapped function its classes hand `device=` to (torch.nn -> torch.empty)
    device_passed_on: dict[str, str] = dataclasses.field(default_factory=dict)

    def passes_device_to(self, qname: str) -> str | None:
        """The wrapped function a class of such a package hands its device to: `torch.nn.Linear`
        builds its weight with torch.empty. Classes only (capitalized), not the package's functions."""
        for package, function in self.device_passed_on.items():
            if qname.startswith(package + ".") and qname.rsplit(".", 1)[-1][:1].isupper():
                return function
        return None


@functools.lru_cache(maxsize=1)
def transfer_facts() -> TransferFacts:
    data = load_yaml(data_file(TRANSFER_FILE)) or {}
    reaches, libraries = data.get("reaches", {}), data.get("cuda_path_libraries", [])
    passed_on = data.get("device_passed_on", {})
    if not isinstance(reaches, dict) or not isinstance(libraries, list) or not isinstance(passed_on, dict):
        raise RuleDataError(TRANSFER_FILE, None, "reaches", "expected mappings and a list")
    return TransferFacts(dict(reaches), tuple(libraries), {str(k): str(v) for k, v in passed_on.items()})


def _wrapped_set(wrapper: str, release: str) -> frozenset[str]:
    return release_data.facts(release).wrapped.get(wrapper, frozenset())


def call_is_wrapped(call: nodes.Call, wrapper: str, release: str) -> bool:
    """Does transfer_to_npu's `wrapper` rewrite the arguments of this call?"""
    wrapped = _wrapped_set(wrapper, release)
    callee = _callee(call)
    qname = qualified_name(callee)
    if qname is not None:
        target = transfer_facts().reaches.get(qname, qname)
        return target in wrapped or f"{target}.__init__" in wrapped
    if isinstance(callee, nodes.Attribute):  # a method on a value: Tensor.to, Module.to_empty
        name = callee.attrname
        return f"torch.Tensor.{name}" in wrapped or f"torch.nn.Module.{name}" in wrapped
    return False


def rewrites_every_word(wrapper: str, release: str, value: str, words: tuple[str, ...] = ("cuda", "nccl")) -> bool:
    """Does `wrapper` rewrite every CUDA word in `value`? Some releases' `_wrapper_hccl` rewrites
    nccl but not cuda, and leaves `"cpu:gloo,cuda:nccl"` as `"cpu:gloo,cuda:hccl"`, which names
    no backend for the NPU's tensors."""
    replaced = release_data.facts(release).string_replacements.get(wrapper, {})
    return all(word in replaced for word in words if word in value)


def device_is_rewritten(call: nodes.Call, wrapper: str, release: str) -> bool:
    """Does transfer_to_npu's `wrapper` rewrite the device this call is given: a wrapped call, or a
    class that hands its `device=` to a wrapped function (`nn.Linear(4, 4, device="cuda")` builds
    its weight with torch.empty)? Only the device goes on: its other arguments are not rewritten."""
    if call_is_wrapped(call, wrapper, release):
        return True
    qname = qualified_name(_callee(call))
    if qname == "torch.device":
        outer = _device_handed_to(call, release)
        if outer is not None:
            return device_is_rewritten(outer, wrapper, release)
        reads = _reads_of_local_device(call)
        return bool(reads) and all(
            (outer := _device_handed_to(read, release)) is not None and device_is_rewritten(outer, wrapper, release)
            for read in reads)
    passed_to = transfer_facts().passes_device_to(qname) if qname is not None else None
    return passed_to is not None and passed_to in _wrapped_set(wrapper, release)


def _whole_choice(value: nodes.NodeNG) -> nodes.NodeNG:
    """The conditional expression `value` is a branch of (`a if c else b`, nested too), or `value`."""
    while isinstance(value.parent, nodes.IfExp) and value is not value.parent.test:
        value = value.parent
    return value


def _reads_of_local_device(device: nodes.Call) -> list[nodes.Name]:
    """The reads of a function's local that holds this `torch.device("cuda")` and nothing else
    (torch-audiomentations' tests: `cuda_device = torch.device("cuda")`, then
    `Gain(...).to(device=cuda_device)` and `torch.from_numpy(x).to(device=cuda_device)`): each read
    is the device object itself. Empty when the name is bound more than once, is not a function's
    own local, or is never read. Costs one walk of that function, only for a CUDA device object."""
    device = _whole_choice(device)
    parent = device.parent
    if not isinstance(parent, nodes.Assign) or parent.value is not device or len(parent.targets) != 1:
        return []
    target = parent.targets[0]
    scope = parent.scope()
    if not isinstance(target, nodes.AssignName) or not isinstance(scope, nodes.FunctionDef):
        return []
    name = target.name
    if scope.locals.get(name) != [target]:
        return []  # a parameter, a second binding, a global or nonlocal name: other values too
    reads = [read for read in scope.nodes_of_class(nodes.Name) if read.name == name]
    if any(read.statement() is parent for read in reads):
        return []  # `d = torch.device(d if d else torch.device("cuda"))`: not its first value
    return reads


def _device_handed_to(device: nodes.NodeNG, release: str) -> nodes.Call | None:
    """The call that `torch.device("cuda")` is built for, as a positional argument or one of the
    keywords the patch reads (`device=`, `map_location=`, ...): the wrapper turns a CUDA device
    object it is handed into the NPU's as it turns a string (`x.to(torch.device("cuda"))`,
    `torch.cuda.get_device_properties(torch.device("cuda"))`), also as a branch of a conditional
    expression given there (gpytorch's tests: `torch.linspace(0, 1, 100, device=torch.device("cuda")
    if cuda else torch.device("cpu"))`): whichever branch is taken, the wrapper is handed it."""
    device = _whole_choice(device)
    parent = device.parent
    if isinstance(parent, nodes.Keyword):
        names = release_data.facts(release).transfer_lists.get("device_kwargs_list", frozenset())
        outer = parent.parent
        return outer if parent.arg in names and isinstance(outer, nodes.Call) else None
    if isinstance(parent, nodes.Call) and device in parent.args:
        return parent
    return None


def _callee(call: nodes.Call) -> nodes.NodeNG:
    """The function a call's arguments reach: `functools.partial(torch.as_tensor, device="cuda")`
    (MONAI's tests/utils.py) hands its arguments to torch.as_tensor at each call, and the name it
    is given is read after the patch has replaced it by its wrapped one."""
    if call.args and qualified_name(call.func) == "functools.partial":
        return call.args[0]
    return call.func


def enclosing_call(node: nodes.NodeNG) -> nodes.Call | None:
    """The call an argument belongs to (through a keyword), if any."""
    parent = node.parent
    if isinstance(parent, nodes.Keyword):
        parent = parent.parent
    return parent if isinstance(parent, nodes.Call) and node is not parent.func else None
