"""A module file holding terminal control characters in the editor (D101), and file names that look like markup.

Such a file opens read-only: a terminal cannot show those characters (the editor hides them), so nobody edits
around them blind; the read-only line names them visibly escaped. Tab labels and the status line take file and
module names as text, never markup: `a [2J b` used to be parsed as a tag and crash the editor (MarkupError).
"""

from __future__ import annotations

from pathlib import Path

from cogtui.tui.screens.editor_buffers import FileBuffer, status_content


def test_a_file_with_control_characters_opens_read_only_naming_them(tmp_path: Path) -> None:
    path = tmp_path / "prompt.md"
    path.write_text("Say hi.\x1b]0;PWNED\x07 then \u202ereversed\n", encoding="utf-8")
    buf = FileBuffer(path, "prompt.md", "pane-1")
    assert buf.load() == "Say hi.\x1b]0;PWNED\x07 then \u202ereversed\n"  # the document keeps the file's text
    assert buf.read_only
    shown = buf.problem_content().plain
    assert "terminal control characters (\\x1b \\x07 \\u202e)" in shown and "$EDITOR" in shown
    path.write_text("Say hi.\n\tindented\n", encoding="utf-8")  # tabs and newlines are text, not controls
    buf.load()
    assert not buf.read_only and buf.problem_content().plain == ""


def test_names_that_look_like_markup_are_shown_as_they_are(tmp_path: Path) -> None:
    path = tmp_path / "a [2J b.json"
    path.write_text("{}\x1b", encoding="utf-8")
    buf = FileBuffer(path, "tests/a [2J b.json", "pane-1")
    buf.load()
    assert buf.read_only  # the (ro) mark's markup after the name is what the name used to break
    assert buf.label().plain == "tests/a [2J b.json (ro)"
    buf.modified = True
    status = status_content("mod [2J [b]x\x1b", buf, (1, 0)).plain
    assert status.startswith("mod [2J [b]x\\x1b · tests/a [2J b.json ● · ✗ 1 · ⚠ 0")
