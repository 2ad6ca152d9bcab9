"""Hostile module files in the editor: a FIFO, a link outside the folder, control characters (SEC-6), markup names.

A FIFO or a link leading outside the module folder is refused and never read: opening a FIFO blocks the TUI
for good, and a link to ~/.ssh/... would put the secret on the screen.

Such a file opens read-only: a terminal cannot show those characters (the editor hides them), so nobody edits
around them blind; the read-only line names them visibly escaped. Tab labels and the status line take file and
module names as text, never markup: `a [2J b` used to be parsed as a tag and crash the editor (MarkupError).
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

import pytest
from tuikit import copy_modules, editor_ready, isolate, make_app, screen_of, until

from cogtui.core.authoring.editor_files import FileBuffer
from cogtui.core.authoring.editor_state import EditorState
from cogtui.core.diagnostics import Diagnostic, Severity
from cogtui.tui import navigation as nav
from cogtui.tui.screens.editor.drawing import problem_content, status_content, tab_label
from cogtui.tui.screens.editor.screen import EditorScreen


def test_a_file_with_control_characters_opens_read_only_naming_them(tmp_path: Path) -> None:
    path = tmp_path / "prompt.md"
    path.write_text("Say hi.\x1b]0;PWNED\x07 then \u202ereversed\n", encoding="utf-8")
    buf = FileBuffer(path, "prompt.md", "pane-1")
    assert buf.load() == "Say hi.\x1b]0;PWNED\x07 then \u202ereversed\n"  # the document keeps the file's text
    assert buf.read_only
    shown = problem_content(buf).plain
    assert "terminal control characters (\\x1b \\x07 \\u202e)" in shown and "$EDITOR" in shown
    path.write_text("Say hi.\n\tindented\n", encoding="utf-8")  # tabs and newlines are text, not controls
    buf.load()
    assert not buf.read_only and problem_content(buf).plain == ""


def test_a_binary_file_opens_read_only_saying_what_it_is(tmp_path: Path) -> None:
    image = tmp_path / "photo.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4)
    buf = FileBuffer(image, "tests/photo.png", "pane-1")
    assert buf.load() == f"(a binary file of {image.stat().st_size:,} bytes: not shown)\n"
    assert buf.read_only and "P005" in buf.problem
    latin1 = tmp_path / "notes.md"  # not binary, only not UTF-8: shown as best it decodes
    latin1.write_bytes("café\n".encode("latin-1"))
    buf = FileBuffer(latin1, "notes.md", "pane-2")
    assert buf.load() == "caf\ufffd\n" and buf.read_only


def test_names_that_look_like_markup_are_shown_as_they_are(tmp_path: Path) -> None:
    path = tmp_path / "a [2J b.json"
    path.write_text("{}\x1b", encoding="utf-8")
    buf = FileBuffer(path, "tests/a [2J b.json", "pane-1")
    buf.load()
    assert buf.read_only  # the (ro) mark's markup after the name is what the name used to break
    state = EditorState("mod [2J [b]x\x1b", tmp_path)
    state.add(buf)
    assert tab_label(state, "pane-1").plain == "tests/a [2J b.json (ro)"
    buf.modified = True
    state.validated(state.validation_started(), [Diagnostic(Severity.ERROR, "M003", "bad", path, 1, 1)])
    status = status_content(state).plain
    assert status.startswith("mod [2J [b]x\\x1b · tests/a [2J b.json ● · ✗ 1 · ⚠ 0")


def _feed(fifo: Path) -> None:
    """What a writer does: if the editor were reading the FIFO (and blocked there), this ends the read."""
    with contextlib.suppress(OSError):  # ENXIO: nobody reads it, as it should be
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.write(fd, b"FIFO-READ")
        os.close(fd)


def test_a_fifo_and_links_outside_the_module_are_refused_never_read(tmp_path: Path) -> None:
    module = tmp_path / "mod"
    module.mkdir()
    secret = tmp_path / "id_ed25519"
    secret.write_text("TRIPWIRE-SECRET\n", encoding="utf-8")
    (module / "notes.md").symlink_to(secret)
    (module / "schema.json").symlink_to("/dev/zero")
    os.mkfifo(module / "prompt.md")
    feeder = threading.Timer(5, _feed, (module / "prompt.md",))
    feeder.daemon = True
    feeder.start()
    try:
        for name, code in (("prompt.md", "F002"), ("notes.md", "F001"), ("schema.json", "F001")):
            buf = FileBuffer(module / name, name, "pane-1", module)
            assert buf.load() == "", name  # nothing read: not the FIFO's bytes, not the secret, not /dev/zero
            assert buf.read_only and buf.problem.startswith(code), (name, buf.problem)
    finally:
        feeder.cancel()
    inside = module / "real.md"
    inside.write_text("fine\n", encoding="utf-8")
    (module / "link.md").symlink_to(inside)  # a link that stays inside is a file like any other
    buf = FileBuffer(module / "link.md", "link.md", "pane-2", module)
    assert buf.load() == "fine\n" and not buf.read_only


async def test_a_fifo_in_a_module_never_blocks_the_tui(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    (module / "prompt.md").unlink()
    os.mkfifo(module / "prompt.md")
    feeder = threading.Timer(10, _feed, (module / "prompt.md",))
    feeder.daemon = True
    feeder.start()
    app = make_app(root, tmp_path)
    try:
        async with app.run_test(size=(120, 36)) as pilot:
            await until(lambda: app.store.report(module) is not None, pilot)  # validated, not blocked
            report = app.store.report(module)
            assert report is not None and "F002" in {d.code for d in report.diagnostics}
            nav.open_module(app, module, module / "prompt.md")
            await until(lambda: editor_ready(app), pilot)
            editor = screen_of(app, EditorScreen)
            buf = editor.current()
            assert buf is not None and buf.rel == "prompt.md" and buf.read_only and buf.problem.startswith("F002")
            assert editor.area(buf).text == ""
    finally:
        feeder.cancel()
