"""The editor: a module's files in tabs, checked as you type (its screen: screen.py)."""

from __future__ import annotations

from pathlib import Path

from cogtui.core.records import record

from ...places import Place, ScreenSpec


@record
class EditModule(Place):
    path: Path
    file: Path | None = None  # the tab to open first (else the manifest)


SPEC = ScreenSpec(
    "editor",
    EditModule,
    "cogtui.tui.screens.editor.screen:EditorScreen",
    opener="cogtui.tui.navigation:open_module",  # one editor per module (TUI-2)
    order=10,
    for_module=lambda path, _name: EditModule(path),
    key="enter",
    key_name="open",
    key_label="Open",
    key_doc="open the module in the editor",
    scene=lambda root: EditModule(root / "code-reviewer"),
    keys_heading="Editor",
    key_groups=("editor", "problems", "find", "tabs", "merge"),
    main_key=True,
    palette_module=("Open {name}", "edit the module's files"),
)
