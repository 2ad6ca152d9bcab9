"""The three-way merge view: a save met a file another program changed; each hunk shows base, yours and theirs.

The merge itself is the core's (`core/files/merge3.py`). A hunk only one
side changed keeps that side, so saving never reverts the other program's
change unless the user picks "mine" for that hunk; a conflict starts on
"mine" and is marked. `m` / `t` choose for the focused hunk, `M` / `T` for
every hunk; ctrl+s saves the merged text, escape leaves both versions as
they are.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from cogtui.core.files.merge3 import Hunk, HunkKind, Merge, Side

from ... import keys
from ...keys import KeySpec, bindings
from ...shown import block, markup

keys.register(
    KeySpec("merge.mine", "m", "keep_mine", "Keep mine", main=True, doc="merge view: keep yours for this hunk"),
    KeySpec("merge.theirs", "t", "keep_theirs", "Keep theirs", main=True, doc="merge view: keep theirs for this hunk"),
    KeySpec("merge.all_mine", "M", "all_mine", "Mine everywhere", doc="merge view: yours for every hunk"),
    KeySpec("merge.all_theirs", "T", "all_theirs", "Theirs everywhere", doc="merge view: theirs for every hunk"),
    KeySpec("merge.next", "down,j", "next_hunk", "Next hunk", priority=True, doc="merge view: next hunk"),
    KeySpec("merge.prev", "up,k", "prev_hunk", "Previous hunk", priority=True, doc="merge view: previous hunk"),
    KeySpec(
        "merge.save",
        "ctrl+s",
        "save_merged",
        "Save merged",
        main=True,
        priority=True,
        doc="merge view: save the merged text",
    ),
)

KIND_TEXT = {
    HunkKind.MINE: "changed by you",
    HunkKind.THEIRS: "changed on disk",
    HunkKind.BOTH_SAME: "same change on both sides",
    HunkKind.CONFLICT: "conflict",
}
MAX_LINES_SHOWN = 12  # per side of a hunk; the rest is counted


def _side_lines(label: str, lines: tuple[str, ...], chosen: bool) -> Content:
    head = markup("[$success]✓[/] [b]$label[/]" if chosen else "  [$text-muted]$label[/]", label=f"{label:<7}")
    body = [markup("[$text-muted]│[/] $line", line=line.rstrip("\n")) for line in lines[:MAX_LINES_SHOWN]]
    if not lines:
        body = [markup("[$text-muted]│ (nothing)[/]")]
    elif len(lines) > MAX_LINES_SHOWN:
        body.append(markup("[$text-muted]│ … $n more lines[/]", n=str(len(lines) - MAX_LINES_SHOWN)))
    return Content("\n").join([head + body[0], *(block(" " * 9) + line for line in body[1:])])


class HunkView(Static, can_focus=True):
    """One hunk: where it is, what kind, and base / yours / theirs with the chosen side ticked."""

    def __init__(self, hunk: Hunk, total: int, side: Side) -> None:
        super().__init__(classes="merge-hunk" + (" -conflict" if hunk.kind is HunkKind.CONFLICT else ""))
        self.hunk, self.total, self.side = hunk, total, side
        self.update(self.describe())

    def describe(self) -> Content:
        hunk = self.hunk
        title = markup(
            "[b]Hunk $n of $total[/] · line $line · $kind · keeping [b]$side[/]",
            n=str(hunk.index + 1),
            total=str(self.total),
            line=str(hunk.base_start + 1),
            kind=KIND_TEXT[hunk.kind],
            side="yours" if self.side is Side.MINE else "theirs",
        )
        return Content("\n").join(
            [
                title,
                _side_lines("base", hunk.base, False),
                _side_lines("yours", hunk.mine, self.side is Side.MINE),
                _side_lines("theirs", hunk.theirs, self.side is Side.THEIRS),
            ]
        )

    def choose(self, side: Side) -> None:
        self.side = side
        self.update(self.describe())


class MergeModal(ModalScreen[str | None]):
    """Answers the merged text (ctrl+s or Save merged), or None (escape or Cancel: nothing is written)."""

    BINDINGS = bindings(
        "merge.mine",
        "merge.theirs",
        "merge.all_mine",
        "merge.all_theirs",
        "merge.next",
        "merge.prev",
        "merge.save",
        "modal.cancel",
    )

    def __init__(self, rel: str, merge: Merge) -> None:
        super().__init__()
        self.rel, self.merge = rel, merge
        self.chosen = merge.choices()

    def compose(self) -> ComposeResult:
        hunks = self.merge.hunks
        conflicts = len(self.merge.conflicts)
        summary = (
            f"{len(hunks)} hunk{'s' * (len(hunks) != 1)}, {conflicts} conflict{'s' * (conflicts != 1)}. "
            "m keeps yours, t keeps theirs (M / T: every hunk); ↑↓ moves; ctrl+s saves the merge."
        )
        with Vertical(classes="dialog", id="merge"):
            yield Label(block(f"{self.rel} changed on disk: merge yours and theirs"), classes="dialog-title")
            yield Static(block(summary), id="merge-summary")
            with VerticalScroll(id="merge-hunks"):
                for hunk in hunks:
                    yield HunkView(hunk, len(hunks), self.chosen[hunk.index])
                if not hunks:
                    yield Static("The texts are the same: saving writes them once.")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Save merged", variant="primary", id="save-merged")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        views = list(self.query(HunkView))
        first = next((v for v in views if v.hunk.kind is HunkKind.CONFLICT), views[0] if views else None)
        if first is not None:
            first.focus()

    def views(self) -> list[HunkView]:
        return list(self.query(HunkView))

    def focused_view(self) -> HunkView | None:
        return self.focused if isinstance(self.focused, HunkView) else None

    def _choose(self, side: Side, every: bool = False) -> None:
        targets = self.views() if every else [v for v in [self.focused_view()] if v is not None]
        for view in targets:
            view.choose(side)
            self.chosen[view.hunk.index] = side

    def action_keep_mine(self) -> None:
        self._choose(Side.MINE)

    def action_keep_theirs(self) -> None:
        self._choose(Side.THEIRS)

    def action_all_mine(self) -> None:
        self._choose(Side.MINE, every=True)

    def action_all_theirs(self) -> None:
        self._choose(Side.THEIRS, every=True)

    def _move(self, step: int) -> None:
        views = self.views()
        if not views:
            return
        current = self.focused_view()
        index = views.index(current) + step if current is not None else 0
        target = views[max(0, min(index, len(views) - 1))]
        target.focus()
        target.scroll_visible()

    def action_next_hunk(self) -> None:
        self._move(1)

    def action_prev_hunk(self) -> None:
        self._move(-1)

    @on(Button.Pressed, "#save-merged")
    def action_save_merged(self) -> None:
        self.dismiss(self.merge.text(self.chosen))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
