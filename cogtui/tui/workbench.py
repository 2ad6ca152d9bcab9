"""What screens, commands and workers may use of the app beyond Textual's `App`: the `Workbench` protocol.

`CogtuiApp` implements it; nothing below the app imports `app.py` (no import
cycle, tested by tests/test_import_cycles.py). State is read through the
protocol; going to another screen is a `Navigate` message (messages.py) that
the app's one handler turns into a push (navigation.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from textual.app import App
    from textual.notifications import SeverityLevel
    from textual.signal import Signal

    from cogtui.core.settings.config import Config

    from .run_drafts import RunDrafts
    from .store import ModuleStore


class Notifies(Protocol):
    """Anything that can tell the user something: Textual's `App.notify`/`Screen.notify` signature.
    The flows that must not import their screen (migrate.planning.MigrationView, golden_accepting.AcceptView) extend it;
    the run screen's flows take it as what they tell the user through."""

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None: ...


@runtime_checkable
class Workbench(Protocol):
    """The app's own state and the few commands every screen may ask of it."""

    config: Config
    store: ModuleStore
    watching: bool  # whether the search path is watched for file changes (asked for: see watch_note)
    watch_note: str  # what watching leaves out, or why it stopped ("" when everything is watched)
    watch_stopped: bool  # watching was asked for, but the watcher gave up (watch_note says why)
    watch_changed: Signal[None]  # watching, watch_note or watch_stopped changed
    modules_changed: Signal[list[Path] | None]  # None: modules appeared or vanished
    history_waiting: int  # runs waiting in the history's outbox (messages.HistoryWaiting)
    history_changed: Signal[None]  # history_waiting changed
    run_drafts: RunDrafts  # what was typed on each module's run screen, until cogtui quits

    def key_time(self) -> float: ...  # when the key being handled arrived (monotonic), else now

    def validate_all(self) -> None: ...

    def validate_unreported(self, touched: set[Path] | None = None) -> None: ...

    def start_watching(self) -> None: ...

    def persist(self, key: str, value: Any) -> object: ...

    def choose_theme(self, name: str) -> None: ...


def workbench(app: App[Any]) -> Workbench:
    """The running app as a Workbench (a screen's `self.app`)."""
    if not isinstance(app, Workbench):
        raise TypeError(f"{type(app).__name__} is not a cogtui workbench")
    return app
