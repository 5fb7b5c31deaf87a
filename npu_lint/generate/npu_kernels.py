"""What one torch-npu wheel registers for the NPU: the ATen overloads with NPU kernels
(`npu_native_functions_by_codegen.yaml`) and the dtypes it declares unsupported.

The wheel is a zip file; YAML is parsed with `yaml.safe_load`, Python with `ast`, nothing is run.
"""
from __future__ import annotations

import ast
import dataclasses
import zipfile
from typing import Dict, FrozenSet, List, Optional

import yaml

from npu_lint.generate.ast_reading import assigned_names, dotted_name

KERNEL_YAML = "torch_npu/csrc/aten/npu_native_functions_by_codegen.yaml"
# Sections of the yaml that register kernels for ATen overloads; `custom` holds NPU-only ops.
ATEN_SECTIONS = ("supported", "symint", "quant", "autograd")
# Where `unsupported_dtype = [torch.quint8, ...]` is defined (it moved in 2.7).
UNSUPPORTED_DTYPE_FILES = ("torch_npu/_init/registry/backend.py", "torch_npu/__init__.py")


class NpuWheelError(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class NpuKernels:
    overloads: FrozenSet[str]            # ATen overload names with an NPU kernel
    section_sizes: Dict[str, int]        # entries per section, `custom` included
    custom: FrozenSet[str]               # NPU-only operators (torch.ops.npu.*)
    unsupported_dtypes: List[str]        # "quint8", ... (torch_npu.unsupported_dtype)
    unsupported_dtypes_file: Optional[str]


def entry_name(entry) -> str:
    """`abs`, `abs.out`, or the name of a full schema `abs.out(Tensor self, ...) -> ...`."""
    text = entry if isinstance(entry, str) else (entry or {}).get("func", "")
    return str(text).split("(", 1)[0].strip()


def read_npu_kernels(path: str) -> NpuKernels:
    with zipfile.ZipFile(path) as wheel:
        files = set(wheel.namelist())
        if KERNEL_YAML not in files:
            raise NpuWheelError(f"{path}: no {KERNEL_YAML}")
        data = yaml.safe_load(wheel.read(KERNEL_YAML).decode("utf-8"))
        dtype_sources = {name: wheel.read(name).decode("utf-8")
                         for name in UNSUPPORTED_DTYPE_FILES if name in files}
    if not isinstance(data, dict):
        raise NpuWheelError(f"{KERNEL_YAML}: not a mapping")
    sizes = {key: len(value) for key, value in data.items() if isinstance(value, list)}
    kernels = set()
    for section in ATEN_SECTIONS:
        kernels.update(entry_name(e) for e in data.get(section) or [])
    custom = frozenset(entry_name(e) for e in data.get("custom") or [])
    dtypes, where = [], None
    for name, source in dtype_sources.items():
        found = _unsupported_dtypes(source)
        if found is not None:
            dtypes, where = found, name
            break
    return NpuKernels(frozenset(k for k in kernels if k), sizes, custom, dtypes, where)


def _unsupported_dtypes(source: str) -> Optional[List[str]]:
    """The `torch.X` names of the first `unsupported_dtype = [...]` assignment, anywhere."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign) and "unsupported_dtype" in assigned_names(node):
            if isinstance(node.value, (ast.List, ast.Tuple)):
                names = [dotted_name(element) or "" for element in node.value.elts]
                if all(name.startswith("torch.") for name in names):
                    return sorted(name[len("torch."):] for name in names)
    return None
