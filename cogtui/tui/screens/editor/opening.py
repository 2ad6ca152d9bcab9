"""Opening the module's files as tabs: all of them as the editor opens, and later the ones that have none.

As the editor opens, its module and every file it shows as a tab (up to `EDITOR_FILE_LIMIT`), with the contract
tab's map, are read off the UI thread (TUI-4: a big module would hold up the keys) by `read_opening`, through
`module_loads.FolderReads`; the screen says "Loading the module…" meanwhile, and `Opening.opened` draws the tabs
once they arrive, then starts the checks and the watcher. A module that cannot be loaded (the folder gone, not a
module) is a str saying why; a file the confined reader refuses, or that is gone by the time it is read, opens
read-only with its located problem (`FileBuffer.load`).

Later, the files on disk that have no tab (closed when the file was deleted, the file back since, or made since
the editor opened) open again: one at a time from the tab list (picker.py), or all at once when the user asks for
this module's editor again ("Open X": `reopen`), as a new editor would show them. Which files those are comes from
`read_listing`, read off the UI thread too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from cogtui.core.authoring.editor_files import FileBuffer, relative_name
from cogtui.core.authoring.editor_state import CONTRACT_PANE
from cogtui.core.files.module_listing import ModuleListing, module_files
from cogtui.core.module.contract_map import ContractMap, contract_map
from cogtui.core.module.model import Module

from ...module_loads import FolderReads, ModuleLoaded
from ...widgets.contract_tree import ContractTree
from .drawing import START_FOCUS, file_pane

if TYPE_CHECKING:
    from .saving import DiskFlow
    from .view import EditorView


@dataclass(frozen=True)
class ModuleRead:
    """The editor's module, its files read (`FileBuffer.load`, in tab order) and the contract tab's map."""

    module: Module
    buffers: tuple[FileBuffer, ...]
    contract: ContractMap


def read_opening(root: Path, focus_file: Path | None = None) -> ModuleRead | str:
    """The module at `root` and its files (the loader's first, then the rest; `focus_file` too when it is a file
    outside that list), each read; or why the module cannot be opened."""
    from cogtui.core.module.loader import NotAModule, load_module

    try:
        module = load_module(root)
    except (NotAModule, OSError) as exc:
        return str(exc)
    files = list(module_files(root, module.all_files).files)
    if focus_file is not None and focus_file not in files and focus_file.is_file():
        files.append(focus_file)
    buffers = tuple(
        FileBuffer(path, relative_name(path, root), f"file-{index}", root) for index, path in enumerate(files)
    )
    for buf in buffers:
        buf.load()  # decides whether it is read-only, and why
    return ModuleRead(module, buffers, contract_map(module))


def read_listing(root: Path) -> ModuleListing | str:
    """The module folder's files as they are now (a short walk: at most EDITOR_FILE_LIMIT), or why there are none."""
    if not root.is_dir():
        return f"Cannot list the files of {root}: the module folder is gone"
    return module_files(root)


class Opening:
    """The editor's two reads of its folder (`module_read` as it opens, `listing` for the files without a tab),
    started here and answered through the screen's one handler of reads (`arrived`)."""

    def __init__(self, editor: EditorView, disk: DiskFlow) -> None:
        self.editor = editor
        self.disk = disk  # its watcher starts once the tabs are drawn
        root, screen = editor.module_path, editor.screen
        self.module_read = FolderReads(
            screen, root, partial(read_opening, focus_file=editor.focus_file), "load the module"
        )
        self.listing = FolderReads(screen, root, read_listing, "list the module's files")
        self.waiting: list[Callable[[list[Path] | str], object]] = []  # answered when the folder's listing arrives

    def start(self) -> None:
        """Read the module and its files (the editor is mounted: "Loading the module…" until they arrive)."""
        self.module_read.start()

    async def arrived(self, message: ModuleLoaded) -> None:
        if message.reads is self.listing:
            self.listed(self.listing.arrived(message))
        else:
            await self.opened(self.module_read.arrived(message))

    async def opened(self, read: ModuleRead | str) -> None:
        """The module and its files, read: their tabs (the file asked for shown first, as the editor opened or
        since, else the manifest), or why there are none; then validation and the watcher start. Nothing is drawn
        once the editor is closed (`is_open`: it may be popped before, or while, they are drawn)."""
        editor, state = self.editor, self.editor.state
        if isinstance(read, str):
            state.opened((), None, read)
        else:
            state.opened(read.buffers, read.module.name)
            start = state.file_for(editor.focus_file) if editor.focus_file is not None else None
            if start is not None:
                state.activate(start.pane_id)
        if not editor.is_open:  # closed as it took them
            return
        await editor.body.recompose()  # the tabs, drawn from the state
        if not editor.is_open:  # closed while they were drawn
            return
        if not isinstance(read, str):
            editor.screen.query_one(ContractTree).show_map(read.contract)
        if state.active:  # shown once drawn (the strip is drawn without `initial=`: drawing.EditorBody)
            editor.tabs.active = state.active
        editor.screen.query(START_FOCUS).first().focus()
        editor.update_status()
        editor.validate_now()
        self.disk.watch()

    def without_tab(self, then: Callable[[list[Path] | str], object]) -> None:
        """`then(the module's files on disk that have no tab)`, once the folder is listed in a thread worker (a short
        walk: at most EDITOR_FILE_LIMIT files), or `then(why it cannot be listed)`. A listing under way answers every
        caller that asked meanwhile."""
        self.waiting.append(then)
        self.listing.start()

    def listed(self, listing: ModuleListing | str) -> None:
        """The editor's listing arrived (the screen's one handler of reads): each caller waiting for it is answered."""
        waiting, self.waiting = self.waiting, []
        answer = listing if isinstance(listing, str) else self.editor.state.without_tab(listing.files)
        for then in waiting:
            then(answer)

    async def open_files(self, paths: list[Path], show: Path | None = None) -> list[str]:
        """A tab for each of `paths` that still has none, before the contract tab; `show` is shown. Returns the
        names of the files opened."""
        editor = self.editor
        state, tabs = editor.state, editor.tabs
        opened = []
        for path in paths:
            if state.file_for(path) is not None or not path.is_file():
                continue
            buf = FileBuffer(path, relative_name(path, state.root), state.new_pane_id(), state.root)
            contract = {"before": CONTRACT_PANE} if state.contract else {}
            # The tab first, then the file joins the state: other handlers go on while the tab mounts (the watcher
            # reporting this very file, a validation whose timer fired), and each takes the state's files to have
            # their text areas. Calls of this one run in turn (the app's queue), so the pane id stays unused.
            await tabs.add_pane(file_pane(editor.app, buf), **contract)
            state.add(buf)
            opened.append(buf.rel)
        if show is not None and (shown := state.file_for(show)) is not None:
            editor.show_tab(shown.pane_id)
        if opened:
            editor.validate_now()
        return opened

    def reopen(self, show: Path | None = None) -> None:
        """Back in this editor ("Open X" again): tabs for the module's files that have none, as a new editor would
        show, said once; `show` (a file asked for) is shown. While the editor is still reading its module, that
        read shows every file, and `show` first."""
        editor = self.editor
        if editor.state.loading:
            editor.focus_file = show or editor.focus_file
            return

        def listed(paths: list[Path] | str) -> None:
            if isinstance(paths, str):  # the folder is gone: nothing to open, `show` shown if it has a tab
                editor.say(paths, severity="warning")
            editor.app.call_later(self.open_said, [] if isinstance(paths, str) else paths, show)

        self.without_tab(listed)

    async def open_said(self, paths: list[Path], show: Path | None) -> None:
        if not self.editor.is_open:
            return
        opened = await self.open_files(paths, show)
        if opened:
            names = ", ".join(opened[:5]) + (f" and {len(opened) - 5} more" if len(opened) > 5 else "")
            self.editor.say(f"Opened {names}: on disk, and no tab had it.", timeout=4)
