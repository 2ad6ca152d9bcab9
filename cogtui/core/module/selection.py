"""Which module the browser shows and keeps selected when its filter changes.

The browser filters module names by a case-insensitive substring. When the shown modules change (the filter is
typed, changed or cleared, or the search path is rediscovered), the selection follows the module, not the row:
the module that was selected stays selected while it is shown; when it is filtered out, the nearest shown module
after it in the unfiltered order is selected (else the nearest before it); with nothing selected before, the
first shown one.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path


def name_matches(name: str, filter_text: str) -> bool:
    """A module is shown when its name contains the filter text, ignoring case (an empty filter shows all)."""
    return filter_text.casefold() in name.casefold()


def follow_selection(selected: Path | None, order: Sequence[Path], shown: Collection[Path]) -> Path | None:
    """The module to select once `shown` (a subset of `order`, the unfiltered display order) is on screen."""
    if selected is not None and selected in shown:
        return selected
    if selected is not None and selected in order:
        at = order.index(selected)
        after = next((p for p in order[at + 1 :] if p in shown), None)
        if after is not None:
            return after
        return next((p for p in reversed(order[:at]) if p in shown), None)
    return next((p for p in order if p in shown), None)
