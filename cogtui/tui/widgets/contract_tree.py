"""The editor's read-only "contract" tab: schema.json as a tree, with the goldens behind every field.

Each field shows its name (`*` when required), type, enum values (the ones
no golden uses are dimmed) and the golden tests that put a value there, or
"no golden" in the warning colour. Overflow and enum settings from the
manifest head the tree. The map is the core's (`core/module/contract_map.py`);
this widget only renders it.
"""

from __future__ import annotations

import json
from typing import Any

from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from cogtui.core.module.contract_map import ITEMS, SECTIONS, ContractMap, FieldNode

from ..shown import block, markup

MAX_ENUM_SHOWN = 8
MAX_GOLDENS_SHOWN = 4


def _value(value: Any) -> str:
    """A schema or manifest value as the file writes it: `true`, `null`, `3`, text as it is."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def tree_guides(depths: list[int]) -> list[str]:
    """The guide in front of each row of a tree given in order with each row's depth (0: a section, no guide):
    `├ ` before a row with a later sibling, `└ ` before the last one, `│ ` under an ancestor with more to come."""
    last = [False] * len(depths)
    later: dict[int, bool] = {}
    for i in range(len(depths) - 1, -1, -1):  # from the end: a row is last when no sibling follows before its parent
        depth = depths[i]
        last[i] = not later.get(depth, False)
        later = {d: v for d, v in later.items() if d < depth}
        later[depth] = True
    guides: list[str] = []
    more_below: dict[int, bool] = {}  # per depth, whether the current ancestor there has siblings still to come
    for i, depth in enumerate(depths):
        more_below[depth] = not last[i]
        columns = "".join("│ " if more_below.get(d, False) else "  " for d in range(1, depth))
        guides.append(columns + ("└ " if last[i] else "├ ") if depth else "")
    return guides


def field_label(node: FieldNode) -> Content:
    name = "items" if node.name == ITEMS else node.name
    parts = [markup("[b]$name[/]" + ("[$accent]*[/]" if node.required else ""), name=name)]
    if node.type:
        parts.append(markup(" [$text-muted]$type[/]", type=node.type))
    if node.enum:
        shown = []
        for value in node.enum[:MAX_ENUM_SHOWN]:
            used = value in node.enum_values_used
            shown.append(markup("$v" if used else "[$text-muted]$v[/]", v=_value(value)))
        more = len(node.enum) - MAX_ENUM_SHOWN
        enum = Content("|").join(shown) + (block(f"|…+{more}") if more > 0 else Content(""))
        parts.append(Content(" {") + enum + Content("}"))
    if node.goldens:
        names = ", ".join(node.goldens[:MAX_GOLDENS_SHOWN])
        extra = len(node.goldens) - MAX_GOLDENS_SHOWN
        parts.append(markup(" [$success]◆ $names[/]", names=names + (f" +{extra}" if extra > 0 else "")))
    elif node.path:
        parts.append(markup(" [$warning]no golden[/]"))
    return Content("").join(parts)


def settings_label(title: str, settings: dict[str, Any]) -> Content:
    if not settings:
        return markup("[b]$title[/] [$text-muted]not declared[/]", title=title)
    text = " · ".join(f"{key}: {_value(value)}" for key, value in settings.items())
    return markup("[b]$title[/] $text", title=title, text=text)


def tree_rows(cmap: ContractMap) -> list[Content]:
    """One row per line: the manifest settings, then each section's fields, indented under their parents."""
    tested = len(cmap.nodes) - len(cmap.untested())
    rows = [
        settings_label("overflow", cmap.overflow),
        settings_label("enums", cmap.enums),
        markup(
            "[b]goldens[/] $names [$text-muted]($tested of $total fields exercised)[/]",
            names=", ".join(cmap.goldens) if cmap.goldens else "none",
            tested=str(tested),
            total=str(len(cmap.nodes)),
        ),
    ]
    for node, guide in zip(cmap.nodes, tree_guides([n.depth for n in cmap.nodes]), strict=True):
        indent = markup("[$text-muted]$guide[/]", guide=guide) if guide else Content("")
        rows.append(indent + field_label(node))
    if cmap.truncated:
        rows.append(markup("[$warning]… the schema is larger than shown[/]"))
    missing = [s for s in SECTIONS if not cmap.section(s)]
    if missing:
        rows.append(markup("[$text-muted]no schema for: $s[/]", s=", ".join(missing)))
    return rows


class ContractTree(OptionList):
    """Read-only rows (an OptionList scrolls and keeps a highlight); `show_map` replaces them."""

    HELP_NAME = "contract tree"  # what help calls it (help.seen_name)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.map: ContractMap | None = None

    def show_map(self, cmap: ContractMap) -> None:
        if cmap == self.map:
            return
        self.map = cmap
        highlighted = self.highlighted
        self.clear_options()
        self.add_options(Option(row) for row in tree_rows(cmap))
        if highlighted is not None and highlighted < self.option_count:
            self.highlighted = highlighted
