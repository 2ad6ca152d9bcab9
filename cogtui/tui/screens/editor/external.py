"""Handing a file to the user's own editor ($VISUAL, $EDITOR, else vi) with the terminal suspended, and back.

Unsaved edits are saved first (the save may ask: saving.py), only after the user says so; once the editor
process returns, the disk is the truth: the tab reloads and the module is checked again.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual.app import App, SuspendNotSupported

from cogtui.core.authoring.editor_files import FileBuffer

from .saving import SaveFlow, confirm

if TYPE_CHECKING:
    from .view import EditorView


@dataclass(frozen=True)
class ExternalEditResult:
    ran: bool  # the editor process started (so the file may have changed)
    problem: str = ""  # what to tell the user; "" when all went well


def editor_command(environ: Mapping[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ
    return env.get("VISUAL") or env.get("EDITOR") or "vi"


def run_external_editor(app: App[object], path: Path, environ: Mapping[str, str] | None = None) -> ExternalEditResult:
    command = editor_command(environ)
    try:
        argv = [*shlex.split(command), str(path)]
    except ValueError as exc:
        return ExternalEditResult(False, f"$EDITOR is not a valid command line ({exc}): {command}")
    problem = ""
    returncode = 0
    try:
        with app.suspend():
            # Errors are caught inside the block: an exception escaping `suspend()`
            # would skip resuming application mode and leave the terminal raw.
            try:
                returncode = subprocess.run(argv, check=False).returncode
            except FileNotFoundError:
                problem = f"Editor not found: {argv[0]} (set $VISUAL or $EDITOR)"
            except OSError as exc:
                problem = f"Could not start {argv[0]}: {exc.strerror or exc}"
    except (SuspendNotSupported, RuntimeError):  # RuntimeError: no driver, the app is not running
        return ExternalEditResult(False, f"This terminal cannot hand over to an external editor; open {path} yourself.")
    if problem:
        return ExternalEditResult(False, problem)
    if returncode:
        return ExternalEditResult(True, f"{argv[0]} exited with status {returncode}")
    return ExternalEditResult(True)


class ExternalEdit:
    def __init__(self, editor: EditorView, saving: SaveFlow) -> None:
        self.editor = editor
        self.saving = saving

    def start(self, buf: FileBuffer) -> None:
        if not buf.modified:
            self.open(buf)
            return
        confirm(
            self.editor,
            "Save first?",
            f"{buf.rel} has unsaved edits. Save them, then open the file in $EDITOR?",
            "Save and open",
            lambda: self.saving.save(buf, then=lambda: self.open(buf)),
        )

    def open(self, buf: FileBuffer) -> None:
        result = run_external_editor(self.editor.app, buf.path)
        if result.problem:
            self.editor.say(result.problem, severity="warning" if result.ran else "error", timeout=8)
        if result.ran:  # the external editor returned: the disk is the truth now
            self.saving.reload_now(buf, f"Reloaded {buf.rel} after $EDITOR")
            self.editor.tell_app()
