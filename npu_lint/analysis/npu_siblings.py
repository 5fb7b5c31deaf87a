"""CUDA classes and functions whose NPU sibling the project already has.

Projects that run on several devices put each device behind one interface and pick the
implementation at run time:

    class CudaAccelerator(BaseAccelerator): ...   # accelerator/cuda_accelerator.py
    class NpuAccelerator(BaseAccelerator): ...    # accelerator/npu_accelerator.py

(ColossalAI's and DeepSpeed's accelerators, kernel extensions that a loader asks
`is_available()` one after the other.) The CUDA class runs only where CUDA is: a port leaves it
alone, and rewriting its `torch.cuda` calls to `torch.npu` would break CUDA machines while the
NPU runs its own class. So nothing inside such a class is reported (ModuleContext.report), except
on the transfer_to_npu route: there `torch.cuda.is_available()` says True on the NPU, and a project
that probes CUDA first (ColossalAI's accelerator order) runs the CUDA class on the NPU.

A class is the CUDA member of such a family when its name has a `cuda` or `gpu` word (or names
another device that is no CPU: `HPU_Accelerator`, `MPS_Accelerator`) and a class
whose name has an `npu` or `ascend` word shares one of its bases (not a generic one such as
`ABC` or `nn.Module`), in the same module or in a module of the same folder. A class named for
ROCm (or HIP) that extends the CUDA twin of an NPU class is one too (verl's
`class PlatformROCm(PlatformCUDA)` beside `class PlatformNPU(PlatformBase)`): ROCm answers through
torch.cuda, and on the NPU the NPU class runs. A class named for ROCm that shares a base with a
CUDA class is one too, with or without an NPU class (vLLM's `RocmPlatform(Platform)` beside
`CudaPlatformBase(Platform)`, the NPU's platform being a plugin): it is AMD's, and what the port
needs is said in the CUDA class. Those modules are
read with Python's own `ast`, and only when they mention the NPU. `folder_modules_read` tells the
result cache which modules a file's findings may depend on that way.

Whole packages come in such families too, one per device beside each other (FlagGems'
`runtime/backend/_nvidia/` beside `_ascend/`, of which it imports only the host's): a module in a
package named for CUDA, NVIDIA or the GPU whose parent package also holds a package named for the
NPU is the CUDA member, and nothing in it is reported either (except on the transfer_to_npu route).
A lone `nvidia/` package (vLLM's `models/<model>/nvidia/` beside `amd/`) is no such member.

Functions and methods come in such families too, one per device beside each other:

    def is_cuda_available(): return torch.cuda.is_available()    # mmengine device/utils.py,
    def is_npu_available(): return IS_NPU_AVAILABLE              # accelerate, transformers
    class BaseDataElement:                                        # mmengine structures/
        def cuda(self): ... v.cuda() ...
        def npu(self): ... v.npu() ...

A function whose name has a `cuda` or `gpu` word, or names a GPU vendor (`_infer_nvidia_arch`,
`_infer_amd_arch`: ROCm answers through torch.cuda), is the CUDA member when the class or module
that defines it also defines its twin: the same name with `npu` for that word. Rewriting the
CUDA one would make `is_cuda_available()` answer for the NPU, or `.cuda()` move data to the NPU.

A module constant that only such a class or function reads is its own too (Ray's accelerator
managers: `CUDA_VISIBLE_DEVICES_ENV_VAR = "CUDA_VISIBLE_DEVICES"` at the top of nvidia_gpu.py),
and so is a module function that only they call (FastVideo's `device_id_to_physical_device_id`
in platforms/cuda.py).
"""
from __future__ import annotations

import ast
import functools
import os
import re
from typing import Callable, Optional

from astroid import nodes

from npu_lint.analysis.module_names import module_named_for
from npu_lint.analysis.names import identifier_words, last_name
from npu_lint.core.file_facts import FileFacts

_CUDA_WORDS = frozenset({"cuda", "gpu"})
# The other devices such a family has a member for (DeepSpeed's hpu_, mps_, sdaa_, xpu_ and
# mlu_accelerator.py beside npu_accelerator.py): their class runs on their device only, so what
# it says about CUDA is no NPU code either. Not the CPU: CPU classes (offload optimizers, a CPU
# accelerator used beside the NPU) may run on the NPU host too.
_OTHER_DEVICE_WORDS = frozenset({"hpu", "habana", "gaudi", "mps", "xpu", "mlu", "musa", "sdaa", "dipu", "tpu", "xla",
                                 # ROCm answers through torch.cuda, so its class extends CUDA's
                                 # (verl's `class PlatformROCm(PlatformCUDA)`)
                                 "rocm", "hip"})
_FAMILY_WORDS = _CUDA_WORDS | _OTHER_DEVICE_WORDS
# GPU vendors, whose functions beside an NPU twin are that family's CUDA member (ROCm is torch.cuda)
_TWIN_WORDS = _CUDA_WORDS | frozenset({"nvidia", "amd", "rocm"})
# A package of a device family named for CUDA (FlagGems' runtime/backend/_nvidia/)
_CUDA_PACKAGE_WORDS = _CUDA_WORDS | frozenset({"nvidia"})
_NPU_WORDS = frozenset({"npu", "ascend"})
# Bases too common to make two classes implementations of one interface.
_GENERIC_BASES = frozenset({"object", "ABC", "Module", "Enum", "Generic", "Protocol", "Exception",
                            "Function", "NamedTuple", "TypedDict", "Dataset", "TestCase"})
_ATTRIBUTE = "_npu_sibling_verdict"
_TWIN_ATTRIBUTE = "_npu_twin_verdict"
MAX_CACHED = 2048
# A class statement with bases, read from the bytes (names may be non-ASCII).
_CLASS_WITH_BASES = re.compile(rb"^[ \t]*class[ \t]+([^\s(:]+)[ \t]*\(", re.MULTILINE)


def in_class_with_npu_sibling(node: nodes.NodeNG) -> bool:
    """Does `node` lie inside a CUDA class whose NPU sibling the project defines?"""
    return _enclosed_by(node, nodes.ClassDef, _has_npu_sibling)


def in_function_with_npu_twin(node: nodes.NodeNG) -> bool:
    """Does `node` lie inside a function named for CUDA whose NPU twin is defined beside it?"""
    return _enclosed_by(node, nodes.FunctionDef, _has_npu_twin)


def read_only_by_npu_siblings(node: nodes.NodeNG, names: Callable[[], list[nodes.Name]]) -> bool:
    """Is `node` part of the value of a module constant that the module reads only inside CUDA
    classes with an NPU sibling, or functions with an NPU twin? Ray's
    _private/accelerators/nvidia_gpu.py opens with `CUDA_VISIBLE_DEVICES_ENV_VAR =
    "CUDA_VISIBLE_DEVICES"`, which only `NvidiaGPUAcceleratorManager` returns, beside
    `NPUAcceleratorManager` in npu.py with its own `ASCEND_RT_VISIBLE_DEVICES`: the constant is the
    CUDA class's own, as a string inside the class would be. `names()`: the module's Name nodes."""
    statement = node.statement()
    if not (isinstance(statement, nodes.Assign) and isinstance(statement.parent, nodes.Module)
            and len(statement.targets) == 1 and isinstance(statement.targets[0], nodes.AssignName)
            and (node is statement.value or statement.value.parent_of(node))):
        return False
    name = statement.targets[0].name
    reads = [read for read in names() if read.name == name]
    return bool(reads) and all(in_class_with_npu_sibling(read) or in_function_with_npu_twin(read)
                               for read in reads)


def called_only_by_npu_siblings(node: nodes.NodeNG, names: Callable[[], list[nodes.Name]]) -> bool:
    """Is `node` inside a module-level function that the module names only inside CUDA classes
    with an NPU sibling (or functions with an NPU twin)? FastVideo's platforms/cuda.py defines
    `device_id_to_physical_device_id`, which reads CUDA_VISIBLE_DEVICES, and only its
    `NvmlCudaPlatform` calls it, beside `NPUPlatform` in npu.py with ASCEND_RT_VISIBLE_DEVICES:
    the helper is the CUDA class's own, as a method would be. Other modules could import a public
    function, so it must be private (`_name`) or its module named for CUDA (cuda.py)."""
    scope = node.scope()
    while not (isinstance(scope, nodes.FunctionDef) and isinstance(scope.parent, nodes.Module)):
        if isinstance(scope, (nodes.Module, nodes.ClassDef)):
            return False
        scope = scope.parent.scope()
    function = scope
    if function.decorators is not None and function.decorators.parent_of(node):
        return False
    if not function.name.startswith("_") and not module_named_for(function.root().file or "", _CUDA_WORDS):
        return False
    reads = [read for read in names() if read.name == function.name and not function.parent_of(read)]
    return bool(reads) and all(in_class_with_npu_sibling(read) or in_function_with_npu_twin(read)
                               for read in reads)


def _enclosed_by(node: nodes.NodeNG, kind: type, test) -> bool:
    scope = node.parent
    while scope is not None:
        if isinstance(scope, kind) and test(scope):
            return True
        scope = scope.parent
    return False


def _has_npu_twin(function: nodes.FunctionDef) -> bool:
    return _remembered(function, _TWIN_ATTRIBUTE, _twin_defined)


def _twin_defined(function: nodes.FunctionDef) -> bool:
    words = identifier_words(function.name)
    twins = {words[:index] + ("npu",) + words[index + 1:] for index, word in enumerate(words) if word in _TWIN_WORDS}
    if not twins or function.parent is None:
        return False
    definer = function.parent.frame()  # the class or module (or function) whose body defines it
    return any(identifier_words(name) in twins and any(isinstance(d, nodes.FunctionDef) for d in definitions)
               for name, definitions in definer.locals.items())


def _has_npu_sibling(classdef: nodes.ClassDef) -> bool:
    return _remembered(classdef, _ATTRIBUTE, _judge)


def _remembered(node: nodes.NodeNG, attribute: str, judge) -> bool:
    """`judge(node)`, kept on the node: each finding inside asks again."""
    verdict = getattr(node, attribute, None)
    if verdict is None:
        setattr(node, attribute, False)  # a class that extends itself through others ends here
        verdict = judge(node)
        setattr(node, attribute, verdict)
    return verdict


def _family_named(name: str) -> bool:
    """Is a class so named a member of a device family? ("ROCm" splits into "ro" and "cm".)"""
    return bool(_FAMILY_WORDS.intersection(identifier_words(name))) or "rocm" in name.lower()


def _judge(classdef: nodes.ClassDef) -> bool:
    if not _family_named(classdef.name):
        return False
    bases = {name for name in map(last_name, classdef.bases) if name and name not in _GENERIC_BASES}
    if not bases:
        return False
    module = classdef.root()
    if _names_rocm(classdef.name) and _beside_cuda_sibling(classdef, bases, module):
        return True
    npu_classes = [other for other in module.nodes_of_class(nodes.ClassDef) if _names_npu(other.name)]
    own = {base for other in npu_classes for base in map(last_name, other.bases) if base}
    names = {other.name for other in npu_classes}
    if bases & own or _extends_cuda_twin(bases, names) or _extends_family_member(module, bases):
        return True
    path = getattr(module, "file", None)
    if not path or not os.path.isfile(path):
        return False
    beside_names, beside_bases = _npu_classes_beside(path)
    return bool(bases & beside_bases) or _extends_cuda_twin(bases, beside_names)


def _names_rocm(name: str) -> bool:
    return "rocm" in name.lower() or "hip" in identifier_words(name)


def _names_cuda(name: str) -> bool:
    return bool(_CUDA_WORDS.intersection(identifier_words(name)))


def _beside_cuda_sibling(classdef: nodes.ClassDef, bases: set[str], module: nodes.Module) -> bool:
    """Is the ROCm class a sibling of a CUDA class, the two sharing a base? vLLM's platforms:
    `class RocmPlatform(Platform)` in rocm.py beside `class CudaPlatformBase(Platform)` in cuda.py.
    ROCm answers through torch.cuda, so its class says `device_type = "cuda"` and calls
    `torch.cuda.set_device`: that is AMD's code, which "npu" would break, while the CUDA sibling
    is where the port reads what the NPU's own class must do."""
    if any(other is not classdef and _names_cuda(other.name) and not _names_rocm(other.name)
           and bases & {base for base in map(last_name, other.bases) if base}
           for other in module.nodes_of_class(nodes.ClassDef)):
        return True
    path = getattr(module, "file", None)
    if not path or not os.path.isfile(path):
        return False
    return any(bases & (_FILE_CUDA_BASES.get(file) or frozenset()) for file in _modules_beside(path))


def _read_cuda_bases(path: str) -> frozenset:
    """The bases of the CUDA-named classes of a module (not those named for ROCm too)."""
    try:
        with open(path, "rb") as file:
            source = file.read()
    except OSError:
        return frozenset()
    lowered = source.lower()
    if b"class" not in lowered or (b"cuda" not in lowered and b"gpu" not in lowered):
        return frozenset()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()
    return frozenset(base for node in ast.walk(tree)
                     if isinstance(node, ast.ClassDef) and _names_cuda(node.name) and not _names_rocm(node.name)
                     for base in map(_ast_last_name, node.bases) if base and base not in _GENERIC_BASES)


def _extends_family_member(module: nodes.Module, bases: set[str]) -> bool:
    """Does a base name a class of this module that is itself the CUDA member of such a family?
    `class NonNvmlCudaPlatform(CudaPlatformBase)` beside `class CudaPlatformBase(Platform)`, whose
    sibling is `class NPUPlatform(Platform)` (FastVideo's platforms, after vLLM's): the subclass
    runs where its base does."""
    for base in bases:
        for definition in module.locals.get(base, ()):
            if isinstance(definition, nodes.ClassDef) and _has_npu_sibling(definition):
                return True
    return False


def _extends_cuda_twin(bases: set[str], npu_names: set[str]) -> bool:
    """Does a base name a CUDA class whose NPU twin (its name with `npu` for the CUDA word) is
    defined? `class PlatformROCm(PlatformCUDA)` beside `class PlatformNPU(PlatformBase)` (verl's
    plugin/platform/): the ROCm class runs only where CUDA's does."""
    twins = {identifier_words(name) for name in npu_names}
    for base in bases:
        words = identifier_words(base)
        if any(words[:index] + ("npu",) + words[index + 1:] in twins
               for index, word in enumerate(words) if word in _CUDA_WORDS):
            return True
    return False


def in_package_with_npu_sibling(path: str) -> bool:
    """Is the module at `path` inside a package named for CUDA (or NVIDIA, or the GPU) whose
    parent package also holds a package named for the NPU?"""
    if not path or os.path.basename(path).startswith("<"):
        return False
    return any(_npu_packages_beside(package) for package in _cuda_packages(os.path.dirname(os.path.abspath(path))))


def _cuda_packages(folder: str) -> list[str]:
    """The packages of `folder`'s package chain that are named for CUDA and sit in a package."""
    found = []
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        if _CUDA_PACKAGE_WORDS.intersection(identifier_words(os.path.basename(folder))) \
                and os.path.isfile(os.path.join(parent, "__init__.py")):
            found.append(folder)
        folder = parent
    return found


@functools.lru_cache(maxsize=MAX_CACHED)
def _npu_packages_beside(package: str) -> tuple[str, ...]:
    """The packages named for the NPU beside `package` (folders with __init__.py)."""
    try:
        entries = list(os.scandir(os.path.dirname(package)))
    except OSError:
        return ()
    return tuple(sorted(entry.path for entry in entries
                        if _names_npu(entry.name) and os.path.isfile(os.path.join(entry.path, "__init__.py"))))


def folder_modules_read(path: str, source: bytes) -> list[str]:
    """The other modules of `path`'s folder that checking `source` may read for NPU siblings:
    all of them when it defines a CUDA-named class with bases, else none; and, for a module in
    a package named for CUDA, the folder that holds that package (a package added or removed
    there changes its stamp) and the __init__.py of each NPU package beside it."""
    packages = _cuda_packages(os.path.dirname(os.path.abspath(path))) if path else []
    read = [found for package in packages
            for found in (os.path.dirname(package), *(os.path.join(npu, "__init__.py")
                                                     for npu in _npu_packages_beside(package)))]
    if b"class" not in source or not any(_family_named(match.group(1).decode("utf-8", "replace"))
                                         for match in _CLASS_WITH_BASES.finditer(source)):
        return read
    return sorted(_modules_beside(path)) + read


def _modules_beside(path: str) -> list[str]:
    folder = os.path.dirname(os.path.abspath(path))
    own = os.path.basename(path)
    try:
        return [entry.path for entry in os.scandir(folder)
                if entry.name.endswith(".py") and entry.name != own and entry.is_file()]
    except OSError:
        return []


def _names_npu(name: str) -> bool:
    return bool(_NPU_WORDS.intersection(identifier_words(name)))


def _npu_classes_beside(path: str) -> tuple[set[str], set[str]]:
    """The names and the bases of the NPU-named classes in the other modules of `path`'s folder."""
    names: set[str] = set()
    bases: set[str] = set()
    for file in _modules_beside(path):
        file_names, file_bases = _FILE_CLASSES.get(file) or _NO_CLASSES
        names |= file_names
        bases |= file_bases
    return names, bases


_NO_CLASSES: tuple[frozenset, frozenset] = (frozenset(), frozenset())


def _read_npu_classes(path: str) -> tuple[frozenset, frozenset]:
    try:
        with open(path, "rb") as file:
            source = file.read()
    except OSError:
        return _NO_CLASSES
    lowered = source.lower()
    if b"npu" not in lowered and b"ascend" not in lowered:
        return _NO_CLASSES  # most modules: no NPU class to parse for
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _NO_CLASSES
    classes = [node for node in ast.walk(tree) if isinstance(node, ast.ClassDef) and _names_npu(node.name)]
    return (frozenset(node.name for node in classes),
            frozenset(base for node in classes for base in map(_ast_last_name, node.bases) if base))


_FILE_CLASSES: FileFacts[tuple] = FileFacts(_read_npu_classes, MAX_CACHED)
_FILE_CUDA_BASES: FileFacts[frozenset] = FileFacts(_read_cuda_bases, MAX_CACHED)


def _ast_last_name(node: ast.expr) -> Optional[str]:
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None
