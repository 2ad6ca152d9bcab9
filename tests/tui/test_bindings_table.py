"""Every Binding of every screen, widget and the app comes from the one keys table (keys.py), with its id."""

from __future__ import annotations

from textual.binding import Binding
from tuikit import tui_node_classes

import cogtui.tui.app
from cogtui.tui.keys import SPECS


def test_every_binding_has_an_id_from_the_table_with_its_keys_and_action() -> None:
    classes = [cls for cls in tui_node_classes() if "BINDINGS" in vars(cls)]
    assert cogtui.tui.app.CogtuiApp in classes and len(classes) > 5  # the scan found the app and the screens
    problems = []
    for cls in classes:
        for b in vars(cls)["BINDINGS"]:
            if not isinstance(b, Binding) or b.id is None:
                problems.append(f"{cls.__qualname__}: {b!r} has no id")
            elif b.id not in SPECS:
                problems.append(f"{cls.__qualname__}: {b.id} is not in keys.py's table")
            elif (b.key, b.action) != (SPECS[b.id].keys, SPECS[b.id].action):
                problems.append(f"{cls.__qualname__}: {b.id} differs from the table")
    assert not problems, "\n".join(problems)
