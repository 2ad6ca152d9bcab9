"""`ctrl+g` on the run screen: save the active tab's run (its input and its envelope) as a golden test pair.

The core writes the pair (`core.authoring.golden_save`, D98) in a thread
worker that loads the module afresh from disk first, so the manifest it edits
is the one on disk now. The worker posts one `GoldenSaved`; its handler
notifies and revalidates the module so the browser and the goldens screen see
the new test.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Protocol

from textual.message import Message

from cogtui.core.authoring.golden_save import GoldenSaveError, SavedGolden, save_golden
from cogtui.core.module.loader import NotAModule, load_module

from ..watching import validate_entries
from ..workbench import Notifies

if TYPE_CHECKING:
    from pathlib import Path

    from textual.app import App
    from textual.screen import Screen

    from ..widgets.run_pane import RunPane


class GoldenSaveView(Notifies, Protocol):
    """What saving a golden uses of the run screen (RunScreen implements it)."""

    module_path: Path

    @property
    def app(self) -> App[object]: ...

    @property
    def screen(self) -> Screen[object]: ...  # the screen itself: where the worker runs and posts

    def active_pane(self) -> RunPane | None: ...


class GoldenSaved(Message):
    """The pair was written (`saved`), or why not (`error`)."""

    def __init__(self, saved: SavedGolden | None, error: str | None) -> None:
        super().__init__()
        self.saved, self.error = saved, error


class GoldenSaveFlow:
    def __init__(self, screen: GoldenSaveView) -> None:
        self.screen = screen

    def start(self) -> None:
        screen = self.screen
        pane = screen.active_pane()
        if pane is None or pane.result is None:
            screen.notify("No finished run in this tab: ctrl+r runs the module first.", severity="warning")
            return
        path, given, result = screen.module_path, pane.request.input, pane.result

        def work() -> None:
            node.post_message(save(path, given, result.envelope, result.interrupted))

        node = screen.screen
        node.run_worker(work, thread=True, group="save-golden", exit_on_error=False, name="save as golden")

    def saved(self, message: GoldenSaved) -> None:
        screen = self.screen
        if message.saved is None:
            screen.notify(message.error or "failed", title="Not saved as golden", severity="error", markup=False)
            return
        saved = message.saved
        where = "listed in module.yaml's tests" if saved.listed else "found by the tests/ folder's pairing"
        screen.notify(
            f"tests/{saved.input_path.name} → tests/{saved.expected_path.name} ({where}).",
            title=f"Saved golden test {saved.name}",
            timeout=8,
            markup=False,
        )
        validate_entries(screen.app, [screen.module_path], group="revalidate")


# One save at a time: each loads the module, picks the first free name and rewrites module.yaml, so two at
# once (ctrl+g pressed twice) would pick the same name, or the second would write module.yaml without the
# first's entry. Held from the load to the commit, the next save sees what the one before wrote.
_saving = threading.Lock()


def save(path: Path, given: Any, envelope: dict[str, Any] | None, interrupted: bool = False) -> GoldenSaved:
    with _saving:
        try:
            module = load_module(path)
        except (NotAModule, OSError) as exc:
            return GoldenSaved(None, f"cannot load {path}: {exc}")
        try:
            return GoldenSaved(save_golden(module, given, envelope, interrupted=interrupted), None)
        except GoldenSaveError as exc:
            return GoldenSaved(None, str(exc))
