"""The search path as a tree: level → (root) → module → the modules it shadows.

Labels are drawn from the node's data on every render, with component
classes styled in CSS from theme variables, so a new report or a new theme
shows at once without rebuilding the tree.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar, NamedTuple

from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from cogtui.core.files.terminal_text import visible
from cogtui.core.module.discovery import LEVELS, ModuleEntry, SearchRoot
from cogtui.core.module.model import DEPRECATED_FORMATS
from cogtui.core.module.selection import follow_selection, name_matches

from ..shown import cell, rich_assemble
from ..store import ModuleStore

LEVEL_TITLES = {"path": "--path", "project": "project", "user": "user", "custom": "custom"}


# The nodes' data: NamedTuples, immutable records that cost a tenth of a frozen dataclass to define (start-up).
class LevelItem(NamedTuple):
    level: str
    roots: tuple[SearchRoot, ...]
    modules: int  # how many are shown under it


class RootItem(NamedTuple):
    root: SearchRoot
    modules: int


class ModuleItem(NamedTuple):
    entry: ModuleEntry


NodeItem = LevelItem | RootItem | ModuleItem


class ModuleTree(Tree[NodeItem]):
    HELP_NAME = "module tree"  # what help calls it (help.seen_name)

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "module-tree--name",
        "module-tree--dim",
        "module-tree--badge",
        "module-tree--deprecated",
        "module-tree--ok",
        "module-tree--warning",
        "module-tree--error",
        "module-tree--pending",
        "module-tree--level",
        "module-tree--shadowed",
    }

    def __init__(self, store: ModuleStore, **kwargs: Any) -> None:  # Tree's own keywords, passed through
        # A Text root (hidden): Tree reads a str label as Rich markup, which imports Rich's emoji table.
        super().__init__(cell("modules"), **kwargs)
        self.store = store
        self.show_root = False
        self.auto_expand = False  # enter opens a module; space toggles
        self.guide_depth = 3
        self.filter_text = ""
        self.module_nodes: dict[Path, TreeNode[NodeItem]] = {}
        self._shadow_nodes: dict[Path, TreeNode[NodeItem]] = {}
        self._order: list[Path] = []  # every shown-if-unfiltered module, in display order
        self._keep: ModuleEntry | None = None  # the module the cursor goes back to once the lines exist
        self._restore_pending = False
        self._wanted: Path | None = None  # a module to select once a rebuild shows it (select_module)

    def on_resize(self, event: events.Resize) -> None:
        """Tree's own resize handler throws its drawn lines away and draws them all again; at start that is
        right after the first frame, whose drawing it repeats. Nothing a line
        shows depends on the size: lines are drawn from the nodes (any change to them redraws through Tree's
        own invalidation) and kept by width, so a new width draws anew and a new height reuses them. Skipped
        with the documented `prevent_default` (only Tree handles a Resize between here and Widget)."""
        event.prevent_default()

    # ------------------------------------------------------------ building

    def rebuild(self, filter_text: str | None = None) -> None:
        """Rebuild from the store, keeping only module names containing the filter (case-insensitive).

        The selection follows the module, not the row (`core.module.selection.follow_selection`)."""
        if filter_text is not None:
            self.filter_text = filter_text
        # Until the new lines are laid out, the cursor points at whatever row it had: a rebuild in that window
        # (each key typed in the filter, the cleared box's own change) keeps the module the first one keeps.
        keep = self._keep if self._restore_pending else self.cursor_entry
        wanted, self._wanted = self._wanted, None
        self.clear()
        self.module_nodes.clear()
        self._shadow_nodes.clear()
        entries = self.store.entries
        winners = [e for e in entries if not e.shadowed]
        shadowed: dict[Path, list[ModuleEntry]] = {}
        for e in entries:
            if e.shadowed_by is not None:
                shadowed.setdefault(e.shadowed_by, []).append(e)
        self._order = []
        for level in LEVELS:
            roots = tuple(r for r in self.store.search_path.roots if r.level == level)
            if not roots:
                continue
            all_in_level = [e for e in winners if e.root.level == level]
            in_level = [e for e in all_in_level if name_matches(e.name, self.filter_text)]
            if self.filter_text and not in_level:
                self._order += [e.path for root in roots for e in all_in_level if e.root == root]
                continue
            level_node = self.root.add(cell(str(level)), LevelItem(level, roots, len(in_level)), expand=True)
            for root in roots:
                self._order += [e.path for e in all_in_level if e.root == root]
                in_root = [e for e in in_level if e.root == root]
                parent = level_node
                if len(roots) > 1:
                    parent = level_node.add(
                        cell(visible(str(root.path), True)), RootItem(root, len(in_root)), expand=True
                    )
                for entry in in_root:
                    shadows = shadowed.get(entry.path, [])
                    if shadows:
                        node = parent.add(cell(visible(entry.name, True)), ModuleItem(entry), expand=True)
                        for s in shadows:
                            self._shadow_nodes[s.path] = node.add_leaf(cell(visible(s.name, True)), ModuleItem(s))
                    else:
                        # Text labels: a str would be parsed as markup, once per node per rebuild.
                        node = parent.add_leaf(cell(visible(entry.name, True)), ModuleItem(entry))
                    self.module_nodes[entry.path] = node
        wanted_node = self.module_nodes.get(wanted) if wanted is not None else None
        if wanted_node is not None and isinstance(wanted_node.data, ModuleItem):
            keep = wanted_node.data.entry
        self._keep = keep
        if not self._restore_pending:
            self._restore_pending = True
            self.call_after_refresh(self._restore_cursor)

    class Rebuilt(Message):
        """The tree was rebuilt and its cursor put back: the selection may have changed without a
        NodeHighlighted (the cursor stayed on the same line, or no module is left)."""

        def __init__(self, entry: ModuleEntry | None) -> None:
            super().__init__()
            self.entry = entry

    def _restore_cursor(self) -> None:
        # Nodes know their line once the tree's lines are built: reading `last_line` builds them if no refresh has.
        self._restore_pending = False
        if self.last_line < 0:
            self.post_message(self.Rebuilt(None))
            return
        keep = self._keep
        if keep is not None and keep.shadowed_by is not None and keep.path in self._shadow_nodes:
            self.move_cursor(self._shadow_nodes[keep.path])  # a shadowed entry, still shown under its winner
        else:
            anchor = keep.shadowed_by if keep is not None and keep.shadowed_by is not None else None
            wanted = follow_selection(anchor or (keep.path if keep else None), self._order, self.module_nodes)
            if wanted is not None:
                self.move_cursor(self.module_nodes[wanted])
        self.post_message(self.Rebuilt(self.cursor_entry))

    def select_first_module(self) -> bool:
        first = next(iter(self.module_nodes.values()), None)
        if first is None:
            return False
        if self._restore_pending:  # the lines are not laid out yet: the restore puts the cursor there
            assert isinstance(first.data, ModuleItem)
            self._keep = first.data.entry
        else:
            self.move_cursor(first)
        return True

    def select_module(self, path: Path) -> None:
        """Put the cursor on the module at `path` (a module just created): now when the tree shows it, else after the
        next rebuild (the rediscovery that finds it) if that one shows it."""
        node = self.module_nodes.get(path)
        if node is None or not isinstance(node.data, ModuleItem):
            self._wanted = path
        elif self._restore_pending:
            self._keep = node.data.entry
        else:
            self.move_cursor(node)

    def refresh_labels(self, paths: list[Path] | None = None) -> None:
        """Reports changed: labels are drawn from data, so repainting those nodes is enough."""
        for path, node in self.module_nodes.items():
            if paths is None or path in paths:
                node.refresh()

    # ------------------------------------------------------------ drawing

    def get_label_width(self, node: TreeNode[NodeItem]) -> int:
        """An estimate from plain lengths (Tree asks for every node on each rebuild; the pane clips anyway)."""
        item = node.data
        if isinstance(item, ModuleItem):
            report = self.store.report(item.entry.path)
            extra = (
                0
                if report is None
                else len(report.version or "") + len(report.format or "") + len(report.tier or "") + 18
            )
            return len(item.entry.name) + 6 + extra
        return len(str(node.label)) + 24  # str() of a rich Text is its plain text

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"module-tree--{name}", partial=True)

    def render_label(self, node: TreeNode[NodeItem], base_style: Style, style: Style) -> Text:
        item = node.data
        if isinstance(item, ModuleItem):
            label = self._module_label(item.entry)
        elif isinstance(item, LevelItem):
            where = "" if len(item.roots) > 1 else f"  {self.store.display(item.roots[0].path)}"
            missing = all(not r.path.exists() for r in item.roots)
            label = rich_assemble(
                (LEVEL_TITLES[item.level], self._style("level")),
                (f" ({item.modules}){where}" + ("  not found" if missing else ""), self._style("dim")),
            )
        elif isinstance(item, RootItem):
            label = rich_assemble(
                (self.store.display(item.root.path), self._style("dim")), (f" ({item.modules})", self._style("dim"))
            )
        else:
            label = cell(str(node.label))
        label.stylize(style)
        if node.allow_expand:
            prefix = (self.ICON_NODE_EXPANDED if node.is_expanded else self.ICON_NODE, base_style)
            return rich_assemble(prefix, label)
        return label

    def _module_label(self, entry: ModuleEntry) -> Text:
        report = self.store.report(entry.path)
        if entry.shadowed:
            shadower = self.store.display(entry.shadowed_by) if entry.shadowed_by else "?"
            return rich_assemble(
                (visible(entry.name, True), self._style("shadowed")),
                (f"  shadowed by {shadower}", self._style("shadowed")),
            )
        # Status first, so a narrow pane never cuts it off.
        if report is None:
            parts: list[tuple[str, Style]] = [("… ", self._style("pending"))]
        elif report.errors:
            parts = [(f"✗{report.errors} ", self._style("error"))]
        elif report.warnings:
            parts = [(f"⚠{report.warnings} ", self._style("warning"))]
        else:
            parts = [("✓ ", self._style("ok"))]
        parts.append((visible(entry.name, True), self._style("name")))
        if report is not None:
            if report.version:
                parts.append((f" {visible(report.version, True)}", self._style("dim")))
            fmt = report.format or "?"
            old = fmt in DEPRECATED_FORMATS  # as `cogn validate` says: migrate it
            parts.append((f" {fmt} deprecated" if old else f" {fmt}", self._style("deprecated" if old else "badge")))
            if report.tier:
                parts.append((f" {visible(report.tier, True)}", self._style("dim")))
        return rich_assemble(*parts)

    # ------------------------------------------------------------ queries

    @property
    def cursor_entry(self) -> ModuleEntry | None:
        node = self.cursor_node
        return node.data.entry if node is not None and isinstance(node.data, ModuleItem) else None
