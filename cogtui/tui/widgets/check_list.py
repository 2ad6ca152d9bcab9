"""A list of choices with a check mark that shows whether each is chosen, in any theme.

Textual's `SelectionList` draws the same `X` beside every option and tells chosen from not by colour alone: in the
terminal's 16 colours (the cogtui-ansi theme, tmux without truecolor) both looked alike. `CheckList` leaves the
mark of an option that is not chosen blank, so on and off differ in shape, whatever the colours.
"""

from __future__ import annotations

from typing import TypeVar

from rich.segment import Segment
from textual.strip import Strip
from textual.widgets import Checkbox, SelectionList
from textual.widgets.option_list import OptionDoesNotExist

T = TypeVar("T")

# SelectionList draws each line as: the button's left side, its mark (a checkbox's, `Checkbox.BUTTON_INNER`), its
# right side, a space, the prompt.
MARK = 1


class CheckList(SelectionList[T]):
    HELP_NAME = "choices"  # what help calls it (help.seen_name)

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        try:
            option = self.get_option_at_index(self.scroll_offset.y + y)
        except OptionDoesNotExist:
            return strip
        segments = list(strip)
        if option.value in self.selected or len(segments) <= MARK or segments[MARK].text != Checkbox.BUTTON_INNER:
            return strip
        mark = segments[MARK]
        segments[MARK] = Segment(" " * len(mark.text), mark.style)  # not chosen: a blank box
        return Strip(segments, strip.cell_length)
