"""Read access to ``torch_api.json`` (written by ``generate.py`` from the real torch).

Layout (names are space-separated strings to keep the file small)::

    {"format": 1, "torch": "<version>",
     "modules": {"torch.cuda": {
         "pkg": 1,                      # a package (submodules resolve as attributes)
         "sub": "amp graphs ...",       # submodules
         "cls": "Event Stream ...",     # classes defined here (details under "classes")
         "fnT": "...", "fnO": "...",    # functions defined here: returning a Tensor / other
         "val": "...",                  # other values (inferred as Uninferable)
         "ins": {"float32": "torch.dtype"},   # values that are instances of a modelled class
         "imp": {"torch": "Tensor ..."},       # names re-exported from their home module
         "ren": {"alias": "torch.x.Name"},     # re-exported under another name
         "mod": {"name": "torch.x"},           # module aliases listed in __all__
         "ext": "Any Optional os ..."},        # imported from outside torch: not API
      ...},
     "classes": {"torch.cuda.Event": {
         "b": "torch.x.Base",           # nearest modelled base class, or
         "bi": "RuntimeError",          # a builtin base
         "mT"/"mS"/"mO": "...",         # methods returning Tensor / self / other
         "pT"/"pO": "...",              # properties
         "sT"/"sO"/"cT"/"cS"/"cO": "...",   # static and class methods
         "v": "...", "lit": {"NCCL": "nccl"}, "ins": {...}}}}   # class attributes
"""

from __future__ import annotations

import functools
import json
import os

DATA_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_api.json")
FORMAT = 1

# Keys of a module record whose names are public torch API (not "ext").
_PUBLIC_KEYS = ("sub", "cls", "fnT", "fnO", "val")
_PUBLIC_MAPS = ("ins", "ren", "mod")


@functools.lru_cache(maxsize=1)
def load() -> dict:
    with open(DATA_FILE, encoding="ascii") as handle:
        data = json.load(handle)
    if data.get("format") != FORMAT:
        raise ValueError(f"{DATA_FILE}: format {data.get('format')!r}, expected {FORMAT}; regenerate it")
    return data


def torch_version() -> str:
    return load()["torch"]


def module_record(name: str) -> dict | None:
    return load()["modules"].get(name)


def class_record(qname: str) -> dict | None:
    return load()["classes"].get(qname)


def names(record: dict, key: str) -> list[str]:
    value = record.get(key)
    return value.split() if value else []


@functools.lru_cache(maxsize=None)
def public_names(module_name: str) -> frozenset[str]:
    """Public torch names of a module (empty for a module that is not modelled)."""
    record = module_record(module_name)
    if record is None:
        return frozenset()
    found = {n for key in _PUBLIC_KEYS for n in names(record, key)}
    found.update(n for key in _PUBLIC_MAPS for n in record.get(key, {}))
    for joined in record.get("imp", {}).values():
        found.update(joined.split())
    return frozenset(found)


def has_module(module_name: str) -> bool:
    return module_name in load()["modules"]


def ancestors(class_qname: str) -> list[str]:
    """Modelled base classes of a class, nearest first (e.g. torch.nn.Linear -> [torch.nn.Module])."""
    chain = []
    record = class_record(class_qname)
    while record and record.get("b") and record["b"] not in chain:
        chain.append(record["b"])
        record = class_record(record["b"])
    return chain


def submodules(module_name: str) -> list[str]:
    """Modelled modules below ``module_name`` (all depths), sorted."""
    prefix = module_name + "."
    return sorted(n for n in load()["modules"] if n.startswith(prefix))
