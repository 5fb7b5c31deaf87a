"""Device-neutral spellings for torch.cuda names (data/device_api.yaml), checked per target torch."""
from __future__ import annotations


from npu_lint.core.kept import kept
from npu_lint.knowledge.loader import RuleDataError
from npu_lint.knowledge.location import data_file
from npu_lint.knowledge.torch_surface import torch_has, torch_version, version_tuple
from npu_lint.knowledge.yaml_data import load_yaml
from npu_lint.core.records import record

API_FILE = "device_api.yaml"


@record(frozen=True)
class DeviceApi:
    device_type_calls: dict[str, str]
    positional_arguments_shift: frozenset[str]
    type_references: dict[str, str]
    min_torch: str
    device: str
    device_type: str
    backend: str
    renames: dict[str, str]


def _mapping(value, field: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise RuleDataError(API_FILE, None, field, "expected a mapping of names to strings")
    return value


def _names(value, field: str) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise RuleDataError(API_FILE, None, field, "expected a list of names")
    return frozenset(value)


@kept
def device_api() -> DeviceApi:
    data = load_yaml(data_file(API_FILE)) or {}
    agnostic = data.get("agnostic")
    if not isinstance(agnostic, dict):
        raise RuleDataError(API_FILE, None, "agnostic", "expected a mapping")
    for field in ("min_torch", "device", "device_type", "backend"):
        if not isinstance(agnostic.get(field), str):
            raise RuleDataError(API_FILE, None, f"agnostic.{field}", "expected a string")
    return DeviceApi(
        device_type_calls=_mapping(data.get("device_type_calls", {}), "device_type_calls"),
        positional_arguments_shift=_names(data.get("positional_arguments_shift", []), "positional_arguments_shift"),
        type_references=_mapping(data.get("type_references", {}), "type_references"),
        min_torch=agnostic["min_torch"], device=agnostic["device"], device_type=agnostic["device_type"],
        backend=agnostic["backend"], renames=_mapping(agnostic.get("renames", {}), "agnostic.renames"),
    )


def agnostic_supported(release: str | None) -> bool:
    """Does the target's torch have what the agnostic route writes (torch.accelerator)?"""
    return version_tuple(torch_version(release)) >= version_tuple(device_api().min_torch)


def device_type_call(qname: str, release: str | None) -> str | None:
    """`torch.amp.X` for `torch.cuda.amp.X` where the target's torch has it."""
    target = device_api().device_type_calls.get(qname)
    return target if target and torch_has(target, release) else None


def type_reference(qname: str, release: str | None) -> str | None:
    """`torch.amp.GradScaler` for `torch.cuda.amp.GradScaler` named as a type, where the target's torch has it."""
    target = device_api().type_references.get(qname)
    return target if target and torch_has(target, release) else None


def takes_device_type_first(qname: str, call) -> bool:
    """Can the device type go first in this call of `qname` without moving what its positional
    arguments mean? (`call` is an astroid Call.)"""
    return not (call.args and qname in device_api().positional_arguments_shift)


def accelerator_name(qname: str, release: str | None) -> str | None:
    """`torch.accelerator.Y` for `torch.cuda.X` where the target's torch has it."""
    target = device_api().renames.get(qname)
    return target if target and torch_has(target, release) else None
