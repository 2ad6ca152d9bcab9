"""What the editor reads off the UI thread (TUI-4), through `module_loads.FolderReads`: as it opens, its module and
every file it shows as a tab (up to `EDITOR_FILE_LIMIT`), with the contract tab's map; for its tab list (`f2`) and
"Open X" again, the files of the module's folder.

Both run in a thread worker: nothing here touches a widget. A module that cannot be loaded (the folder gone, not a
module) is a str saying why; a file the confined reader refuses, or that is gone by the time it is read, opens
read-only with its located problem (`FileBuffer.load`), as it always did.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cogtui.core.authoring.editor_files import FileBuffer, relative_name
from cogtui.core.files.module_listing import ModuleListing, module_files
from cogtui.core.module.contract_map import ContractMap, contract_map
from cogtui.core.module.model import Module


@dataclass(frozen=True)
class Opening:
    """The editor's module, its files read (`FileBuffer.load`, in tab order) and the contract tab's map."""

    module: Module
    buffers: tuple[FileBuffer, ...]
    contract: ContractMap


def read_opening(root: Path, focus_file: Path | None = None) -> Opening | str:
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
    return Opening(module, buffers, contract_map(module))


def read_listing(root: Path) -> ModuleListing | str:
    """The module folder's files as they are now (a short walk: at most EDITOR_FILE_LIMIT), or why there are none."""
    if not root.is_dir():
        return f"Cannot list the files of {root}: the module folder is gone"
    return module_files(root)
