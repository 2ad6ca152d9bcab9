"""Every key binding, in one table: its id (for `keymap:` in config.yaml), default keys and description.

Screens build their BINDINGS from here, the help screen and docs/keys.md list it,
and `App.set_keymap` remaps any of them by id. `main` bindings show in the
footer; the rest are listed by help (`?`).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, NamedTuple

from textual.binding import Binding, BindingType

if TYPE_CHECKING:
    from cogtui.core.settings.config import Config


class KeySpec(NamedTuple):  # a NamedTuple: a tenth of a frozen dataclass's cost to define, at start-up
    id: str
    keys: str
    action: str
    description: str
    main: bool = False
    priority: bool = False


_SPECS: list[KeySpec] = [
    # app-wide
    KeySpec("app.help", "question_mark,f1", "help", "Help", main=True),
    KeySpec("app.palette", "ctrl+p", "command_palette", "Palette", priority=True),  # the footer shows it on its own
    KeySpec("app.quit", "q", "quit", "Quit", main=True),
    KeySpec("app.force_quit", "ctrl+q", "quit", "Quit", priority=True),
    KeySpec("app.theme", "ctrl+t", "pick_theme", "Theme"),
    # browser (the keys that open a screen are declared with it: places.py)
    KeySpec("browser.filter", "slash", "filter", "Filter", main=True),
    KeySpec("browser.validate", "v", "validate_all", "Validate all"),
    KeySpec("browser.copy_path", "y", "copy_path", "Copy path (OSC 52)"),
    KeySpec("filter.accept", "enter,down", "accept", "Go to first match"),
    KeySpec("filter.cancel", "escape", "cancel", "Clear filter"),
    # editor
    KeySpec("editor.save", "ctrl+s", "save", "Save", main=True),
    KeySpec("editor.external", "ctrl+o", "external_editor", "$EDITOR", main=True),
    KeySpec("editor.next_diagnostic", "f8", "next_diagnostic", "Next problem", main=True),
    KeySpec("editor.diagnostics", "ctrl+g", "focus_diagnostics", "Problems"),
    KeySpec("editor.reload", "ctrl+l", "reload", "Reload from disk"),
    KeySpec("editor.close", "escape", "close", "Back", main=True),
    # migration preview
    KeySpec("migrate.apply", "a", "apply", "Apply", main=True),
    KeySpec("migrate.undo", "u", "undo", "Undo", main=True),
    KeySpec("migrate.layout", "s", "toggle_layout", "Side by side", main=True),
    KeySpec("migrate.target", "t", "switch_target", "Target v2.2/v2.5"),
    KeySpec("migrate.next_file", "j,n", "next_file", "Next file"),
    KeySpec("migrate.prev_file", "k,p", "prev_file", "Previous file"),
    KeySpec("migrate.next_module", "J,ctrl+n", "next_module", "Next module"),
    KeySpec("migrate.prev_module", "K,ctrl+b", "prev_module", "Previous module"),
    KeySpec("migrate.close", "escape", "close", "Back", main=True),
    # modals
    KeySpec("modal.cancel", "escape", "cancel", "Cancel"),
]

SPECS: dict[str, KeySpec] = {s.id: s for s in _SPECS}


def binding(spec_id: str) -> Binding:
    s = SPECS[spec_id]
    return Binding(
        s.keys, s.action, s.description, show=s.main, priority=s.priority, id=s.id, tooltip=f"{s.description} ({s.id})"
    )


def bindings(*ids: str) -> list[BindingType]:
    return [binding(i) for i in ids]


def register(*specs: KeySpec) -> None:
    """Screens of later features add their keys here at import time."""
    for s in specs:
        if s.id not in SPECS:
            _SPECS.append(s)
            SPECS[s.id] = s


def withdraw(spec_id: str) -> None:
    """A key registered for a while no longer is (a test's stand-in screen, places.registered)."""
    if SPECS.pop(spec_id, None) is not None:
        _SPECS[:] = [s for s in _SPECS if s.id != spec_id]


def all_specs() -> list[KeySpec]:
    return list(_SPECS)


def every_spec() -> list[KeySpec]:
    """Every binding of every screen and widget: each registers its keys when its module is first imported."""
    import importlib
    import pkgutil

    from . import screens, widgets

    for package in (screens, widgets):
        for info in pkgutil.iter_modules(package.__path__):
            importlib.import_module(f"{package.__name__}.{info.name}")
    return all_specs()


MODIFIERS = frozenset({"ctrl", "shift", "alt", "meta", "super", "hyper"})


def is_key(key: str) -> bool:
    """Whether a key press can have this name in Textual: modifiers (lowercase) then one character, a named key
    (escape, f2, pagedown, ...) or the name Textual gives a punctuation character (slash, question_mark)."""
    *modifiers, name = key.split("+")
    if not name or any(m not in MODIFIERS for m in modifiers):
        return False
    return len(name) == 1 or name in _key_names()


@functools.cache
def _key_names() -> frozenset[str]:
    import string
    import unicodedata

    from textual.keys import KEY_NAME_REPLACEMENTS, Keys

    named = {k.value.rsplit("+", 1)[-1] for k in Keys} | {"enter", "tab", "space"}
    for char in string.punctuation:  # as Textual names them: the Unicode name, lowercase, with its replacements
        unicode_name = unicodedata.name(char).lower().replace("-", "_").replace(" ", "_")
        named.add(KEY_NAME_REPLACEMENTS.get(unicode_name, unicode_name))
    return frozenset(named)


def keymap_problems(config: Config) -> list[str]:
    """config.yaml's keymap entries with unknown ids, keys no key press has, or keys two bindings now share, one
    located line each."""
    from cogtui.core.settings.keymap_check import keymap_problems as check

    if not config.keymap:
        return []
    specs = [(s.id, s.keys) for s in every_spec()]
    return [str(p) for p in check(config.keymap, specs, config.keymap_where, is_key)]
