"""Imports the `npu-lint` process would pay for at start and never use, deferred to first use.

Imported first by the CLI, before anything imports astroid. astroid imports `importlib.metadata`
when it loads (a numpy brain asks it for numpy's version, only when numpy code is inferred); with
the `email`, `zipfile` and `csv` modules it pulls in, that import is about 8% of a one-file
`npu-lint check`. Here it becomes the standard library's lazy module: the real module, executed the
first time any of its attributes is read (npu-lint's own analysis of installed libraries reads it,
when a run gets there). Inside pylint and flake8 the module is loaded before npu-lint is, and this
changes nothing.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys

DEFERRED = ("importlib.metadata",)


def defer(name: str) -> None:
    """Make `name` a module that loads itself on its first attribute read, unless it is loaded."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        return
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, module)  # `from importlib import metadata` finds it
    spec.loader.exec_module(module)


for _name in DEFERRED:
    defer(_name)
