"""What the editor knows about each open file: its snapshot on disk, why it is read-only, whether the disk moved on.

No widgets here: the editor's state (`editor_state.EditorState`) holds one
`FileBuffer` per tab, and the screen keeps each TextArea in step with it.
Buffers hold text with LF line ends (what the editor edits); the file's own
line ends go back on at save time.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cogtui.core.files.confined import ConfinementError, read_confined
from cogtui.core.files.disk_state import BufferState
from cogtui.core.files.editor_snapshot import FileSnapshot
from cogtui.core.files.sourcemap import ParseFailure
from cogtui.core.files.terminal_text import control_characters
from cogtui.core.files.text_codec import to_lf

LANGUAGES = {".yaml": "yaml", ".yml": "yaml", ".json": "json", ".md": "markdown", ".markdown": "markdown"}

# TextArea splits lines with str.splitlines, which also breaks at these; a save
# would turn each into a newline, so such files open read-only instead.
_FOREIGN_LINE_BREAKS = {
    "\r": "CR",
    "\x0b": "VT",
    "\x0c": "form feed",
    "\x1c": "FS",
    "\x1d": "GS",
    "\x1e": "RS",
    "\x85": "NEL",
    "\u2028": "U+2028",
    "\u2029": "U+2029",
}


# Textual's TextArea highlights the whole file again on every key: above this size that alone keeps a key
# waiting longer than typing allows (bench/bench_editor.py), so such files open as plain text (a long example
# answer, a big schema; the status line says "large: no highlighting").
HIGHLIGHT_LIMIT_CHARS = 200_000


def language_for(path: Path) -> str | None:
    return LANGUAGES.get(path.suffix.lower())


def soft_wraps(path: Path) -> bool:
    """Whether the editor wraps the file's long lines: prose does (Markdown, plain text: a prompt's paragraph is one
    line), data does not (JSON and YAML scroll sideways, so indentation always reads true)."""
    return language_for(path) not in ("json", "yaml")


def with_newlines(text_lf: str, newline: str) -> str:
    """Editor text (LF) with the file's own line ends, ready for `save_text`."""
    return text_lf if newline == "\n" else text_lf.replace("\n", newline)


def foreign_line_breaks(text_lf: str) -> list[str]:
    return [name for char, name in _FOREIGN_LINE_BREAKS.items() if char in text_lf]


@dataclass
class FileBuffer:
    path: Path
    rel: str  # path relative to the module folder, for labels
    pane_id: str
    root: Path | None = None  # the module folder: a file leading outside it is refused, never shown
    snapshot: FileSnapshot | None = None  # None when the file could not be read or decoded
    saved_lf: str = ""  # the disk text (LF) the buffer started from; equal text means unmodified
    problem: str = ""  # why the buffer is read-only; "" when editable
    modified: bool = False
    stale: bool = False  # the disk changed while the buffer had edits; save resolves it
    deleted: bool = False  # the file is gone from disk; the text stays until recreated or closed

    @property
    def state(self) -> BufferState:
        return BufferState(self.modified, self.stale, self.deleted)

    @state.setter
    def state(self, state: BufferState) -> None:
        self.modified, self.stale, self.deleted = state.modified, state.stale, state.deleted

    @property
    def read_only(self) -> bool:
        return bool(self.problem)

    @property
    def highlighted(self) -> bool:
        return language_for(self.path) is not None and len(self.saved_lf) <= HIGHLIGHT_LIMIT_CHARS

    @property
    def style_label(self) -> str:
        return self.snapshot.style.label if self.snapshot is not None else "unknown encoding"

    def load(self) -> str:
        """Read the file again; returns the text for the editor and resets modified/stale."""
        self.modified = self.stale = self.deleted = False
        try:
            self.snapshot = FileSnapshot.read(self.path, self.root)
        except ParseFailure as failure:
            d = failure.diagnostic
            self.snapshot = None
            self.problem = f"{d.code} {d.message}"
            # Undecodable text is shown as best it can be; a refused file (outside, a FIFO, a device) is not read.
            self.saved_lf = "" if isinstance(failure, ConfinementError) else _best_effort_text(self.path, self.root)
            return self.saved_lf
        self.saved_lf = to_lf(self.snapshot.text)
        breaks = foreign_line_breaks(self.saved_lf)
        controls = control_characters(self.saved_lf)
        if breaks:
            self.problem = (
                f"contains {', '.join(breaks)} line breaks the editor would turn into newlines; edit it with $EDITOR"
            )
        elif controls:  # read-only: a terminal cannot show them, so nobody edits around them blind (SEC-6)
            self.problem = f"contains terminal control characters ({' '.join(controls[:8])}) that are not shown; edit it with $EDITOR"
        else:
            self.problem = ""
        return self.saved_lf

    def marks(self) -> list[str]:
        """What the tab label says after the path: modified, stale (the disk changed under the edits),
        deleted on disk, read-only."""
        flags = [
            (self.modified, "modified"),
            (self.stale, "stale"),
            (self.deleted, "deleted"),
            (self.read_only, "read-only"),
        ]
        return [name for on, name in flags if on]


# A NUL byte in a file's first bytes: an image, an archive, a compiled file; no text encoding would help.
BINARY_SNIFF_BYTES = 8192


def _best_effort_text(path: Path, root: Path | None) -> str:
    """Something to look at for a file that cannot be decoded (shown read-only, never saved): the text as
    best it decodes, or for a binary file one line saying what it is instead of a screen of mojibake."""
    try:
        raw = read_confined(path, root)
    except ParseFailure:
        return ""
    if b"\x00" in raw[:BINARY_SNIFF_BYTES]:
        return f"(a binary file of {len(raw):,} bytes: not shown)\n"
    return to_lf(raw.decode("utf-8", errors="replace"))


def relative_name(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
