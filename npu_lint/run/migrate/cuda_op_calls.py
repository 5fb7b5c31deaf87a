"""Python calls of the project's own C++/CUDA operators (unsupported_api.csv rows with
msFmkTransplt's Tips "User-defined CUDA Operator.").

msFmkTransplt matches any call whose name ends with an operator's name, so `obj.forward(x)`
matches a custom op named `forward`. Here a call must reach the operator the way Python can:
- `torch.ops.<namespace>.<op>(...)` for a TORCH_LIBRARY operator;
- `<module>.<op>(...)` or a from-imported `<op>(...)` for a pybind11 function, where
  `<module>` is not a Python module of the project (a compiled extension has no .py file)
  and not torch.
Only the import statements are read (Python's ast), never the code run.
"""
from __future__ import annotations

import ast
import sys
import warnings

from npu_lint.core.python_ast import dotted_name
from npu_lint.run.migrate.cuda_ops import CudaOp
from npu_lint.core.records import record

TIPS = "User-defined CUDA Operator."


@record(frozen=True)
class CudaOpCall:
    file: str
    start: int
    end: int
    op: CudaOp


def project_modules(relatives: list[str]) -> frozenset[str]:
    """Dotted names of the project's Python modules and packages (and their last parts)."""
    names = set()
    for relative in relatives:
        if not relative.endswith(".py"):
            continue
        parts = relative[:-3].split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        for start in range(len(parts)):
            if parts[start:]:
                names.add(".".join(parts[start:]))
    return frozenset(names)


def _bindings(tree: ast.Module) -> dict[str, str]:
    """local name -> dotted module or object it is imported as (relative imports keep their dots)."""
    bound = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            for alias in node.names:
                if alias.name != "*":
                    bound[alias.asname or alias.name] = f"{module}.{alias.name}" if module else alias.name
    return bound


# Libraries whose names a project's operator may share (`np.unique`): never the project's extension.
_KNOWN_LIBRARIES = frozenset({"torch", "torchvision", "torchaudio", "numpy", "scipy", "pandas", "cv2", "PIL",
                              "jax", "tensorflow", "mmcv", "apex"}) | frozenset(getattr(sys, "stdlib_module_names", ()))


def _is_extension(module: str, own: frozenset[str]) -> bool:
    stripped = module.lstrip(".")
    root = stripped.split(".")[0]
    return bool(stripped) and root not in _KNOWN_LIBRARIES and stripped not in own


def find_calls(text: str, relative: str, ops: list[CudaOp], own: frozenset[str]) -> list[CudaOpCall]:
    if not ops:
        return []
    library = {op.api: op for op in ops if op.registration.startswith("TORCH_LIBRARY") and "." in op.api}
    pybind = {op.api: op for op in ops if op.registration == "pybind11 def"}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    bound = _bindings(tree)
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        written = dotted_name(node.func)
        if not written:
            continue
        head, _, rest = written.partition(".")
        qualified = bound.get(head, head if head == "torch" else None)
        if qualified is None:
            continue
        qualified = f"{qualified}.{rest}" if rest else qualified
        op = None
        if qualified.startswith("torch.ops."):
            name = qualified[len("torch.ops."):]
            op = library.get(name) or library.get(name.rsplit(".", 1)[0])  # `.default` and other overloads
        elif "." in qualified:
            module, _, name = qualified.rpartition(".")
            if name in pybind and _is_extension(module, own):
                op = pybind[name]
        if op is not None:
            found.append(CudaOpCall(relative, node.lineno, node.end_lineno or node.lineno, op))
    return sorted(found, key=lambda call: (call.start, call.op.api))
