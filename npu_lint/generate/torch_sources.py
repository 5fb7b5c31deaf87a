"""The files of one torch wheel that the operator data is read from (a zip file; nothing is run)."""
from __future__ import annotations

import ast
import dataclasses
import zipfile
from typing import Dict, FrozenSet, Optional

from npu_lint.generate.ast_reading import module_all, top_level_public_names
from npu_lint.generate.aten_ops import NATIVE_FUNCTIONS

FUNCTIONAL = "torch/nn/functional.py"
VARIABLE_FUNCTIONS = "torch/_C/_VariableFunctions.pyi"
C_INIT = "torch/_C/__init__.pyi"
NN_MODULES = "torch/nn/modules/"
MHA_BACKEND = "torch/backends/mha/__init__.py"
# Python submodules that `python_module:` names in native_functions.yaml.
SUBMODULES = ("linalg", "fft", "special", "nested", "sparse")


class TorchWheelError(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class TorchSources:
    native_functions: str
    functional: str
    nn_modules: Dict[str, str]          # "transformer" -> source of torch/nn/modules/transformer.py
    nn_public: FrozenSet[str]           # torch.nn.modules.__all__
    torch_functions: FrozenSet[str]     # torch._C._VariableFunctions (torch.X)
    tensor_methods: FrozenSet[str]      # torch._C.TensorBase methods (Tensor.X)
    submodule_names: Dict[str, FrozenSet[str]]  # "linalg" -> public names of torch.linalg
    mha_fastpath_switch: bool           # torch.backends.mha.set_fastpath_enabled exists


def read_torch_sources(path: str) -> TorchSources:
    with zipfile.ZipFile(path) as wheel:
        files = set(wheel.namelist())

        def text(name: str) -> str:
            if name not in files:
                raise TorchWheelError(f"{path}: no {name}")
            return wheel.read(name).decode("utf-8")

        def optional(name: str) -> Optional[str]:
            return wheel.read(name).decode("utf-8") if name in files else None

        modules = {name[len(NN_MODULES):-3]: text(name) for name in sorted(files)
                   if name.startswith(NN_MODULES) and name.endswith(".py") and name.count("/") == 3}
        nn_all = module_all(ast.parse(modules.get("__init__", ""))) or []
        submodules = {}
        for module in SUBMODULES:
            source = optional(f"torch/{module}/__init__.py")
            submodules[module] = frozenset(top_level_public_names(ast.parse(source))) if source else frozenset()
        return TorchSources(
            native_functions=text(NATIVE_FUNCTIONS),
            functional=text(FUNCTIONAL),
            nn_modules=modules,
            nn_public=frozenset(nn_all),
            torch_functions=frozenset(_stub_functions(text(VARIABLE_FUNCTIONS))),
            tensor_methods=frozenset(_tensor_methods(text(C_INIT))),
            submodule_names=submodules,
            mha_fastpath_switch="set_fastpath_enabled" in (optional(MHA_BACKEND) or ""),
        )


def _stub_functions(source: str):
    return {node.name for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)}


def _tensor_methods(source: str):
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef) and node.name in ("TensorBase", "_TensorBase"):
            return {item.name for item in node.body if isinstance(item, ast.FunctionDef)}
    raise TorchWheelError(f"{C_INIT}: no class TensorBase")
