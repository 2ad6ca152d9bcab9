"""A JSON value as a tree that fills in field by field while a run streams.

Labels are drawn from node data with component classes (styled from theme
variables in CSS), so they follow the theme. Keys are model-written: they reach
the tree as `Text`, never as a str that Textual would parse as markup.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar

from rich.style import Style
from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from cogtui.core.files.terminal_text import terminal_json, visible

from ..shown import cell, rich_assemble

MAX_CHILDREN = 200  # a huge array shows its first items and a count
MAX_TEXT = 160


@dataclass(frozen=True)
class JsonItem:
    key: str
    value: Any  # a scalar, or the container itself (for its size)
    more: int = 0  # "… N more" marker when > 0


class JsonTree(Tree[JsonItem]):
    """Top-level fields are kept as nodes so one field can be replaced without rebuilding the rest."""

    HELP_NAME = "data tree"  # what help calls it (help.seen_name)

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "json-tree--key",
        "json-tree--string",
        "json-tree--number",
        "json-tree--literal",
        "json-tree--muted",
    }

    def __init__(self, label: str = "data", **kwargs: Any) -> None:
        super().__init__(label, **kwargs)
        self.show_root = False
        self.guide_depth = 2
        self.fields: dict[str, TreeNode[JsonItem]] = {}

    def set_value(self, value: Any) -> None:
        """Replace everything."""
        self.clear()
        self.fields.clear()
        if isinstance(value, dict):
            for key, sub in value.items():
                self.set_field(str(key), sub)
        elif value is not None:
            self._add(self.root, "value", value)
        self.root.expand()

    def set_field(self, key: str, value: Any) -> None:
        """Replace (or add) one top-level field."""
        old = self.fields.get(key)
        if old is None:
            self.fields[key] = self._add(self.root, key, value)
            return
        old.data = JsonItem(key, value)
        if old.children or isinstance(value, (dict, list)):
            old.remove_children()
            self._fill(old, value)
            if not old.is_expanded:
                old.expand()
        old.refresh()

    def _add(self, parent: TreeNode[JsonItem], key: str, value: Any) -> TreeNode[JsonItem]:
        if isinstance(value, (dict, list)):
            node = parent.add(cell(key), JsonItem(key, value), expand=parent is self.root)
            self._fill(node, value)
            return node
        return parent.add_leaf(cell(key), JsonItem(key, value))

    def _fill(self, node: TreeNode[JsonItem], value: Any) -> None:
        if isinstance(value, dict):
            items = [(str(k), v) for k, v in value.items()]
        elif isinstance(value, list):
            items = [(f"[{i}]", v) for i, v in enumerate(value)]
        else:
            items = []
        for key, sub in items[:MAX_CHILDREN]:
            self._add(node, key, sub)
        if len(items) > MAX_CHILDREN:
            node.add_leaf(Text("more"), JsonItem("", None, more=len(items) - MAX_CHILDREN))

    # ------------------------------------------------------------ drawing

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"json-tree--{name}", partial=True)

    def render_label(self, node: TreeNode[JsonItem], base_style: Style, style: Style) -> Text:
        item = node.data
        if item is None:
            return cell(str(node.label))
        if item.more:
            label = cell(f"… {item.more} more", self._style("muted"))
        elif isinstance(item.value, dict):
            label = rich_assemble(
                (visible(item.key, True), self._style("key")), (f" {{{len(item.value)}}}", self._style("muted"))
            )
        elif isinstance(item.value, list):
            label = rich_assemble(
                (visible(item.key, True), self._style("key")), (f" [{len(item.value)}]", self._style("muted"))
            )
        else:
            label = rich_assemble(
                (visible(item.key, True), self._style("key")), (": ", self._style("muted")), self._scalar(item.value)
            )
        label.stylize(style)
        if node.allow_expand:
            return rich_assemble((self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE, base_style), label)
        return label

    def _scalar(self, value: Any) -> Text:
        if isinstance(value, str):
            shown = value if len(value) <= MAX_TEXT else value[:MAX_TEXT] + "…"
            text = cell(terminal_json(shown), self._style("string"))
            if len(value) > MAX_TEXT:
                text.append(f" ({len(value)} chars)", self._style("muted"))
            return text
        if isinstance(value, bool) or value is None:
            return cell(json.dumps(value), self._style("literal"))
        return cell(json.dumps(value), self._style("number"))
