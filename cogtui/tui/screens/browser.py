"""The first screen: the search path as a tree, a filter, and the selected module's details."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import getters, on
from textual.app import ComposeResult
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Input, Static, Tree

from ..keys import bindings
from ..messages import Navigate, ReportsReady
from ..places import browser_keys, named
from ..shown import block, markup
from ..widgets.key_footer import KeyFooter
from ..widgets.module_detail import ModuleDetail
from ..widgets.module_tree import ModuleItem, ModuleTree, NodeItem
from ..workbench import Workbench, workbench

if TYPE_CHECKING:
    from cogtui.core.module.discovery import ModuleEntry

DETAIL_DELAY = 0.08


# The keys that open a screen, from the screens' declarations (screens/<name>/__init__.py); those that act on the selected module are
# offered only while one is selected (pressed with none, they say "Select a module first."), as copying its path is.
SCREEN_KEYS = browser_keys()
MODULE_ACTIONS = frozenset({"copy_path"} | {key.action for spec, key in SCREEN_KEYS if spec.key_on_module})


class FilterInput(Input):
    """`/` shows it; typing filters; enter or down goes to the first match; escape clears.

    Enter and escape call the screen back at once (not through a message) so focus has moved before
    the next key is dispatched: keys typed right after enter go to the tree (see key_pipeline.py).
    """

    HELP_NAME = "filter"  # what help calls it (help.seen_name)

    BINDINGS = bindings("filter.accept", "filter.cancel")

    def __init__(self, on_accept: Callable[[], None], on_cancel: Callable[[], None], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.on_accept, self.on_cancel = on_accept, on_cancel

    def action_accept(self) -> None:
        self.on_accept()

    def action_cancel(self) -> None:
        self.on_cancel()


class BrowserScreen(Screen[None]):
    # The footer shows the main keys, in this order.
    BINDINGS = bindings(
        "browser.filter",
        *(key.id for _spec, key in SCREEN_KEYS if key.main),
        "browser.validate",
        *(key.id for _spec, key in SCREEN_KEYS if not key.main),
        "browser.copy_path",
    )
    HELP = "Browse the modules on the search path. `?` lists every key."

    # Composed once, for the screen's life (the filter bar is mounted on first use: it is queried where used).
    module_tree = getters.query_one("#tree", ModuleTree)
    module_detail = getters.query_one("#detail", ModuleDetail)
    status_line = getters.query_one("#status", Static)

    _detail_timer: Timer | None = None

    @property
    def bench(self) -> Workbench:
        return workbench(self.app)

    def compose(self) -> ComposeResult:
        # No containers: the screen lays the tree and the detail side by side, the status and footer docked below
        # (a container around them is one more widget to lay out and style in the first frame, for nothing).
        yield ModuleTree(self.bench.store, id="tree")
        yield ModuleDetail(id="detail")
        yield Static(id="status", classes="browser-status")
        yield KeyFooter()

    def on_mount(self) -> None:
        tree = self.module_tree
        tree.rebuild()
        tree.focus()
        self.bench.modules_changed.subscribe(self, self._modules_changed)
        self.bench.watch_changed.subscribe(self, lambda _: self._update_status())
        self.bench.history_changed.subscribe(self, lambda _: self._update_status())
        self._update_status()

    # ------------------------------------------------------------ state from the app

    def _modules_changed(self, paths: list[Path] | None) -> None:
        tree = self.module_tree
        if paths is None:
            tree.rebuild()
        else:
            tree.refresh_labels(paths)
        self._update_status()
        entry = tree.cursor_entry
        if entry is not None and (paths is None or entry.path in paths):
            self._show(entry.path)

    def _update_status(self) -> None:
        store = self.bench.store
        total, errors, warnings = store.totals()
        done = sum(1 for e in store.winners if store.report(e.path) is not None)
        parts = [f"{total} module{'s' * (total != 1)}"]
        if done < total:
            parts.append(f"validating {done}/{total}")
        parts.append(f"[$error]✗ {errors}[/]" if errors else "[$success]0 errors[/]")
        parts.append(f"[$warning]⚠ {warnings}[/]" if warnings else "0 warnings")
        bench = self.bench
        if not bench.watching:
            parts.append("[$text-muted]not watching[/]")
        elif bench.watch_stopped:
            parts.append("[$warning]not watching: $watch_note[/]")
        else:
            parts.append("watching files ($watch_note)" if bench.watch_note else "watching files")
        if waiting := bench.history_waiting:  # kept runs the history has not taken yet (cogn history flush)
            parts.append(f"[$warning]{waiting} run{'s' * (waiting != 1)} waiting to be recorded[/]")
        self.status_line.update(markup("  ·  ".join(parts), watch_note=bench.watch_note))

    def _show(self, path: Path) -> None:
        store = self.bench.store
        report = store.report(path)
        self.module_detail.show(report.module if report else None, report, store.entry_for(path), store)

    def offers(self, action: str) -> bool:
        """The keys the footer shows (`KeyFooter`): a module's keys only while a module is selected."""
        return action not in MODULE_ACTIONS or self.module_tree.cursor_entry is not None

    # ------------------------------------------------------------ tree and filter

    @on(Tree.NodeHighlighted, "#tree")
    def _highlighted(self, event: Tree.NodeHighlighted[NodeItem]) -> None:
        self.refresh_bindings()  # a module's keys, offered or not
        if isinstance(event.node.data, ModuleItem):
            # Debounced: moving fast (or filtering) repaints the tree at once and the details once you stop.
            path = event.node.data.entry.path
            if self._detail_timer is not None:
                self._detail_timer.stop()
            self._detail_timer = self.set_timer(DETAIL_DELAY, lambda: self._show(path))

    @on(ModuleTree.Rebuilt)
    def _rebuilt(self, event: ModuleTree.Rebuilt) -> None:
        """The details follow the selection after every rebuild (a filter, a rediscovery)."""
        self.refresh_bindings()
        if self._detail_timer is not None:
            self._detail_timer.stop()
        if event.entry is not None:
            self._show(event.entry.path)
            return
        tree = self.module_tree
        why = f"No module name contains {tree.filter_text!r}." if tree.filter_text else "No modules on the search path."
        unsearched = None if tree.filter_text else self.bench.store.unsearched_note()
        if unsearched is not None:  # modules put where SPEC-v2.5's examples show them, which is not searched (PATH-4)
            why += f"\n\n{unsearched[:1].upper()}{unsearched[1:]}."
        self.module_detail.show_message(block(why))

    @on(Tree.NodeSelected, "#tree")
    def _selected(self, event: Tree.NodeSelected[NodeItem]) -> None:
        if isinstance(event.node.data, ModuleItem):
            self.action_open()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.module_tree.rebuild(event.value)

    def _filter_accepted(self) -> None:
        tree = self.module_tree
        tree.select_first_module()
        self.set_focus(tree)

    def _filter_cancelled(self) -> None:
        box = self.query_one(FilterInput)
        box.value = ""
        self.query_one("#filter-bar").add_class("-hidden")
        tree = self.module_tree
        tree.rebuild("")
        self.set_focus(tree)

    async def action_filter(self) -> None:
        boxes = self.query(FilterInput)
        if boxes:
            box = boxes.first()
        else:  # mounted on first use (widgets fewer before the first frame): a bar docked above the status line
            from textual.containers import Horizontal
            from textual.widgets import Label

            box = FilterInput(
                self._filter_accepted, self._filter_cancelled, placeholder="a module's name, or part of it", id="filter"
            )
            await self.mount(Horizontal(Label("Filter", id="filter-label"), box, id="filter-bar"))
        self.query_one("#filter-bar").remove_class("-hidden")
        self.set_focus(box)  # now, not after the keys already queued (key_pipeline.py)

    def select_module(self, path: Path) -> None:
        """Select the module at `path` (one just created): the details show it, and `r` or enter act on it."""
        self.module_tree.select_module(path)

    # ------------------------------------------------------------ actions on the selected module

    def _selected_entry(self) -> ModuleEntry | None:
        entry = self.module_tree.cursor_entry
        if entry is None:
            self.notify("Select a module first.", severity="warning")
        return entry

    def action_open(self) -> None:
        """Enter on a module of the tree: its editor, as the `browser.open` key."""
        self.action_go("editor")

    def action_go(self, name: str) -> None:
        """Open the screen declared as `name` (its package's SPEC): on the selected module, or one that needs none."""
        spec = named(name)
        if spec.key_on_module and spec.for_module is not None:
            if (entry := self._selected_entry()) is not None:
                self.app.post_message(Navigate(spec.for_module(entry.path, entry.name)))
        elif spec.anywhere is not None:
            self.app.post_message(Navigate(spec.anywhere(tuple(e.path for e in self.bench.store.winners))))

    def action_validate_all(self) -> None:
        # Through the app's one handler (it rediscovers and tells every screen), then validate all.
        self.app.post_message(ReportsReady([], rediscover=True))
        self.app.call_later(self.bench.validate_all)
        self.notify("Validating every module…")

    def action_copy_path(self) -> None:
        if (entry := self._selected_entry()) is not None:
            self.app.copy_to_clipboard(str(entry.path))
            self.notify(f"Copied {entry.path}", markup=False)
