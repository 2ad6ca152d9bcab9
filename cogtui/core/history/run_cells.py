"""The history table's cells: compact fixed columns, and a provider/model cell fitted to the room left (TUI-8).

The table lists up to 500 runs beside the envelope, in about half the terminal: the run's number, when,
the outcome, confidence and time are short and fixed; the provider/model takes what is left and, when it
does not fit, gives up first the date a model name ends with, then the provider's name (kept as its first
letter), and only then the end of the model's name, marked with an ellipsis. When even that leaves less
than READABLE cells, `when` drops its date (the time of day stays), and the header says just "model".
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata

ELLIPSIS = "…"
PADDING = 2  # a DataTable cell's padding, one cell each side
HEADER, SHORT_HEADER = "provider/model", "model"
MIN_PROVIDER_MODEL = len(SHORT_HEADER)  # the short columns give up cells before the model's goes under this
READABLE = 12  # less room than this for the model's name: `when` gives up its date first
_DATE_SUFFIX = re.compile(r"[-@]\d{8}$|[-@]\d{4}-\d{2}-\d{2}$")  # claude-sonnet-4-5-20250929, gpt-4o-2024-08-06


def width(text: str) -> int:
    """Terminal cells `text` takes: 2 for a wide character, 0 for a combining one."""
    total = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        total += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return total


def cut(text: str, room: int) -> str:
    """`text` in at most `room` cells, its end replaced by an ellipsis when cut."""
    if width(text) <= room:
        return text
    if room <= 0:
        return ""
    out, used = "", 0
    for char in text:
        w = width(char)
        if used + w > room - 1:
            break
        out, used = out + char, used + w
    return out + ELLIPSIS


def when_cell(timestamp: float, date: bool = True) -> str:
    """When a run started, to the minute (its number tells apart runs of the same minute); without `date`, the
    time of day alone, for a narrow terminal."""
    return dt.datetime.fromtimestamp(timestamp).strftime("%m-%d %H:%M" if date else "%H:%M")


def time_cell(total_ms: float | None) -> str:
    """How long a run took, in at most 6 cells: 850 ms, 12.3 s, 4m05s."""
    if total_ms is None:
        return "-"
    if round(total_ms) < 1000:
        return f"{total_ms:.0f} ms"
    seconds = total_ms / 1000
    if round(seconds, 1) < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes}m{rest:02d}s" if minutes < 100 else f"{minutes}m"


def provider_model(provider: str, model: str | None, room: int) -> str:
    """`provider/model` in at most `room` cells, the model's name kept readable as long as it can be."""
    model = model or "-"
    full = f"{provider}/{model}"
    if width(full) <= room:
        return full
    short = _DATE_SUFFIX.sub("", model) or model
    for candidate in (f"{provider}/{short}", f"{provider[:1]}{ELLIPSIS}/{short}", short):
        if width(candidate) <= room:
            return candidate
    return cut(short, room)


def provider_model_header(room: int) -> str:
    return HEADER if room >= len(HEADER) else SHORT_HEADER


def provider_model_room(available: int, other_columns: list[int]) -> int:
    """Cells left for the provider/model text once the other columns (their widths without padding) are laid
    out in `available` cells; at least MIN_PROVIDER_MODEL."""
    used = sum(w + PADDING for w in other_columns) + PADDING
    return max(MIN_PROVIDER_MODEL, available - used)


def fit_columns(available: int, widths: list[int], floors: list[int]) -> tuple[list[int], int]:
    """The widths to draw the short columns at (their cells `cut` to them) and the room left for the
    provider/model text, in `available` cells: while that room is under MIN_PROVIDER_MODEL, the widest short
    column that is still wider than its floor (its header's width) gives up a cell. Only once every column is at
    its floor does the room stay at MIN_PROVIDER_MODEL, and the table scroll sideways."""
    fitted = list(widths)
    while available - sum(w + PADDING for w in fitted) - PADDING < MIN_PROVIDER_MODEL:
        wider = [i for i, w in enumerate(fitted) if w > floors[i]]
        if not wider:
            break
        fitted[max(wider, key=lambda i: (fitted[i], -i))] -= 1  # the widest, the leftmost of equals
    return fitted, provider_model_room(available, fitted)
