"""Notices said once: what the TUI told the user at a start and need not tell again (the terminal's theme note).

Kept in the state folder (`locations.state_dir()`, `said.json`: the notices' texts). A notice is said when its text
was never said: the same terminal is told once, another terminal (a different note) is told its own once. When the
file cannot be read or written, the notice is said (better twice than never), and nothing fails.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from cogtui.core.settings.locations import state_dir

FILE = "said.json"
KEPT = 32  # the most recent notices remembered; older ones may be said again


def said_file() -> Path:
    return state_dir() / FILE


def first_time(notice: str, path: Path | None = None) -> bool:
    """Whether `notice` was never said before; records that it is said now."""
    path = path or said_file()
    try:
        said = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        said = []
    said = [s for s in said if isinstance(s, str)] if isinstance(said, list) else []
    if notice in said:
        return False
    try:  # a temporary file renamed over the old one: two cogtui starting at once never leave half a file
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}")
        temporary.write_text(json.dumps([*said, notice][-KEPT:], ensure_ascii=False, indent=1), encoding="utf-8")
        os.replace(temporary, path)
    except OSError:
        pass
    return True
