"""Records: dataclasses whose methods are shared functions instead of code compiled per class.

Python before 3.13 compiles a dataclass's ``__init__``, ``__repr__``, ``__eq__``, ``__hash__``,
``__setattr__`` and ``__delattr__`` (and four more with ``order``) with one ``exec`` each. npu-lint
defines about fifty such classes at import, and those compiles were a fifth of the instructions of
``npu-lint check`` on one small script. A record behaves as ``dataclasses.dataclass`` with the same
arguments does (tests/test_records.py compares the two), and ``dataclasses.fields``, ``replace``
and ``asdict`` work on it: the class still goes through ``dataclasses`` to collect its fields, with
the code generation turned off, and the methods come from the closures below.
"""

from __future__ import annotations

import dataclasses
import operator
import reprlib
from typing import Any, Callable, TypeVar

T = TypeVar("T")

_MISSING = dataclasses.MISSING


def record(cls: type[T] | None = None, /, *, frozen: bool = False, eq: bool = True,
           order: bool = False) -> Any:
    """``@record(frozen=True)`` where one would write ``@dataclasses.dataclass(frozen=True)``."""
    def wrap(cls: type[T]) -> type[T]:
        return _make_record(cls, frozen=frozen, eq=eq, order=order)
    return wrap if cls is None else wrap(cls)


def _make_record(cls: type, *, frozen: bool, eq: bool, order: bool) -> type:
    if order and not eq:
        raise ValueError("eq must be true if order is true")
    if not cls.__dict__.get("__doc__"):
        cls.__doc__ = cls.__name__  # spares dataclasses an inspect.signature for the doc
    cls = dataclasses.dataclass(cls, init=False, repr=False, eq=False)
    fields = dataclasses.fields(cls)
    compared = tuple(field.name for field in fields if field.compare)
    own = cls.__dict__
    # A class that defines __eq__ gets __hash__ = None from Python itself: not its own choice.
    explicit_hash = "__hash__" in own and not (own["__hash__"] is None and "__eq__" in own)
    _set_new(cls, "__init__", _initializer(cls, fields, frozen))
    _set_new(cls, "__repr__", _representer(tuple(field.name for field in fields if field.repr)))
    values = _values_getter(compared)  # what equality and order compare
    if eq:
        _set_new(cls, "__eq__", _comparer(values, lambda a, b: a == b))
        if frozen and not explicit_hash:
            hashed = _values_getter(tuple(field.name for field in fields
                                          if (field.compare if field.hash is None else field.hash)))
            cls.__hash__ = lambda self: hash(hashed(self))
        elif not explicit_hash:
            cls.__hash__ = None  # as dataclasses: equal by value, so not hashable unless frozen
    if order:
        for name, compare in (("__lt__", lambda a, b: a < b), ("__le__", lambda a, b: a <= b),
                              ("__gt__", lambda a, b: a > b), ("__ge__", lambda a, b: a >= b)):
            if name in own:
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}. "
                                "Consider using functools.total_ordering")
            setattr(cls, name, _comparer(values, compare))
    if frozen:
        _freeze(cls, frozenset(field.name for field in fields))
    return cls


def _set_new(cls: type, name: str, function: Callable) -> None:
    """Add a method unless the class defines its own, as dataclasses does."""
    if name not in cls.__dict__:
        function.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, function)


def _values_getter(names: tuple[str, ...]) -> Callable[[Any], tuple]:
    """The tuple of those fields that equality, order and hash compare, as dataclasses does."""
    if len(names) > 1:
        return operator.attrgetter(*names)  # gives the tuple itself, in C
    if names:
        get = operator.attrgetter(names[0])
        return lambda self: (get(self),)
    return lambda self: ()


def _comparer(values: Callable[[Any], tuple], compare: Callable[[tuple, tuple], bool]) -> Callable:
    def method(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return compare(values(self), values(other))
        return NotImplemented
    return method


def _initializer(cls: type, fields: tuple[dataclasses.Field, ...], frozen: bool) -> Callable:
    """One ``__init__`` for every record: binds arguments to fields in order, fills defaults,
    calls each default factory once per instance, and then ``__post_init__``."""
    _check_default_order(cls, fields)
    parameters = tuple(field.name for field in fields if field.init)
    known = frozenset(parameters)
    defaults = {field.name: field.default for field in fields if field.default is not _MISSING}
    factories = {field.name: field.default_factory for field in fields
                 if field.default_factory is not _MISSING}
    names = tuple(field.name for field in fields)
    post_init = getattr(cls, "__post_init__", None)
    count = len(parameters)
    everything_an_argument = names == parameters and not factories
    # Writing the instance's dict at once is what a frozen record must do anyway (its own
    # __setattr__ refuses); a class with its own __setattr__ or __slots__ gets setattr, as a
    # dataclass's __init__ would call it.
    whole_dict = (frozen or cls.__setattr__ is object.__setattr__) and "__slots__" not in cls.__dict__
    set_value = object.__setattr__ if frozen else setattr

    def bind(args: tuple, kwargs: dict) -> dict:
        if len(args) > count:
            raise TypeError(f"__init__() takes {count + 1} positional arguments "
                            f"but {len(args) + 1} were given")
        given = dict(zip(parameters, args))
        for name in kwargs:
            if name not in known:
                raise TypeError(f"__init__() got an unexpected keyword argument {name!r}")
            if name in given:
                raise TypeError(f"__init__() got multiple values for argument {name!r}")
        given.update(kwargs)
        values = {}
        for name in names:
            if name in given:
                values[name] = given[name]
            elif name in factories:
                values[name] = factories[name]()
            elif name in known:
                if name not in defaults:
                    raise TypeError(f"__init__() missing 1 required positional argument: "
                                    f"{name!r}")
                values[name] = defaults[name]
            # else a field outside __init__ with a plain default: the class attribute serves
        return values

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if everything_an_argument and not kwargs and len(args) == count:
            values = dict(zip(parameters, args))  # the common calls: every field given
        elif everything_an_argument and not args and len(kwargs) == count and known.issuperset(kwargs):
            values = kwargs
        else:
            values = bind(args, kwargs)
        if whole_dict:
            self.__dict__.update(values)
        else:
            for name, value in values.items():
                set_value(self, name, value)
        if post_init is not None:
            post_init(self)

    return __init__


def _check_default_order(cls: type, fields: tuple[dataclasses.Field, ...]) -> None:
    seen_default = False
    for field in fields:
        if not field.init:
            continue
        has_default = field.default is not _MISSING or field.default_factory is not _MISSING
        if seen_default and not has_default:
            raise TypeError(f"non-default argument {field.name!r} follows default argument "
                            f"in {cls.__name__}")
        seen_default = seen_default or has_default


def _representer(names: tuple[str, ...]) -> Callable:
    @reprlib.recursive_repr()
    def __repr__(self: Any) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{self.__class__.__qualname__}({shown})"
    return __repr__


def _freeze(cls: type, names: frozenset[str]) -> None:
    for name in ("__setattr__", "__delattr__"):
        if name in cls.__dict__:
            raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    _set_new(cls, "__setattr__", __setattr__)
    _set_new(cls, "__delattr__", __delattr__)
