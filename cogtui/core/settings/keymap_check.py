"""What is wrong with the `keymap:` of config.yaml: entries naming no binding, and keys two bindings now share.

The bindings themselves belong to the TUI (`cogtui.tui.keys`); it passes them
here as (id, default keys) pairs, so this rule stays headless and testable.
A binding's id is `scope.name`: bindings of one scope are active together, and
`app.*` bindings are active everywhere, so a key taken twice within a scope,
or by a scope's binding and an app-wide one, makes one of them unreachable.
Only clashes that involve a remapped binding are reported: the defaults'
deliberate overlaps (escape closes every screen) are not the user's doing.
Textual's `set_keymap` silently ignores an unknown id and lets the first
binding of a clash win; reporting both is the point: a remap that does
nothing would otherwise go unnoticed (TUI-14).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

APP_SCOPE = "app"


@dataclass(frozen=True)
class KeymapProblem:
    where: str  # "config.yaml:LINE:COL" of the entry, or "" when unknown
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message


def split_keys(keys: str) -> list[str]:
    """`"j, n"` -> ["j", "n"]: Textual's comma-separated key list, blanks dropped."""
    return [k.strip() for k in keys.split(",") if k.strip()]


def _scope(binding_id: str) -> str:
    return binding_id.split(".", 1)[0]


def _share_a_screen(a: str, b: str) -> bool:
    return _scope(a) == _scope(b) or APP_SCOPE in (_scope(a), _scope(b))


def keymap_problems(
    keymap: Mapping[str, str],
    bindings: Iterable[tuple[str, str]],
    where: Mapping[str, str] | None = None,
    is_key: Callable[[str], bool] | None = None,
) -> list[KeymapProblem]:
    """Every problem of `keymap` (binding id -> keys) against `bindings` ((id, default keys) pairs); with
    `is_key` (the TUI's: which names a terminal key can have), keys no key press would ever match."""
    where = where or {}
    defaults = dict(bindings)
    problems: list[KeymapProblem] = []
    for binding_id, keys in keymap.items():
        if binding_id not in defaults:
            close = difflib.get_close_matches(binding_id, list(defaults), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else "; `cogtui doctor` lists the problems, `?` the ids"
            problems.append(
                KeymapProblem(where.get(binding_id, ""), f"keymap.{binding_id}: no key binding has this id{hint}")
            )
        elif not split_keys(keys):
            problems.append(KeymapProblem(where.get(binding_id, ""), f"keymap.{binding_id}: no key given"))
        elif is_key is not None:
            for key in (k for k in split_keys(keys) if not is_key(k)):
                problems.append(
                    KeymapProblem(
                        where.get(binding_id, ""),
                        f"keymap.{binding_id}: {key!r} is no key a terminal sends, so the binding would never "
                        "fire (key names are lowercase, modifiers first: ctrl+f, shift+tab, alt+right, f2, slash)",
                    )
                )
    effective = {b: split_keys(keymap[b]) if b in keymap else split_keys(k) for b, k in defaults.items()}
    reported: set[tuple[str, str, str]] = set()
    for remapped in (b for b in keymap if b in defaults):
        for other, other_keys in effective.items():
            if other == remapped or not _share_a_screen(remapped, other):
                continue
            for key in effective[remapped]:
                pair = tuple(sorted((remapped, other)))
                if key in other_keys and (pair[0], pair[1], key) not in reported:
                    reported.add((pair[0], pair[1], key))
                    problems.append(
                        KeymapProblem(
                            where.get(remapped, ""),
                            f"keymap.{remapped}: {key!r} is also the key of {other}; only one of them can have it",
                        )
                    )
    return problems
