"""The run screen: a module's input, its runs in tabs, streamed (its screen: screen.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cogtui.core.records import record

from ...places import Place, ScreenSpec


@record
class RunModule(Place):
    path: Path
    input_value: Any = None  # the input to start from (else the module's own choice)
    autorun: bool = False


SPEC = ScreenSpec(
    "run",
    RunModule,
    "cogtui.tui.screens.run.screen:RunScreen",
    opener="cogtui.tui.navigation:run_module",  # one run screen per module, an input asked for replaces the shown one
    order=20,
    for_module=lambda path, _name: RunModule(path),
    key="r",
    key_label="Run",
    key_doc="run screen",
    scene=lambda root: RunModule(root / "code-reviewer"),
    keys_heading="Run",
    key_groups=("run", "prompt"),
    main_key=True,
    palette_module=("Run {name}", "run with streaming output"),
)
