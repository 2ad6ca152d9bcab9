"""Which modules a batch of file changes touches: the rule behind file watching (the TUI's watchers call it).

A change under a search root belongs to the module folder it lies in (the
root's first-level folder, or the root itself when the root is a module). A
change is *structural* when modules appear or vanish: a new folder became a
module, or a known module's folder stopped being one. Editor leftovers and
our own temporary files never count (`is_scratch_file`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from cogtui.core.files.module_folder import is_module_dir
from cogtui.core.module.discovery import is_candidate_name

SCRATCH_SUFFIXES = (".cogtui-tmp", "~", ".swp", ".swx")


def is_scratch_file(path: str | Path) -> bool:
    """Editor swap and backup files, our atomic-write temporaries, bytecode caches: never a module change."""
    text = str(path)
    name = Path(text).name
    return name.endswith(SCRATCH_SUFFIXES) or name.startswith(".#") or "__pycache__" in text


@dataclass
class ModuleChanges:
    """What a batch of file changes means for the modules on the search path."""

    touched: set[Path] = field(default_factory=set)  # known module folders whose files changed
    structural: bool = False  # modules appeared or vanished: discovery must run again


def modules_touched(changed: Iterable[str | Path], roots: Iterable[Path], known: set[Path]) -> ModuleChanges:
    """The known modules whose files are among `changed`, and whether the set of modules itself changed."""
    root_list = list(roots)
    result = ModuleChanges()
    for raw in changed:
        if is_scratch_file(raw):
            continue
        path = Path(raw)
        for root in root_list:
            try:
                rel = path.relative_to(root)
            except ValueError:
                continue
            if root in known:  # a root that is itself a module
                result.touched.add(root)
                break
            if not rel.parts or not is_candidate_name(rel.parts[0]):
                break
            folder = root / rel.parts[0]
            if folder in known:
                result.touched.add(folder)
                if not is_module_dir(folder):
                    result.structural = True
            elif is_module_dir(folder):
                result.structural = True
            break
    return result
