"""Places one can go to, and the screens that open them: `Navigate(place)` carries a place (messages.py).

Each screen is a package of cogtui/tui/screens/ whose `__init__.py` declares it: its place, a small frozen
`@record` (core/records.py: cheap to define, as start-up wants) subclassing `Place`, and `SPEC = ScreenSpec(...)`.
The spec says, without importing the screen: the screen's class ("module:Class", imported when first opened, since
a screen's module reads its stylesheet and pulls in its widgets), how it opens (a function of navigation.py for a
screen with rules of its own, else one screen per place, pushed), the browser key that opens it, its palette entries
the place the scene of `make screenshots` and the snapshot tests goes to, and the table of its keys in docs/keys.md.
Every surface reads it: navigation.go, the browser's bindings and actions, the palette (commands.py), the keys
(keys.py; tools/keys_doc.py writes docs/keys.md's tables from them) and tools/screenshots.py. Adding a screen is its package (declaration, screen, stylesheet), its state and its tests
(tests/tui/test_screen_registry.py registers a stand-in and checks each surface).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cogtui.core.records import record

from .keys import SPECS, KeySpec, register, withdraw


class Place:
    """Where `Navigate` goes: each screen's place is a frozen `@record` subclassing this, declared with its spec."""


@record
class ScreenSpec:
    """One screen, declared: how to reach it from the browser, the palette and the screenshots."""

    name: str  # the palette's and the scene's name ("history"); the browser key's id is browser.<key_name>
    place: type[Place]
    screen: str  # "cogtui.tui.screens.history.screen:HistoryScreen", imported when first opened
    # "module:function" called (app, *the place's fields) for a screen with rules of its own (navigation.py); None:
    # one screen per place, pushed as `Screen(*the place's fields)`, or gone back to when it is on the stack.
    opener: str | None = None
    order: int = 100  # its key's and palette entries' position among the screens' (lower first)
    # The place for the module (path, name) selected in the browser or named in the palette; None: no such place.
    for_module: Callable[[Path, str], Place] | None = None
    # The place that needs no module, given every module's path (the browser key with `key_on_module=False`).
    anywhere: Callable[[tuple[Path, ...]], Place] | None = None
    key: str | None = None  # the browser's default keys that open it ("h"), remappable by the id below
    key_name: str = ""  # the key id's last part: browser.<key_name> (default: the name)
    key_label: str = ""  # the footer's and help's words for it
    key_doc: str = ""  # its row's words in docs/keys.md's browser table (else the label's)
    main_key: bool = False  # shown in the browser's footer
    key_on_module: bool = True  # the key opens `for_module` of the selected module (else `anywhere`)
    palette_module: tuple[str, str] | None = None  # ("History of {name}", help): one palette entry per module
    palette_anywhere: tuple[str, str] | None = None  # ("Insights dashboard", help): one palette entry
    # The place its screenshot scene (`make screenshots` and tests/tui/test_snapshots.py) goes to, given the folder of
    # the bundled modules; what the scene does there beyond waiting for the screen and its workers (typing, frozen
    # timings) is tools/screenshots.py's, under this spec's name. None: no scene (no key or palette entry opens it).
    scene: Callable[[Path], Place] | None = None
    # The table of its own keys in docs/keys.md (`python -m tools.keys_doc` writes it): its heading ("" for none)
    # and the first parts of the key ids it lists, in order (default: the name; the editor's lists its widgets' too).
    keys_heading: str = ""
    key_groups: tuple[str, ...] = ()

    @property
    def key_spec(self) -> KeySpec | None:
        if self.key is None:
            return None
        return KeySpec(
            f"browser.{self.key_name or self.name}",
            self.key,
            f"go({self.name!r})",
            self.key_label,
            main=self.main_key,
            doc=self.key_doc,
        )

    def screen_class(self) -> type[Any]:
        module, _, name = self.screen.partition(":")
        kind: type[Any] = getattr(importlib.import_module(module), name)
        return kind


_found: list[ScreenSpec] | None = None  # the package's declarations, found once per process
_added: list[ScreenSpec] = []  # specs registered from outside the package (tests' stand-ins)


SCREENS = os.path.join(os.path.dirname(__file__), "screens")


def _discover() -> list[ScreenSpec]:
    """Every package of screens/ that declares `SPEC` (or `SPECS`); their keys join keys.py's table."""
    found = list[ScreenSpec]()
    for entry in sorted(os.scandir(SCREENS), key=lambda e: e.name):
        if not os.path.isfile(os.path.join(entry.path, "__init__.py")):
            continue
        module = importlib.import_module(f"{__package__}.screens.{entry.name}")
        declared = getattr(module, "SPECS", None) or (getattr(module, "SPEC", None),)
        found.extend(spec for spec in declared if isinstance(spec, ScreenSpec))
    found.sort(key=lambda s: s.order)
    register(*(key for spec in found if (key := spec.key_spec) is not None))
    return found


def specs() -> list[ScreenSpec]:
    """Every screen, in order (their keys' and palette entries' order)."""
    global _found
    if _found is None:
        _found = _discover()
    return sorted([*_found, *_added], key=lambda s: s.order)


def spec_of(place: Place) -> ScreenSpec:
    """The spec whose place `place` is."""
    for spec in specs():
        if type(place) is spec.place:
            return spec
    raise LookupError(f"no screen declares the place {type(place).__name__}")


def named(name: str) -> ScreenSpec:
    for spec in specs():
        if spec.name == name:
            return spec
    raise LookupError(f"no screen is declared as {name!r}")


@contextmanager
def registered(*added: ScreenSpec) -> Iterator[None]:
    """Screens declared outside the package for the block's duration (the tests' stand-ins): every surface that
    lists screens sees them, as it sees the package's own (a class's bindings are made once, when it is defined:
    the browser's keys are `browser_keys()` as the browser was defined)."""
    taken = [spec.name for spec in added if spec.name in {s.name for s in specs()}]
    taken += [key.id for spec in added if (key := spec.key_spec) is not None and key.id in SPECS]
    if taken:
        raise ValueError(f"a screen or key named {', '.join(taken)} exists already")
    _added.extend(added)
    for spec in added:
        if (key := spec.key_spec) is not None:
            register(key)
    try:
        yield
    finally:
        for spec in added:
            _added.remove(spec)
            if (key := spec.key_spec) is not None:
                withdraw(key.id)


def browser_keys() -> list[tuple[ScreenSpec, KeySpec]]:
    """The keys that open screens from the browser, with the screens they open, in order."""
    return [(spec, key) for spec in specs() if (key := spec.key_spec) is not None]


__all__ = ["Place", "ScreenSpec", "browser_keys", "named", "registered", "spec_of", "specs"]
