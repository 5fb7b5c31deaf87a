"""The CUDA extension modules a project's setup.py builds, read with `ast` (never run).

    CUDAExtension(name="pkg.ops._ext", sources=[...])           mmcv
    extension = CppExtension                                     detectron2, MinkowskiEngine: a name
    if torch.cuda.is_available(): extension = CUDAExtension      setup.py binds to CUDAExtension
    extension("pkg._C", sources, ...)                            is CUDAExtension when CUDA builds
    make_cuda_ext(name="upfirdn2d_ext", module="basicsr.ops.upfirdn2d",
                  sources=["src/upfirdn2d.cpp"], sources_cuda=["src/upfirdn2d_kernel.cu"])
                                                                 basicsr's helper around CUDAExtension

A module that imports one by name (`from . import upfirdn2d_ext`) calls a prebuilt CUDA kernel,
as one that builds it with `load(...)` at run time does. Only what setup.py says counts: a
`CUDAExtension(name=...)` (or through a name
setup.py assigns CUDAExtension to), or a call that passes a literal `name=` (and `module=`, its package)
with a `.cu` file among its sources. A name alone (`*_ext`, `*_cuda`) proves nothing.
"""
from __future__ import annotations

import ast
import os

from npu_lint.config.project_scripts import project_root

SETUP_PY = "setup.py"
_READ: dict[str, tuple[tuple[int, int], frozenset]] = {}


def cuda_extensions(root: str) -> frozenset:
    """Dotted names of the CUDA extension modules `root`/setup.py builds (cached until it changes)."""
    path = os.path.join(root, SETUP_PY)
    try:
        status = os.stat(path)
        stamp = (status.st_mtime_ns, status.st_size)
    except OSError:
        return frozenset()
    cached = _READ.get(root)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    try:
        with open(path, encoding="utf-8") as handle:
            names = _from_setup_py(ast.parse(handle.read()))
    except (OSError, UnicodeDecodeError, ValueError, SyntaxError, RecursionError):
        names = frozenset()  # a broken setup.py names nothing; it is not ours to report
    _READ[root] = (stamp, names)
    return names


def _from_setup_py(tree: ast.AST) -> frozenset:
    names = set()
    cuda_classes = _CUDA_EXTENSION | _names_bound_to_cuda_extension(tree)
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call):
            continue
        callee = call.func.id if isinstance(call.func, ast.Name) else getattr(call.func, "attr", None)
        cuda_class = callee in cuda_classes
        keywords = {keyword.arg: keyword.value for keyword in call.keywords if keyword.arg}
        name = keywords.get("name", call.args[0] if call.args and cuda_class else None)
        name = _string(name)
        if name is None or not (cuda_class or _names_cuda_source(call)):
            continue
        package = _string(keywords.get("module"))
        names.add(f"{package}.{name}" if package and not cuda_class else name)
    return frozenset(names)


_CUDA_EXTENSION = frozenset({"CUDAExtension"})


def _names_bound_to_cuda_extension(tree: ast.AST) -> frozenset:
    """`extension = CUDAExtension`, `Extension = CUDAExtension if cuda else CppExtension`: the
    names setup.py calls CUDAExtension by when it builds for CUDA (a CPU-only build uses the other
    class, and then there is no CUDA kernel to keep NPU tensors from)."""
    names = set()
    for statement in ast.walk(tree):
        if not isinstance(statement, ast.Assign):
            continue
        values = [statement.value.body, statement.value.orelse] if isinstance(statement.value, ast.IfExp) \
            else [statement.value]
        if any(isinstance(value, ast.Name) and value.id in _CUDA_EXTENSION for value in values):
            names.update(target.id for target in statement.targets if isinstance(target, ast.Name))
    return frozenset(names)


def _string(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) \
            and all(part.isidentifier() for part in node.value.split(".")):
        return node.value
    return None


def _names_cuda_source(call: ast.Call) -> bool:
    """A `.cu` file among the sources (`sources=`, `sources_cuda=`, positional), not elsewhere
    (setup()'s `package_data` patterns such as "*.cu" ship files, they build nothing)."""
    sources = [*call.args, *(k.value for k in call.keywords if k.arg and k.arg.startswith("sources"))]
    return any(isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.endswith(".cu")
               for source in sources for node in ast.walk(source))


def setup_py_read_for(path: str, data: bytes) -> str | None:
    """The setup.py whose CUDA extensions the findings of the file at `path` (with bytes `data`)
    may depend on: its project builds one whose name the file mentions. A result cache keeps the
    file's result only while that setup.py is unchanged."""
    root = project_root(os.path.dirname(os.path.abspath(path)))
    if root is None:
        return None
    names = cuda_extensions(root)
    return os.path.join(root, SETUP_PY) if any(name.rsplit(".", 1)[-1].encode() in data for name in names) else None
