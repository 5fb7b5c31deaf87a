"""Facts read statically from one torch-npu wheel (a zip file; its Python is parsed, never run)."""
from __future__ import annotations

import ast
import configparser
import json
import re
import zipfile
from typing import Dict, List, Optional, Tuple

from npu_lint.generate.ast_reading import module_all, module_level_names, public_names
from npu_lint.generate.transfer_to_npu_reader import read_transfer_to_npu

NPU_INIT = "torch_npu/npu/__init__.py"
TRANSFER_TO_NPU = "torch_npu/contrib/transfer_to_npu.py"
APIS_CONFIG = "torch_npu/contrib/apis_config.json"
EXPOSED_API = "torch_npu/utils/exposed_api.py"
CPP_EXTENSION = "torch_npu/utils/cpp_extension.py"
# torch (2.5 and later) imports every entry point of this group on `import torch`.
TORCH_BACKENDS_GROUP = "torch.backends"
# torch_npu.npu submodules that stand in for torch.cuda submodules of the same name
# (mstx is the NPU counterpart of nvtx). Keys are relative to torch_npu.npu.
NPU_SUBMODULES = (
    "amp", "amp.autocast_mode", "amp.common", "amp.grad_scaler",
    "graphs", "memory", "mstx", "random", "streams",
)


class WheelReadError(Exception):
    """A file the data depends on is missing or cannot be read literally."""


def read_wheel(path: str) -> Tuple[dict, List[str]]:
    """(facts, notes) for one wheel; notes say what was not found or not read as a literal."""
    notes: List[str] = []
    with zipfile.ZipFile(path) as wheel:
        files = set(wheel.namelist())

        def source(name: str) -> Optional[str]:
            return wheel.read(name).decode("utf-8") if name in files else None

        facts = {
            "npu_all": _npu_all(source(NPU_INIT)),
            "npu_unlisted": _npu_unlisted(source(NPU_INIT)),
            "npu_submodules": _npu_submodules(source, notes),
            "apis_config": _apis_config(source(APIS_CONFIG), notes),
            "npu_ops": _npu_ops(source(EXPOSED_API), notes),
            "has_npu_extension": _has_npu_extension(source(CPP_EXTENSION), notes),
        }
        transfer_source = source(TRANSFER_TO_NPU)
        if transfer_source is None:
            raise WheelReadError(f"{path}: no {TRANSFER_TO_NPU}")
        transfer, transfer_notes, unread = read_transfer_to_npu(transfer_source)
        facts["transfer_to_npu"] = transfer
        notes.extend(f"transfer_to_npu: {note}" for note in transfer_notes)
        notes.extend(f"transfer_to_npu unread: {line}" for line in unread)
        autoload = _autoload_entry_point(wheel, files)
        if autoload is not None:  # absent, not empty, in older wheels: the data file says "added in"
            facts["autoload_entry_point"] = autoload
        facts["torch_requirement"] = _torch_requirement(wheel, files)
    return facts, notes


def _npu_all(text: Optional[str]) -> List[str]:
    names = module_all(ast.parse(text)) if text is not None else None
    if names is None:
        raise WheelReadError(f"{NPU_INIT}: __all__ missing or not a literal list")
    return sorted(set(names))


def _npu_unlisted(text: Optional[str]) -> List[str]:
    """Module-level names of torch_npu.npu that `__all__` leaves out (`default_generators`,
    `_lazy_call`, ...): `torch.npu` is that module, so `torch.npu.<name>` works all the same."""
    tree = ast.parse(text) if text is not None else None
    if tree is None:
        raise WheelReadError(f"{NPU_INIT}: missing")
    return sorted(module_level_names(tree, "torch_npu") - set(module_all(tree) or ()))


def _npu_submodules(source, notes: List[str]) -> Dict[str, List[str]]:
    found = {}
    for name in NPU_SUBMODULES:
        base = "torch_npu/npu/" + name.replace(".", "/")
        text = source(base + ".py")
        if text is None:
            text = source(base + "/__init__.py")
        if text is None:
            notes.append(f"torch_npu.npu.{name}: no such submodule")
            continue
        found[name] = sorted(public_names(ast.parse(text)))
    return found


def _apis_config(text: Optional[str], notes: List[str]) -> Dict[str, dict]:
    if text is None:
        notes.append(f"{APIS_CONFIG}: missing")
        return {}
    config = {}
    for library, entry in json.loads(text).items():
        if not (isinstance(entry, dict) and isinstance(entry.get("version"), str)
                and isinstance(entry.get("apis"), dict)):
            raise WheelReadError(f"{APIS_CONFIG}: {library}: expected version and apis")
        record = {"version": entry["version"]}
        for api, kind in entry["apis"].items():
            if kind not in ("function", "method"):
                raise WheelReadError(f"{APIS_CONFIG}: {library}: {api}: unknown kind {kind!r}")
            record.setdefault(kind, []).append(api)
        config[library] = {key: sorted(value) if isinstance(value, list) else value
                           for key, value in record.items()}
    return config


def _npu_ops(text: Optional[str], notes: List[str]) -> List[str]:
    if text is None:
        notes.append(f"{EXPOSED_API}: missing")
        return []
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "public_npu_functions" for t in node.targets):
            if isinstance(node.value, (ast.List, ast.Tuple)) and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.value.elts):
                return sorted({e.value for e in node.value.elts})
    raise WheelReadError(f"{EXPOSED_API}: public_npu_functions missing or not a literal list")


def _has_npu_extension(text: Optional[str], notes: List[str]) -> bool:
    if text is None:
        notes.append(f"{CPP_EXTENSION}: missing")
        return False
    return any(isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name == "NpuExtension"
               for node in ast.parse(text).body)


def _autoload_entry_point(wheel: zipfile.ZipFile, files) -> Optional[str]:
    """`torch_npu:_autoload` when the wheel declares `[torch.backends] torch_npu = torch_npu:_autoload`
    in its entry_points.txt (read as text, never through an installed distribution)."""
    names = [name for name in files if name.endswith(".dist-info/entry_points.txt")]
    if len(names) != 1:
        return None
    parser = configparser.ConfigParser(delimiters=("=",), interpolation=None)
    parser.optionxform = str  # entry point names are case-sensitive
    parser.read_string(wheel.read(names[0]).decode("utf-8"))
    if not parser.has_section(TORCH_BACKENDS_GROUP):
        return None
    targets = sorted(value.strip() for value in parser[TORCH_BACKENDS_GROUP].values())
    if len(targets) != 1:
        raise WheelReadError(f"{names[0]}: expected one [{TORCH_BACKENDS_GROUP}] entry, got {targets}")
    return targets[0]


def _torch_requirement(wheel: zipfile.ZipFile, files) -> Optional[str]:
    """The torch version the wheel's metadata pins (`Requires-Dist: torch ==2.1.0`), if any."""
    metadata = [name for name in files if name.endswith(".dist-info/METADATA")]
    if len(metadata) != 1:
        return None
    for line in wheel.read(metadata[0]).decode("utf-8").splitlines():
        match = re.match(r"Requires-Dist:\s*torch\s*==\s*([0-9.]+?)(\.\*)?\s*$", line)
        if match:
            return match.group(1)
    return None
