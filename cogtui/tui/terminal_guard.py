"""The TUI's one choke point to the terminal: every line any widget renders passes the terminal guard.

Textual turns every widget (screens, modals, toasts, tooltips, the palette, text areas) into lines of
segments, and runs each line through the app's line filters (`App.get_line_filters`, public API) before
the compositor writes it to the terminal. The app puts `TerminalGuard` first among them, so no escape
sequence, C0/C1 control, bidi override or lone surrogate from a module, a model or the history can reach
the terminal raw, whichever widget shows it and whether or not that widget remembered to sanitise.

The guard removes such characters (each is zero cells wide, so the layout is kept); showing them visibly
escaped (`\\x1b`, `\\u202e`) is the job of the text's way in: widgets build what they show with
`visible()` (cogtui/core/files/terminal_text.py). What the guard had to remove is recorded in `caught`,
so a test can tell a widget that shows untrusted text without escaping it (tests/tui/test_hostile_sweep.py).
"""

from __future__ import annotations

from rich.segment import Segment
from textual.color import Color
from textual.filter import LineFilter

from cogtui.core.files.terminal_text import holds_unsafe, visible, without_unsafe

KEPT = 20  # how many caught texts `caught` keeps: enough to name the leak, bounded however much leaks


class TerminalGuard(LineFilter):
    """A line filter that removes every character a terminal would act on from rendered text."""

    def __init__(self) -> None:
        super().__init__(enabled=True)
        self.caught: list[str] = []  # each text it cleaned, visibly escaped (the first KEPT)
        self.caught_count = 0

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if not holds_unsafe("".join(segment.text for segment in segments)):
            return segments
        cleaned = []
        for segment in segments:
            if holds_unsafe(segment.text):
                self.caught_count += 1
                if len(self.caught) < KEPT:
                    self.caught.append(visible(segment.text, single_line=True))
                segment = Segment(without_unsafe(segment.text), segment.style, segment.control)
            cleaned.append(segment)
        return cleaned
