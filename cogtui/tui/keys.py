"""Every key binding, in one table: its id (for `keymap:` in config.yaml), default keys and description.

Screens build their BINDINGS from here, the help screen lists it, `App.set_keymap` remaps any of them by id, and
docs/keys.md's tables are written from it (`python -m tools.keys_doc`: each key's row says its `doc`, or its
description). `main` bindings show in the footer; the rest are listed by help (`?`).
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
    doc: str = ""  # its row's words in docs/keys.md, where the description (the footer's label) is too terse


# The keys guide's tables of the keys that belong to no screen of screens/<name>/ (each of those declares its own
# table: places.ScreenSpec.keys_heading): each table's heading and the key ids' first parts it lists, in order.
KEYS_DOC_TABLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Everywhere", ("app", "help", "modal")),
    ("Browser", ("browser", "filter")),
)


_SPECS: list[KeySpec] = [
    # app-wide
    KeySpec(
        "app.help", "question_mark,f1", "help", "Help", main=True, doc="help: the keys of the focused screen and widget"
    ),
    KeySpec(
        "app.palette",
        "ctrl+p",
        "command_palette",
        "Palette",
        priority=True,
        doc="command palette (every action, every module)",
    ),  # the footer shows it on its own
    KeySpec(
        "app.quit",
        "q",
        "quit",
        "Quit",
        main=True,
        doc="quit (asks when edits are unsaved or runs, evals or golden runs are running; a run is recorded as"
        ' interrupted first; with unsaved edits it names the files and offers "Save all and quit", which has the'
        " focus)",
    ),
    KeySpec("app.force_quit", "ctrl+q", "quit", "Quit", priority=True, doc="quit from anywhere, even a text field"),
    KeySpec(
        "app.theme", "ctrl+t", "pick_theme", "Theme", doc="switch theme (previewed as you move; the choice is saved)"
    ),
    # browser (the keys that open a screen are declared with it: places.py)
    KeySpec("browser.filter", "slash", "filter", "Filter", main=True, doc="filter the tree by name"),
    KeySpec("browser.validate", "v", "validate_all", "Validate all", doc="validate every module again"),
    KeySpec("browser.copy_path", "y", "copy_path", "Copy path (OSC 52)", doc="copy the module's path (OSC 52)"),
    KeySpec(
        "filter.accept", "enter,down", "accept", "Go to first match", doc="filter: back to the tree on the first match"
    ),
    KeySpec(
        "filter.cancel", "escape", "cancel", "Clear filter", doc="filter: clear it (the selected module stays selected)"
    ),
    # editor
    KeySpec(
        "editor.save",
        "ctrl+s",
        "save",
        "Save",
        main=True,
        doc="save (a file changed elsewhere opens the three-way merge)",
    ),
    KeySpec("editor.external", "ctrl+o", "external_editor", "$EDITOR", main=True, doc="open the file in `$EDITOR`"),
    KeySpec(
        "editor.next_diagnostic", "f8", "next_diagnostic", "Next problem", main=True, doc="next problem in this file"
    ),
    KeySpec(
        "editor.diagnostics",
        "ctrl+g",
        "focus_diagnostics",
        "Problems",
        doc="focus the problems list (showing it if hidden)",
    ),
    KeySpec(
        "editor.reload", "ctrl+l", "reload", "Reload from disk", doc="reload from disk (asks when edits would be lost)"
    ),
    KeySpec(
        "editor.close",
        "escape",
        "close",
        "Back",
        main=True,
        doc="back (with unsaved edits it asks: save them all and close, or discard them)",
    ),
    # migration preview
    KeySpec("migrate.apply", "a", "apply", "Apply", main=True, doc="apply (with a backup)"),
    KeySpec("migrate.undo", "u", "undo", "Undo", main=True),
    KeySpec(
        "migrate.layout",
        "s",
        "toggle_layout",
        "Side by side",
        main=True,
        doc="unified / side by side (the footer names the layout it switches to)",
    ),
    KeySpec(
        "migrate.target",
        "t",
        "switch_target",
        "Target v2.2/v2.5",
        doc="target version v2.2 / v2.5 (as `cogn migrate --to`)",
    ),
    KeySpec("migrate.next_file", "j,n", "next_file", "Next file"),
    KeySpec("migrate.prev_file", "k,p", "prev_file", "Previous file"),
    KeySpec("migrate.next_module", "J,ctrl+n", "next_module", "Next module"),
    KeySpec("migrate.prev_module", "K,ctrl+b", "prev_module", "Previous module"),
    KeySpec(
        "migrate.close", "escape", "close", "Back", main=True, doc="back (`cogtui review`: quit, as the footer says)"
    ),
    # modals
    KeySpec("modal.cancel", "escape", "cancel", "Cancel", doc="dialogs: cancel"),
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
    """Every binding of every screen and widget: each registers its keys when its module is first imported, so every
    module of screens/ (its packages' too: a screen's keys are registered by its screen.py, which its package's
    declaration does not import) and widgets/ is imported first (screens/browser.py registers the keys that open
    screens, from their declarations, when it is defined)."""
    import importlib
    import pkgutil

    from . import screens, widgets

    for package in (screens, widgets):
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            importlib.import_module(info.name)
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
