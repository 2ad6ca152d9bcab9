"""Three-way merge of text by lines: yours and theirs, both changed from a common base.

`merge3(base, mine, theirs)` splits the text into stable runs (equal in all
three) and hunks. A hunk changed on one side only takes that side by
default, so nothing another program wrote is reverted unless the user picks
"mine" for that hunk; a hunk changed on both sides the same way is taken once;
a hunk changed differently on both sides is a conflict and defaults to mine.
`Merge.text(choices)` builds the merged text with a choice per hunk.

Texts use LF line ends (the editor's); a final line without a newline is kept
as it is.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum


class Side(StrEnum):
    MINE = "mine"
    THEIRS = "theirs"


class HunkKind(StrEnum):
    MINE = "mine"  # only the buffer changed this part
    THEIRS = "theirs"  # only the disk changed it
    BOTH_SAME = "both-same"  # both changed it identically
    CONFLICT = "conflict"  # both changed it, differently


@dataclass(frozen=True)
class Hunk:
    index: int  # position among the hunks (0-based), the key for choices
    base_start: int  # 0-based first line in base
    base: tuple[str, ...]
    mine: tuple[str, ...]
    theirs: tuple[str, ...]
    kind: HunkKind

    @property
    def default(self) -> Side:
        return Side.THEIRS if self.kind is HunkKind.THEIRS else Side.MINE

    def lines(self, side: Side) -> tuple[str, ...]:
        return self.mine if side is Side.MINE else self.theirs


@dataclass(frozen=True)
class Merge:
    parts: tuple[tuple[str, ...] | Hunk, ...]  # stable runs of lines and hunks, in order

    @property
    def hunks(self) -> list[Hunk]:
        return [p for p in self.parts if isinstance(p, Hunk)]

    @property
    def conflicts(self) -> list[Hunk]:
        return [h for h in self.hunks if h.kind is HunkKind.CONFLICT]

    def choices(self, overrides: Mapping[int, Side] | None = None) -> dict[int, Side]:
        """Every hunk's side: its default unless overridden."""
        return {h.index: (overrides or {}).get(h.index, h.default) for h in self.hunks}

    def text(self, choices: Mapping[int, Side] | None = None) -> str:
        chosen = self.choices(choices)
        out: list[str] = []
        for part in self.parts:
            out.extend(part.lines(chosen[part.index]) if isinstance(part, Hunk) else part)
        return "".join(out)


def _changes(base: Sequence[str], other: Sequence[str]) -> list[tuple[int, int, int, int]]:
    matcher = difflib.SequenceMatcher(None, base, other, autojunk=False)
    return [(i1, i2, j1, j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes() if tag != "equal"]


def merge3(base: str, mine: str, theirs: str) -> Merge:
    base_lines = base.splitlines(keepends=True)
    mine_lines = mine.splitlines(keepends=True)
    theirs_lines = theirs.splitlines(keepends=True)
    by_side = {Side.MINE: _changes(base_lines, mine_lines), Side.THEIRS: _changes(base_lines, theirs_lines)}
    tagged = sorted((c[0], c[1], side) for side, changes in by_side.items() for c in changes)
    # Group changes whose base ranges overlap or touch: one region each.
    regions: list[tuple[int, int, set[Side]]] = []
    for start, end, side in tagged:
        if regions and start <= regions[-1][1]:
            r_start, r_end, sides = regions[-1]
            regions[-1] = (r_start, max(r_end, end), sides | {side})
        else:
            regions.append((start, end, {side}))
    parts: list[tuple[str, ...] | Hunk] = []
    cursor = 0
    for index, (start, end, sides) in enumerate(regions):
        if start > cursor:
            parts.append(tuple(base_lines[cursor:start]))
        m_start, m_end = _region(by_side[Side.MINE], start, end)
        t_start, t_end = _region(by_side[Side.THEIRS], start, end)
        mine_part, theirs_part = tuple(mine_lines[m_start:m_end]), tuple(theirs_lines[t_start:t_end])
        if sides == {Side.MINE}:
            kind = HunkKind.MINE
        elif sides == {Side.THEIRS}:
            kind = HunkKind.THEIRS
        else:
            kind = HunkKind.BOTH_SAME if mine_part == theirs_part else HunkKind.CONFLICT
        parts.append(Hunk(index, start, tuple(base_lines[start:end]), mine_part, theirs_part, kind))
        cursor = end
    if cursor < len(base_lines):
        parts.append(tuple(base_lines[cursor:]))
    return Merge(tuple(parts))


def _region(changes: list[tuple[int, int, int, int]], start: int, end: int) -> tuple[int, int]:
    """Map base[start:end] to the side: shifted by the changes before it, grown by those inside it.

    Regions never touch each other, so a change is either inside this one or wholly before or after it.
    """
    before = inside = 0
    for i1, i2, j1, j2 in changes:
        delta = (j2 - j1) - (i2 - i1)
        if start <= i1 and i2 <= end:
            inside += delta
        elif i2 <= start:
            before += delta
    return start + before, end + before + inside
