"""Values computed once per process from the shipped data, which the engine snapshot carries along.

`@kept` is `functools.lru_cache(maxsize=1)` for a function of no arguments whose value depends
on npu-lint's own code and data only (the release facts, the operator tables): what making an
engine computes, and what checks ask for again while they run. The engine snapshot saves the
values computed when it was made (`computed()`) and a later process takes them back
(`restore`), so a check does not rebuild, in each new process, a table the snapshot's engine
already holds. Nothing that depends on the user's files or environment may be kept.
"""
from __future__ import annotations

import functools
from typing import Callable, TypeVar

T = TypeVar("T")

_VALUES: dict[str, object] = {}  # qualified function name -> its value, once computed
_FUNCTIONS: list[Callable[[], object]] = []  # every kept function, in the order defined


def kept(function: Callable[[], T]) -> Callable[[], T]:
    key = f"{function.__module__}.{function.__qualname__}"

    @functools.wraps(function)
    def value() -> T:
        try:
            return _VALUES[key]  # type: ignore[return-value]
        except KeyError:
            result = _VALUES[key] = function()
            return result

    value.cache_clear = lambda: _VALUES.pop(key, None)  # type: ignore[attr-defined]
    _FUNCTIONS.append(value)
    return value


def every_value() -> dict[str, object]:
    """Every kept value of the modules imported so far, computed now where not yet: the tables
    a check reads while it runs (the torch.cuda surface, argument roles) come along with the
    engine's own."""
    for function in _FUNCTIONS:
        try:
            function()
        except Exception:  # pylint: disable=broad-except  # a bad table fails where it is read, as before
            continue
    return dict(_VALUES)


def restore(values: dict[str, object]) -> None:
    """Take values computed by another process with the same code and data; those this process
    computed already stay (objects the engine and the checks share must stay one)."""
    for key, value in values.items():
        _VALUES.setdefault(key, value)
