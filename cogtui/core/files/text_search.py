"""Find in an editor's text: the next match after a location, wrapping at the end; case-insensitive unless the query has capitals."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Match:
    row: int
    start: int  # column of the first character
    end: int  # column after the last character
    wrapped: bool = False  # found only after wrapping past the end


def find_next(lines: list[str], query: str, row: int, column: int) -> Match | None:
    """The first match starting at or after (row, column), else the first from the top (wrapped)."""
    if not query or not lines:
        return None
    fold = query == query.lower()  # "smart case"
    needle = query.lower() if fold else query

    def search(line_index: int, start: int) -> int:
        text = lines[line_index].lower() if fold else lines[line_index]
        return text.find(needle, start)

    row = min(max(row, 0), len(lines) - 1)
    for index in range(row, len(lines)):
        found = search(index, column if index == row else 0)
        if found >= 0:
            return Match(index, found, found + len(query))
    for index in range(0, row + 1):
        found = search(index, 0)
        if found >= 0 and (index < row or found < column):
            return Match(index, found, found + len(query), wrapped=True)
    return None


def count_matches(lines: list[str], query: str) -> int:
    if not query:
        return 0
    fold = query == query.lower()
    needle = query.lower() if fold else query
    return sum((line.lower() if fold else line).count(needle) for line in lines)
