"""Records (cogtui/core/records.py) behave as the dataclasses they replace: each check declares one class twice,
once with `dataclasses.dataclass` and once with `record`, and compares what the two do."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from typing import Any, ClassVar, Generic, TypeVar

import pytest

from cogtui.core.records import FrozenInstanceError, asdict, field, record, record_fields, replace

T = TypeVar("T")


def both(frozen: bool = True) -> tuple[type[Any], type[Any]]:
    """The same declaration as a dataclass and as a record."""

    def declare(decorate: Any, make_field: Any) -> type[Any]:
        class Point:
            """A point with a label."""

            x: int
            y: int = 0
            tags: list[str] = make_field(default_factory=list)
            note: str = make_field(default="", repr=False, compare=False)
            kind: ClassVar[str] = "point"

        return decorate(Point)

    return (declare(dataclasses.dataclass(frozen=frozen), dataclasses.field), declare(record(frozen=frozen), field))


@pytest.mark.parametrize("frozen", [True, False])
def test_construction_repr_and_equality_are_the_dataclass_ones(frozen: bool) -> None:
    plain, ours = both(frozen)
    for args, kwargs in [((1,), {}), ((1, 2), {}), ((), {"x": 3, "tags": ["a"]}), ((1,), {"note": "n", "y": 5})]:
        a, b = plain(*args, **kwargs), ours(*args, **kwargs)
        assert repr(a) == repr(b) and (b.x, b.y, b.tags, b.note) == (a.x, a.y, a.tags, a.note)
    assert ours(1, tags=["t"]) == ours(1, tags=["t"], note="other")  # note: compare=False
    assert ours(1) != ours(2) and ours(1) != plain(1)  # another class is never equal
    assert ours(1).tags is not ours(1).tags  # a factory per object
    assert ours.kind == "point" and "kind" not in [f.name for f in record_fields(ours)]
    assert ours.__match_args__ == plain.__match_args__ == ("x", "y", "tags", "note")
    match ours(4, 5):
        case ours(x, y):
            assert (x, y) == (4, 5)


@pytest.mark.parametrize("frozen", [True, False])
def test_wrong_arguments_raise_the_type_errors_a_call_would(frozen: bool) -> None:
    plain, ours = both(frozen)
    calls: list[tuple[tuple[object, ...], dict[str, object]]] = [
        ((), {}),
        ((1, 2, [], "", 5), {}),
        ((1,), {"x": 2}),
        ((1,), {"z": 2}),
    ]
    for args, kwargs in calls:
        with pytest.raises(TypeError):
            plain(*args, **kwargs)
        with pytest.raises(TypeError):
            ours(*args, **kwargs)


def test_a_frozen_record_refuses_assignment_and_hashes_its_compared_fields() -> None:
    _, ours = both(frozen=True)
    p = ours(1, 2, ("a",), note="x")
    for change in (lambda: setattr(p, "x", 5), lambda: delattr(p, "y"), lambda: setattr(p, "new", 1)):
        with pytest.raises(FrozenInstanceError):
            change()
    assert isinstance(FrozenInstanceError(), AttributeError)
    assert hash(p) == hash(ours(1, 2, ("a",), note="y")) == hash((1, 2, ("a",)))


def test_a_mutable_record_can_change_and_is_unhashable_as_a_dataclass_is() -> None:
    plain, ours = both(frozen=False)
    p = ours(1)
    p.x = 7
    assert p.x == 7
    assert plain.__hash__ is None and ours.__hash__ is None


def test_post_init_replace_and_asdict() -> None:
    @record
    class Inner:
        a: int

    @record
    class Outer:
        inner: Inner
        items: tuple[Inner, ...]
        by_name: dict[str, Inner]
        doubled: int = 0

        def __post_init__(self) -> None:
            object.__setattr__(self, "doubled", self.inner.a * 2)

    o = Outer(Inner(1), (Inner(2),), {"k": Inner(3)})
    assert o.doubled == 2
    changed = replace(o, inner=Inner(5))
    assert (changed.doubled, changed.items, o.inner) == (10, o.items, Inner(1))  # __post_init__ ran again
    assert asdict(o) == {"inner": {"a": 1}, "items": ({"a": 2},), "by_name": {"k": {"a": 3}}, "doubled": 2}
    with pytest.raises(TypeError):
        replace(o, nothing=1)
    with pytest.raises(TypeError):
        record_fields(object())


def test_an_explicit_hash_is_kept_and_bases_fields_come_first() -> None:
    @record
    class Base:
        a: int
        b: int = 1

        def __hash__(self) -> int:
            return 42

    @record
    class Child(Base):
        c: int = 2
        b: int = 9  # redeclared: keeps its place

    assert hash(Base(0)) == 42
    assert [f.name for f in record_fields(Child)] == ["a", "b", "c"]
    assert repr(Child(0)) == "test_an_explicit_hash_is_kept_and_bases_fields_come_first.<locals>.Child(a=0, b=9, c=2)"


def test_declarations_dataclasses_refuse_are_refused() -> None:
    with pytest.raises(ValueError, match="mutable default"):

        @record
        class Shared:
            items: list[int] = []  # noqa: RUF012

    with pytest.raises(TypeError, match="non-default argument"):

        @record
        class Order:
            a: int = 0
            b: int  # type: ignore[misc]

    with pytest.raises(ValueError):
        field(default=1, default_factory=list)


def test_a_generic_record_takes_a_type_argument() -> None:
    @record
    class Box(Generic[T]):
        value: T

    assert Box[int](3) == Box(3) and Box[str]("a").value == "a"  # typing's __orig_class__ meets the frozen guard


def test_a_one_module_validate_imports_neither_dataclasses_nor_inspect(tmp_path: Any) -> None:
    """The point of records: the validate path makes its classes without `dataclasses` (and its `inspect`)."""
    code = (
        "import sys, cogtui.cli as c\n"
        "code = c.main(['--path', sys.argv[1], 'validate', 'code-reviewer'])\n"
        "print(code, sorted(m for m in ('dataclasses', 'inspect') if m in sys.modules))\n"
    )
    modules = str(__import__("pathlib").Path(__file__).resolve().parents[1] / "modules")
    out = subprocess.run(
        [sys.executable, "-c", code, modules], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert out.stdout.split("\n")[-2] == "0 []", out.stdout + out.stderr
