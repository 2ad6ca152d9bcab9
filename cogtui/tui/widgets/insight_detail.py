"""The insights dashboard's detail pane: the highlighted row's samples, reasons and what `p` would do."""

from __future__ import annotations

from typing import Any

from textual import getters
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ..shown import markup
from .insight_tables import NO_MAPPING

MAX_SAMPLE = 300  # characters of one sample's text; the rest is in `cogn insights --json`


def _clip(text: str | None, limit: int = MAX_SAMPLE) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _names(names: list[str], shown: int = 6) -> str:
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")


OPEN_HINT = markup("[$text-muted][$accent]enter[/] shows every sample in full and the runs behind it.[/]")


def promotion_line(promoted_in: tuple[str, ...], modules: list[str], undo: bool, refusal: str = "") -> Content | None:
    """Where the row is already in the schema, and whether `u` undoes it or why not (None: in no schema yet)."""
    if not promoted_in:
        return None
    where = (
        "its schema"
        if modules == list(promoted_in) and len(modules) == 1
        else f"the schema of {_names(list(promoted_in))}"
    )
    undo_text = "  [$accent]u[/] undoes the promotion." if undo else "\n[$text-muted]$refusal[/]" if refusal else ""
    return markup(f"[$text-success]✓ promoted[/]: already in $where.{undo_text}", where=where, refusal=refusal)


def insight_content(
    document: dict[str, Any], promoted_in: tuple[str, ...] = (), undo: bool = False, refusal: str = ""
) -> Content:
    mapping = document["suggested_mapping"]
    modules = document["modules"]
    parts = [
        markup(
            "[b]$name[/b]  ·  $count insight$s in $n module$ms",
            name=mapping if mapping is not None else NO_MAPPING,
            count=f"{document['count']:,}",
            s="s" * (document["count"] != 1),
            n=str(len(modules)),
            ms="s" * (len(modules) != 1),
        ),
        # A label, a colon and a space before each value, one per line: in the terminal's 16 colours a muted label
        # is hardly told from its value, and a narrow pane wrapped "first seen" and its date apart.
        markup("[$text-muted]modules:[/] $modules", modules=_names(modules)),
        markup("[$text-muted]first seen:[/] $first", first=document["first_seen"]),
        markup("[$text-muted]last seen:[/] $last", last=document["last_seen"]),
        Content(""),
        markup("[b]Latest samples[/b]"),
    ]
    for example in document["examples"]:
        parts.append(markup("• $text", text=_clip(example["text"])))
        if example.get("evidence"):
            parts.append(markup("  [$text-muted]evidence:[/] $evidence", evidence=_clip(example["evidence"])))
        parts.append(markup("  [$text-muted]$module, $ts[/]", module=example["module"], ts=example["ts"]))
    parts.append(Content(""))
    promoted = promotion_line(promoted_in, modules, undo, refusal)
    if promoted is not None:
        parts.append(promoted)
    if mapping is None:
        parts.append(markup("[$text-muted]Without a suggested mapping there is nothing to promote.[/]"))
    elif set(promoted_in) >= set(modules):
        pass  # nothing left to promote
    else:
        parts.append(
            markup(
                "[$accent]p[/] promotes [b]$name[/b] into the schema (a new field, or a new "
                "enum value when the path before its last part is an enum); you review "
                "the diff first.",
                name=mapping,
            )
        )
    parts.append(OPEN_HINT)
    return Content("\n").join(parts)


def custom_enum_content(
    document: dict[str, Any], promoted: bool = False, undo: bool = False, refusal: str = ""
) -> Content:
    count = document["count"]
    parts = [
        markup(
            "[b]$value[/b]  ·  $field in $module  ·  used $count time$s",
            value=document["value"],
            field=document["field"],
            module=document["module"],
            count=f"{count:,}",
            s="s" * (count != 1),
        ),
        Content(""),
        markup("[b]Reasons given[/b]"),
    ]
    reasons = document["reasons"] or ["(none given)"]
    parts += [markup("• $reason", reason=_clip(r)) for r in reasons]
    parts.append(Content(""))
    line = promotion_line((document["module"],) if promoted else (), [document["module"]], undo, refusal)
    if line is not None:
        parts.append(line)
    else:
        parts.append(
            markup(
                "[$accent]p[/] adds [b]$value[/b] to the $field enum of $module; you review the diff first.",
                value=document["value"],
                field=document["field"],
                module=document["module"],
            )
        )
    parts.append(OPEN_HINT)
    return Content("\n").join(parts)


class InsightDetail(VerticalScroll):
    """Scrollable (focus it with tab) so long samples stay readable at 80×24."""

    body = getters.query_one("#insight-detail-body", Static)

    def compose(self) -> ComposeResult:
        yield Static(id="insight-detail-body")

    def show(self, content: Content | str) -> None:
        self.body.update(content)
        self.scroll_home(animate=False)
