"""Shared helpers for the TUI tests: an isolated environment, module copies, and polling."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest

from cogtui.core.run.providers.registry import secret_variables
from cogtui.core.settings.config import Config

if TYPE_CHECKING:
    from textual import events
    from textual.app import App
    from textual.dom import DOMNode
    from textual.pilot import Pilot
    from textual.screen import Screen

    from cogtui.core.authoring.migration.preview_state import ModuleSlot
    from cogtui.core.authoring.migration.review import ReviewPlan
    from cogtui.core.run.run_types import RunResult
    from cogtui.tui.app import CogtuiApp
    from cogtui.tui.screens.eval.screen import EvalScreen
    from cogtui.tui.screens.goldens.screen import GoldensScreen
    from cogtui.tui.screens.migrate.screen import MigrationScreen
    from cogtui.tui.screens.run.screen import RunScreen
    from cogtui.tui.widgets.run_pane import RunPane

MODULES = Path(__file__).resolve().parents[2] / "modules"

S = TypeVar("S", bound="Screen[Any]")


def isolate(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """HOME, config, data and provider settings inside tmp_path; returns a folder for module roots."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("COGTUI_CONFIG_FILE", str(tmp_path / "config.yaml"))
    monkeypatch.setenv("COGTUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("COGTUI_STATE_DIR", str(tmp_path / "state"))  # notices said once: said in each test
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("COGTUI_REPLAY_INTERVAL", "0")
    for name in (
        "COGNITIVE_MODULES_PATH",
        "COGNITIVE_PROVIDER",
        "COGNITIVE_MODEL",
        *secret_variables(),  # every provider's key
    ):
        monkeypatch.delenv(name, raising=False)
    root = tmp_path / "modules"
    root.mkdir(exist_ok=True)
    return root


def copy_modules(root: Path, *names: str) -> list[Path]:
    out = []
    for name in names:
        target = root / name
        shutil.copytree(MODULES / name, target)
        out.append(target)
    return out


def make_app(root: Path, cwd: Path, **kwargs: Any) -> CogtuiApp:
    from cogtui.tui.app import CogtuiApp

    config = kwargs.pop("config", None) or Config()
    return CogtuiApp(paths=[str(root)], cwd=cwd, watch=kwargs.pop("watch", False), config=config, **kwargs)


# How long a wait on an event may take before the test fails: a bound for a hang, never a measure of speed (those
# live in bench/). A wait that takes a second on an idle machine took over ten with the suite at `-n 10` on two
# shared cores; a test that passes never waits it out.
HANG_S = 60.0


async def until(
    predicate: Callable[..., object], pilot: Pilot[Any], timeout: float = HANG_S, step: float = 0.05
) -> None:
    """Pump the app until `predicate()` holds (is true); fail with a clear message after `timeout` seconds. The
    predicate is called without arguments: a lambda in a loop binds the loop's variable as a default."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not _holds(predicate):
        if loop.time() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        await pilot.pause(step)


def screen_of(app: App[Any], kind: type[S]) -> S:
    """The screen `app` shows now, which the test expects to be a `kind`."""
    screen = app.screen
    assert isinstance(screen, kind), f"{type(screen).__name__} is shown, not {kind.__name__}"
    return screen


def ended(pane: RunPane) -> RunResult:
    """The result of the pane's run, which the test expects to have ended."""
    assert pane.result is not None, "the run has not ended"
    return pane.result


def shown_slot(screen: MigrationScreen) -> ModuleSlot:
    """The module the migration screen shows, which the test expects to be one (not the overview)."""
    slot = screen.state.slot
    assert slot is not None, "the migration screen shows its overview"
    return slot


def planned(slot: ModuleSlot) -> ReviewPlan:
    """The plan of a module on the migration screen, which the test expects to be made."""
    assert slot.plan is not None, f"{slot.name} is not planned yet"
    return slot.plan


def editor_ready(app: App[Any]) -> bool:
    """The editor is the screen shown, its module read (off the UI thread, TUI-4) and its tabs drawn: the text of the
    file it opened on has the focus."""
    from textual.widgets import TextArea

    from cogtui.tui.screens.editor.screen import EditorScreen

    screen = app.screen
    return isinstance(screen, EditorScreen) and not screen.state.loading and isinstance(app.focused, TextArea)


def _holds(predicate: Callable[..., object]) -> bool:
    # A screen that is pushed but not yet composed has no widgets to query yet: not ready, not an error.
    from textual.css.query import NoMatches

    try:
        return bool(predicate())
    except NoMatches:
        return False


def key_event(char: str) -> events.Key:
    """The Key event a terminal sends for one typed character (Textual's key names: `/` is `slash`)."""
    import unicodedata

    from textual import events
    from textual.keys import KEY_NAME_REPLACEMENTS

    if char.isalnum() and char.isascii():
        return events.Key(char, char)
    name = {" ": "space", "\n": "enter", "\t": "tab", "\x1b": "escape"}.get(char)
    if name is None:
        name = unicodedata.name(char).lower().replace("-", "_").replace(" ", "_")
        name = KEY_NAME_REPLACEMENTS.get(name, name)
    return events.Key(name, char if char.isprintable() else None)


def burst(app: App[Any], text: str) -> None:
    """Type `text` at full speed: every key is queued at once, as a paste typed as keys or a slow SSH link
    delivers them, with no pause for the app to react between keys."""
    for char in text:
        app.post_message(key_event(char))


def endless_replay(monkeypatch: pytest.MonkeyPatch, interval: float = 0.05) -> None:
    """Replay answers that never end on their own: each streams its answer, then a space every `interval` seconds
    until the run is cancelled (a quit, escape). A test that acts on a running run finds it running however slowly
    the machine got it there, where a paced answer could have ended first."""
    from cogtui.core.run.providers.base import TextDelta
    from cogtui.core.run.providers.replay.provider import ReplayProvider

    answer = ReplayProvider.stream
    monkeypatch.setenv("COGTUI_REPLAY_INTERVAL", str(interval))

    async def stream(self: ReplayProvider, request: Any) -> Any:
        async for event in answer(self, request):
            if isinstance(event, TextDelta):
                yield event
        while True:
            await asyncio.sleep(interval)
            yield TextDelta(" ")

    monkeypatch.setattr(ReplayProvider, "stream", stream)


async def typed(app: CogtuiApp, pilot: Pilot[None], text: str) -> None:
    """`burst(app, text)`, then wait until every one of its keys has settled in the app's key pipeline
    (key_pipeline.py: dispatched, any binding it triggered run, the screen it leads to mounted). What a key
    would do has been done by then: a test can check what did not happen without waiting a fixed time."""
    keys = app.keys_in_order
    await until(lambda: keys.in_flight is None and not keys.waiting, pilot)  # earlier keys first
    last = keys.serial + len(text)
    burst(app, text)
    await until(lambda: keys.serial >= last and keys.in_flight is None and not keys.waiting, pilot)


async def timers_due(pilot: Pilot[Any], delay: float) -> None:
    """Wait until every timer the app armed so far with a delay of at most `delay` has fired: messages still
    queued are handled first (they may arm timers), then a timer of our own with that delay is armed last and
    awaited. Timers fire in the order they fall due, so a debounced update that is still coming has come."""
    await pilot.pause()
    fired = asyncio.Event()
    pilot.app.set_timer(delay, fired.set)
    await until(fired.is_set, pilot)


async def validated(app: CogtuiApp, pilot: Pilot[None]) -> None:
    """Wait until the app's validation workers (watching.validate_entries) have ended and what they posted has
    been handled: every module's new report is applied, and whatever screen follows reports has seen it."""
    await until(lambda: not any(w.name == "validate modules" for w in app.workers), pilot)
    await pilot.pause()


async def click(pilot: Pilot[Any], selector: str, timeout: float = HANG_S) -> None:
    """Click the widget `selector` on the current screen once it is laid out and nothing covers its centre.

    `Pilot.click` aims at the widget's region as it is at that moment: a dialog just pushed on a loaded machine
    may not be arranged yet, and the click then lands somewhere else (or nowhere) and is silently lost."""
    app = pilot.app

    def ready() -> bool:
        widget = app.screen.query_one(selector)
        region = widget.region
        if not region.area:
            return False
        x, y = region.center
        under, _ = app.screen.get_widget_at(int(x), int(y))
        return bool(under is widget or widget in under.ancestors_with_self)

    await until(ready, pilot, timeout)
    assert await pilot.click(selector), f"the click did not land on {selector}"


def notices(app: App[Any]) -> list[str]:
    """Every notification the app shows from now on, as "title: message" (recorded by wrapping App.notify)."""
    seen: list[str] = []
    notify = app.notify

    def record(message: str, *args: Any, **kwargs: Any) -> None:
        seen.append(f"{kwargs.get('title', '')}: {message}")
        notify(message, *args, **kwargs)

    setattr(app, "notify", record)  # noqa: B010  # on this app only (mypy refuses an assignment to a method)
    return seen


def toasts(app: App[Any]) -> list[str]:
    """The text of every notification on screen now, as its toast shows it (title and message).

    Toasts are only mounted when the test app runs with `run_test(notifications=True)`."""
    return [str(toast.render()) for toast in app.screen.query("Toast")]


def tui_node_classes() -> list[type[DOMNode]]:
    """Every widget, screen and app class defined in cogtui.tui (each screen and widget module imported)."""
    import importlib
    import inspect
    import pkgutil
    import sys

    from textual.dom import DOMNode

    import cogtui.tui
    import cogtui.tui.app

    for info in pkgutil.walk_packages(cogtui.tui.__path__, "cogtui.tui."):
        importlib.import_module(info.name)
    found: list[type[DOMNode]] = []
    for name, module in list(sys.modules.items()):
        if name.startswith("cogtui.tui"):
            found += [
                cls
                for _, cls in inspect.getmembers(module, inspect.isclass)
                if issubclass(cls, DOMNode) and cls.__module__ == name
            ]
    return found


async def open_run(app: CogtuiApp, pilot: Pilot[None], path: Path) -> RunScreen:
    """The run screen of the module at `path`, once it has loaded the module; returns the screen."""
    from cogtui.tui import navigation as nav
    from cogtui.tui.screens.run.screen import RunScreen

    await pilot.pause()
    nav.run_module(app, path)
    await until(lambda: isinstance(app.screen, RunScreen) and app.screen.module is not None, pilot)
    return screen_of(app, RunScreen)


async def open_eval(app: CogtuiApp, pilot: Pilot[None], path: Path) -> EvalScreen:
    """The eval screen of the module at `path`, once its first eval has ended; returns the screen."""
    from cogtui.tui.screens.eval.screen import EvalScreen

    await pilot.pause()
    app.push_screen(EvalScreen(path, app.config))
    await until(lambda: isinstance(app.screen, EvalScreen) and app.screen.report is not None, pilot)
    return screen_of(app, EvalScreen)


async def open_goldens(app: CogtuiApp, pilot: Pilot[None], path: Path) -> GoldensScreen:
    """The golden tests screen of the module at `path`, once its first run has ended; returns the screen."""
    from cogtui.tui import navigation as nav
    from cogtui.tui.screens.goldens.screen import GoldensScreen

    await pilot.pause()
    nav.goldens(app, path)
    await until(lambda: isinstance(app.screen, GoldensScreen) and app.screen.state.final, pilot)
    return screen_of(app, GoldensScreen)


def press_at(app: App[Any], key: str, *offsets: float, base: float | None = None) -> None:
    """Presses of `key`, as the terminal delivers them, that arrived `offsets` seconds after `base` (else now): each
    key event carries its arrival time (`Message.time`), which the run key's burst rule reads (TUI-5). Posted at once,
    so the rule sees these gaps whatever the load on the machine."""
    import time

    from textual import events

    base = time.monotonic() if base is None else base
    for offset in offsets:
        event = events.Key(key, None)
        event.time = base + offset
        app.post_message(event)


async def press_run_again(pilot: Pilot[None]) -> None:
    """`ctrl+r` on the run screen as a deliberate new run: dated a burst window after the screen's last press
    (presses closer together are one run, TUI-5), so the test neither waits the window out nor depends on how fast
    the run before it ended."""
    import time

    from cogtui.core.run.run_state import BURST_WINDOW
    from cogtui.tui.screens.run.screen import RunScreen

    app = pilot.app
    last = screen_of(app, RunScreen).state.presses.last
    offset = 0.0 if last is None else max(0.0, last + BURST_WINDOW - time.monotonic())
    press_at(app, "ctrl+r", offset)
    await pilot.pause()


def _palette_offers(app: App[Any], words: str) -> bool:
    """The open command palette highlights a command whose text holds every one of `words`."""
    from textual.command import CommandList, CommandPalette

    if not isinstance(app.screen, CommandPalette):
        return False
    option = app.screen.query_one(CommandList).highlighted_option
    text = str(getattr(option, "prompt", "")).casefold() if option is not None else ""
    return all(word.casefold() in text for word in words.split())


async def palette_pick(app: App[Any], pilot: Pilot[Any], words: str) -> None:
    """Open the command palette, type `words`, and choose the command once one matching them is highlighted
    (the palette searches asynchronously: pressing enter after a fixed pause picks whatever was found so far)."""
    from textual.command import CommandPalette

    await pilot.press("ctrl+p")
    await until(lambda: isinstance(app.screen, CommandPalette), pilot)
    for ch in words:
        await pilot.press("space" if ch == " " else ch)
    await until(lambda: _palette_offers(app, words), pilot)
    await pilot.press("enter")


async def written_until_seen(pilot: Pilot[Any], write: Callable[[], object], seen: Callable[[], object]) -> None:
    """`write()` again every second until `seen()` holds: a file watcher set up in the background misses a write
    made before it was watching, and how long it takes to start depends on the machine's load."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + HANG_S
    while True:
        write()
        try:
            await until(seen, pilot, timeout=1.0)
            return
        except AssertionError:
            if loop.time() > deadline:
                raise AssertionError(f"never seen within {HANG_S} s of writing") from None
