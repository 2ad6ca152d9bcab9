"""Records: the `@dataclass` of the core's start-up paths, made without compiling code.

It is there for the start-up time of every command (bench/ab_installs.py weighs such a change):
Python 3.11's `dataclasses` writes each class's `__init__`, `__repr__`, `__eq__`,
`__hash__`, `__setattr__` and `__delattr__` as source text and compiles them one by
one, and importing `dataclasses` pulls in `inspect`, `ast`, `dis` and `tokenize`.
A record declares its fields the same way (annotations, defaults, `field(...)`),
and gets the same behaviour from methods shared by every record, which read the
class's field table: keyword and positional construction with defaults and
default factories, `__post_init__`, a repr of the fields, equality field by field
(`compare=False` fields left out), and for frozen records (the default) a hash of
the compared fields and no assignment after construction (`FrozenInstanceError`,
an `AttributeError`). A mutable record (`frozen=False`) is unhashable, as a
dataclass is. `replace` and `asdict` do what `dataclasses`' functions do.

Construction is slower per object than a dataclass's compiled `__init__`: records
are for values made a few hundred times per command at most (modules, files,
diagnostics, settings), not for values made per streamed chunk.
Type checkers see a dataclass (`dataclass_transform`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, TypeVar, dataclass_transform, overload

__all__ = ["FrozenInstanceError", "asdict", "field", "record", "record_fields", "replace"]

T = TypeVar("T")
_MISSING: Any = object()
_TABLE = "__record_fields__"  # the class attribute holding its fields, in order


class FrozenInstanceError(AttributeError):
    """Assignment to a field of a frozen record (as `dataclasses.FrozenInstanceError`)."""


class Field(NamedTuple):
    """One field of a record, as `field(...)` declared it (the name is set when the class is made)."""

    name: str
    default: Any = _MISSING
    default_factory: Callable[[], Any] | None = None
    repr: bool = True
    compare: bool = True


def field(
    *,
    default: Any = _MISSING,
    default_factory: Callable[[], Any] | None = None,
    repr: bool = True,
    compare: bool = True,
) -> Any:
    """A field's options, as `dataclasses.field`: a default or a factory for it, and whether repr and == use it."""
    if default is not _MISSING and default_factory is not None:
        raise ValueError("cannot specify both default and default_factory")
    return Field("", default, default_factory, repr, compare)


@overload
def record(cls: type[T], /) -> type[T]: ...


@overload
def record(*, frozen: bool = True) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def record(cls: type[T] | None = None, /, *, frozen: bool = True) -> Any:
    """`@record` (frozen) or `@record(frozen=False)` on a class with annotated fields."""

    def make(klass: type[T]) -> type[T]:
        return _make(klass, frozen)

    return make if cls is None else make(cls)


def _make(cls: type[T], frozen: bool) -> type[T]:
    own = cls.__dict__
    table: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:]):  # fields of record bases first, in their order, as dataclasses
        table.update((f.name, f) for f in base.__dict__.get(_TABLE, ()))
    for name, annotation in own.get("__annotations__", {}).items():
        if _is_class_var(annotation):
            continue
        declared = own.get(name, _MISSING)
        spec = declared._replace(name=name) if isinstance(declared, Field) else Field(name, declared)
        if spec.default is not _MISSING and type(spec.default).__hash__ is None:  # unhashable: mutable
            raise ValueError(
                f"mutable default {type(spec.default).__name__} for field {name} is not allowed: use field()"
            )
        if spec.default is _MISSING and name in own:
            delattr(cls, name)  # a factory's field: no class attribute, as with dataclasses
        elif spec.default is not _MISSING:
            setattr(cls, name, spec.default)
        table[name] = spec
    after_default = None
    for f in table.values():
        has_default = f.default is not _MISSING or f.default_factory is not None
        if not has_default and after_default is not None:
            raise TypeError(f"non-default argument {f.name!r} follows default argument {after_default!r}")
        after_default = f.name if has_default else after_default
    setattr(cls, _TABLE, tuple(table.values()))
    if "__match_args__" not in own:
        cls.__match_args__ = tuple(table)  # type: ignore[attr-defined, misc]
    for method in ("__init__", "__repr__", "__eq__"):
        if method not in own:
            setattr(cls, method, _METHODS[method])
    if frozen:
        cls.__setattr__ = _frozen_setattr  # type: ignore[method-assign]
        cls.__delattr__ = _frozen_delattr  # type: ignore[method-assign]
    class_hash = own.get("__hash__", _MISSING)
    if class_hash is _MISSING or (class_hash is None and "__eq__" in own):  # no __hash__ of its own
        cls.__hash__ = _hash if frozen else None  # type: ignore[assignment, method-assign]
    return cls


def _is_class_var(annotation: Any) -> bool:
    text = annotation if isinstance(annotation, str) else getattr(annotation, "__qualname__", "") or repr(annotation)
    return str(text).replace("typing.", "").startswith("ClassVar")


def record_fields(obj_or_class: Any) -> tuple[Field, ...]:
    """The fields of a record (class or instance), in order."""
    table: tuple[Field, ...] | None = getattr(obj_or_class, _TABLE, None)
    if table is None:
        raise TypeError(f"{obj_or_class!r} is not a record")
    return table


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of the record `obj` with `changes` (as `dataclasses.replace`; `__post_init__` runs again)."""
    for f in record_fields(obj):
        changes.setdefault(f.name, getattr(obj, f.name))
    return type(obj)(**changes)


def asdict(obj: Any) -> dict[str, Any]:
    """The record as a dict, records, lists, tuples and dicts in it copied the same way (as `dataclasses.asdict`)."""
    return {f.name: _copied(getattr(obj, f.name)) for f in record_fields(obj)}


def _copied(value: Any) -> Any:
    if hasattr(type(value), _TABLE):
        return asdict(value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a named tuple keeps its type
        return type(value)(*(_copied(v) for v in value))
    if isinstance(value, (list, tuple)):
        return type(value)(_copied(v) for v in value)
    if isinstance(value, Mapping):
        return type(value)((_copied(k), _copied(v)) for k, v in value.items())  # type: ignore[call-arg]
    return value


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    fields: tuple[Field, ...] = getattr(type(self), _TABLE)
    given = len(args)
    if given > len(fields):
        raise TypeError(f"{type(self).__name__}() takes {len(fields)} positional arguments but {given} were given")
    put = object.__setattr__
    for f, value in zip(fields, args, strict=False):  # args may be fewer
        if f.name in kwargs:
            raise TypeError(f"{type(self).__name__}() got multiple values for argument {f.name!r}")
        put(self, f.name, value)
    for f in fields[given:]:
        if f.name in kwargs:
            put(self, f.name, kwargs.pop(f.name))
        elif f.default is not _MISSING:
            put(self, f.name, f.default)
        elif f.default_factory is not None:
            put(self, f.name, f.default_factory())
        else:
            raise TypeError(f"{type(self).__name__}() missing 1 required argument: {f.name!r}")
    if kwargs:
        raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument {next(iter(kwargs))!r}")
    post = getattr(self, "__post_init__", None)
    if post is not None:
        post()


def _repr(self: Any) -> str:
    shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in record_fields(self) if f.repr)
    return f"{type(self).__qualname__}({shown})"


def _compared(obj: Any) -> tuple[Any, ...]:
    return tuple(getattr(obj, f.name) for f in record_fields(obj) if f.compare)


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is not self.__class__:
        return NotImplemented
    return _compared(self) == _compared(other)


def _hash(self: Any) -> int:
    return hash(_compared(self))


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


_METHODS = {"__init__": _init, "__repr__": _repr, "__eq__": _eq}
