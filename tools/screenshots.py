"""`make screenshots`: one SVG per screen, taken from the app itself, headless.

    python -m tools.screenshots OUT_DIR  (from the repository root)

Runs on the bundled example modules in a throw-away HOME, config and data
folder (never the user's), after recording a few replay runs through the
real runner so that the run, history and insights screens have something to
show. Timestamps and timings are frozen so a regenerated screenshot only
changes when the UI does.

Each screen is reached by a *scene*: an async function that drives a Pilot
to the screen and holds it still (no cursor blink, no toasts, no worker
still running). A screen one can go to declares the place of its scene in
its package (`scene` in its SPEC); this file adds only what a declaration
cannot say, under the spec's name (STEPS: typing, waits, frozen figures). tests/tui/test_snapshots.py snapshots the same scenes at
80×24 and 120×36, so what `make screenshots` shows is what the tests check.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import re
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from textual.command import CommandList, CommandPalette
from textual.coordinate import Coordinate
from textual.css.query import NoMatches
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Select, Sparkline, Static, Tabs, TextArea

from cogtui.cli.cmd_migrate import migrate_path, plans_document
from cogtui.core.eval.stats import summarise
from cogtui.core.history.run_record import to_record
from cogtui.core.history.store import History, RunRecord
from cogtui.core.module.loader import load_module
from cogtui.core.module.model import UNPARSED
from cogtui.core.run.providers import make_provider
from cogtui.core.run.providers.base import ModelRequest, ProviderEvent, TextDelta, Usage
from cogtui.core.run.providers.registry import named, secret_variables
from cogtui.core.run.runner import RunOptions, run_module
from cogtui.core.settings.config import Config
from cogtui.tui import places
from cogtui.tui.app import CogtuiApp
from cogtui.tui.messages import Navigate
from cogtui.tui.places import ScreenSpec, specs
from cogtui.tui.screens.browser import BrowserScreen
from cogtui.tui.screens.eval.screen import EvalScreen
from cogtui.tui.screens.goldens.screen import GoldensScreen
from cogtui.tui.screens.help import HelpScreen
from cogtui.tui.screens.insights.screen import InsightsScreen
from cogtui.tui.screens.migrate.screen import MigrationScreen
from cogtui.tui.screens.run.screen import RunScreen
from cogtui.tui.widgets.compare_pane import ComparePane
from cogtui.tui.widgets.diagnostics_panel import DiagnosticsPanel
from cogtui.tui.widgets.diff_view import DiffView
from cogtui.tui.widgets.key_footer import KeyFooter
from cogtui.tui.widgets.module_tree import ModuleTree
from cogtui.tui.widgets.run_pane import RunPane, RunRequest
from cogtui.tui.widgets.text_views import CodeView

MODULES = Path(__file__).resolve().parents[1] / "modules"
SIZE = (120, 36)
T0 = 1_736_931_600.0  # 2025-01-15 09:00:00 UTC: recorded runs start here
FROZEN_USAGE = (("first chunk", "3 ms"), ("total", "12 ms"))  # the run pane's measured timings, as shown

AppPilot = Pilot[None]


@dataclass(frozen=True)
class Stage:
    """Where a scene finds its modules (a folder on the search path) and, for review, the saved plan."""

    root: Path
    plan_file: Path | None = None

    def module(self, name: str) -> Path:
        return self.root / name


@dataclass(frozen=True)
class Scene:
    name: str
    drive: Callable[[AppPilot, Stage], Awaitable[None]]
    review: bool = False  # the app opens on the saved plan (`cogtui review PLAN.json`) instead of the browser


# ------------------------------------------------------------------ waiting and holding still


async def until(pilot: AppPilot, predicate: Callable[[], object], what: str, timeout: float = 20.0) -> None:
    """Pump the app until `predicate()` holds (a widget not composed yet counts as not yet)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        try:
            if predicate():
                return
        except NoMatches:
            pass
        if loop.time() > deadline:
            raise TimeoutError(f"screenshots: timed out waiting for {what}")
        await pilot.pause(0.02)


def no_blink(*widgets: Input | TextArea) -> None:
    """A steady cursor. Set on an Input before it gets focus or a key, or its cursor stays hidden."""
    for widget in widgets:
        widget.cursor_blink = False


def underlines_placed(screen: Any) -> bool:
    """Every tab bar's underline is under its active tab. Textual places it when a tab becomes active, from the
    tab's region then: a tab activated before it was laid out (a loaded machine) leaves it short until the bar is
    resized, which places it again."""
    for tabs in screen.query(Tabs):
        active = tabs.active_tab
        if active is None or not tabs.display:
            continue
        line = tabs.query_one("Underline")
        span = active.virtual_region.shrink(active.styles.gutter).column_span
        if (getattr(line, "highlight_start", None), getattr(line, "highlight_end", None)) != span:
            return False
    return True


async def settle(pilot: AppPilot) -> None:
    """Hold the screen still: steady cursors, no toasts, nothing animating."""
    app = pilot.app
    no_blink(*app.screen.query(Input), *app.screen.query(TextArea))
    app.clear_notifications()
    await pilot.wait_for_scheduled_animations()
    if not underlines_placed(app.screen):  # a tab bar resized places its underline again
        width, height = app.size
        await pilot.resize_terminal(width + 1, height)
        await pilot.resize_terminal(width, height)
        await until(pilot, lambda: underlines_placed(app.screen), "the tab underlines in place")
        await pilot.wait_for_scheduled_animations()
    await pilot.pause()
    # A TextArea caches its lines under a key that ignores the cursor once blinking stops, so a line drawn in a
    # blink's "off" phase (a loaded machine gets there first) would keep hiding the steady cursor: re-applying
    # the styles clears those caches (Widget.notify_style_update), and the lines are drawn again as they are now.
    # Re-applying the stylesheet only notifies widgets whose styles changed, so each editor is told directly. The
    # rules are applied again as parsed (App.refresh_css would parse every rule of the app again first).
    app.stylesheet.update(app, animate=False)
    app.screen.refresh(layout=True)
    for area in app.screen.query(TextArea):
        area.notify_style_update()
        area.refresh()
    await pilot.pause()


def cog(pilot: AppPilot) -> CogtuiApp:
    return cast(CogtuiApp, pilot.app)


# ------------------------------------------------------------------ the browser and its overlays


async def browser_ready(pilot: AppPilot, select: Path | None = None) -> None:
    app = cog(pilot)
    await until(
        pilot,
        lambda: isinstance(app.screen, BrowserScreen) and bool(app.screen.query_one(KeyFooter).items),
        "the browser",
    )
    await until(pilot, lambda: all(app.store.report(e.path) for e in app.store.entries), "every module validated")
    await app.workers.wait_for_complete()
    if select is None:
        return
    tree = app.screen.query_one(ModuleTree)
    tree.move_cursor(tree.module_nodes[select])
    name = select.name
    await until(pilot, lambda: tree.cursor_entry is not None and tree.cursor_entry.path == select, f"{name} selected")
    body = app.screen.query_one("#detail-body", Static)
    await until(
        pilot,
        lambda: f"{name} " in str(body.render()) and "Responsibility" in str(body.render()),
        f"the details of {name}",
    )


async def browser(pilot: AppPilot, stage: Stage) -> None:
    await browser_ready(pilot, stage.module("code-reviewer"))
    await settle(pilot)


async def help_screen(pilot: AppPilot, stage: Stage) -> None:
    await browser_ready(pilot, stage.module("code-reviewer"))
    await pilot.press("question_mark")
    await until(pilot, lambda: isinstance(pilot.app.screen, HelpScreen), "the help screen")
    await settle(pilot)


async def palette(pilot: AppPilot, stage: Stage) -> None:
    await browser_ready(pilot, stage.module("code-reviewer"))
    await pilot.press("ctrl+p")
    await until(pilot, lambda: isinstance(pilot.app.screen, CommandPalette), "the command palette")
    no_blink(pilot.app.screen.query_one(Input))
    await pilot.press(*"run", "space", *"code")
    commands = pilot.app.screen.query_one(CommandList)
    await until(pilot, lambda: commands.option_count > 0, "palette hits")
    await pilot.app.workers.wait_for_complete()
    await settle(pilot)


async def review(pilot: AppPilot, stage: Stage) -> None:
    """`cogtui review PLAN.json`: the app opens on the saved plan's first page."""
    app = pilot.app
    await until(pilot, lambda: isinstance(app.screen, MigrationScreen) and bool(app.screen.slots), "the saved plan")
    screen = app.screen
    await until(pilot, lambda: not screen.query_one("#migrate-pane").loading, "the plan drawn")
    await app.workers.wait_for_complete()
    await settle(pilot)


# ------------------------------------------------------------------ the screens one can go to
#
# Each declares the place its scene goes to (`scene` in its package's SPEC): the scene opens the browser, goes
# there by `Navigate`, and waits for the screen and its workers. What a declaration cannot say is here, by the
# spec's name: what the scene does before (data, settings), which module the browser shows behind a dialog, and
# once the screen is shown, what the picture waits for, the keys it types and the measured figures it freezes.


@dataclass(frozen=True)
class Steps:
    """A declared screen's scene beyond going to its place."""

    select: str | None = None  # the module selected in the browser first (a dialog shows the browser behind it)
    before: Callable[[AppPilot, Stage], Awaitable[None]] | None = None  # before the app goes there
    shown: Callable[[AppPilot, Stage], Awaitable[None]] | None = None  # once it is shown (default: its workers done)


async def new_module(pilot: AppPilot, stage: Stage) -> None:
    """The module's name typed in."""
    no_blink(pilot.app.screen.query_one("#name", Input))
    await pilot.press(*"ticket", "minus", *"triage")
    await until(pilot, lambda: pilot.app.screen.query_one("#name", Input).value == "ticket-triage", "the name")


async def editor(pilot: AppPilot, stage: Stage) -> None:
    """code-reviewer's module.yaml with `tier: bogus` typed in (not saved), after the debounced validation."""
    app = cog(pilot)
    await until(pilot, lambda: bool(app.screen.query(DiagnosticsPanel)), "the editor")
    screen = app.screen
    panel = screen.query_one(DiagnosticsPanel)
    await until(pilot, lambda: panel.border_title != "Problems", "the first validation")
    area = screen.query_one(".-start-file", TextArea)
    area.focus()
    row = next(i for i, line in enumerate(area.text.split("\n")) if line.startswith("tier: "))
    area.move_cursor((row, len("tier: ")))
    area.move_cursor((row, len(area.document.get_line(row))), select=True)
    await pilot.press(*"bogus")
    await until(pilot, lambda: "M003" in [d.code for d in panel.diagnostics], "M003 in the problems panel")
    # No wait_for_complete here: the editor's file watcher is a worker that runs until the screen closes.


async def migration(pilot: AppPilot, stage: Stage) -> None:
    """The plan for legacy-summarizer (v0 → v2.2), on its first file's diff."""
    app = cog(pilot)
    screen = app.screen
    assert isinstance(screen, MigrationScreen)
    await until(pilot, lambda: bool(screen.slots) and screen.slots[0].plan is not None, "the migration plan")
    await until(pilot, lambda: not screen.query_one("#migrate-pane").loading, "the plan drawn")
    await pilot.press("j")
    await until(pilot, lambda: screen.file_index == 1 and screen.query_one(DiffView).line_count > 0, "the first diff")
    await app.workers.wait_for_complete()


async def run_idle(pilot: AppPilot, stage: Stage) -> None:
    """The run screen as it opens: code-reviewer's first golden as the input, checked against the input schema."""
    app = cog(pilot)
    await until(pilot, lambda: isinstance(app.screen, RunScreen) and app.screen.module is not None, "the run screen")
    status = app.screen.query_one("#run-input-status", Static)
    await until(pilot, lambda: "input" in str(status.render()), "the input check")
    await until(pilot, lambda: app.screen.query_one("#run-input").has_focus, "the input focused")
    await app.workers.wait_for_complete()


async def run(pilot: AppPilot, stage: Stage) -> None:
    """After a replay run of code-reviewer (ctrl+r); the measured timings are frozen."""
    app = cog(pilot)
    await run_idle(pilot, stage)
    await settle(pilot)
    await pilot.press("ctrl+r")
    await until(
        pilot,
        lambda: app.screen.query(RunPane) and app.screen.query_one(RunPane).result is not None,
        "the run to finish",
    )
    await app.workers.wait_for_complete()  # the history record too
    usage = app.screen.query_one(RunPane).query_one(".run-usage", Static)
    text = str(usage.render())
    for label, value in FROZEN_USAGE:
        text = re.sub(rf"{label} \d+ ms", f"{label} {value}", text)
    usage.update(text)


class ScriptedProvider:
    """An offline stand-in for a model (the screenshots call none): answers every request with one envelope."""

    def __init__(self, name: str, model: str, envelope: dict[str, Any]) -> None:
        self.name, self.model, self.envelope = name, model, envelope

    def capabilities(self) -> dict[str, Any]:
        return named(self.name).declaration({})  # the provider it stands in for: structured output as it has it

    def media_categories(self) -> tuple[str, ...]:
        return ()

    async def prepare(self) -> None:
        return None

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        yield TextDelta(json.dumps(self.envelope))
        yield Usage(3900, 900)

    async def aclose(self) -> None:
        return None


def second_opinion(envelope: dict[str, Any]) -> dict[str, Any]:
    """code-reviewer's golden answer as another model might word it: a softer verdict, one issue fewer."""
    data = dict(envelope["data"])
    data["verdict"] = "comment"
    data["issues"] = data["issues"][:3]
    meta = {**envelope["meta"], "confidence": 0.74, "risk": "medium"}
    meta["explain"] = "Comment: search() builds SQL from the q parameter; parameterise it. limit is unvalidated."
    return {**envelope, "meta": meta, "data": data}


async def run_compare(pilot: AppPilot, stage: Stage) -> None:
    """One input on two targets side by side (ctrl+r with "compare with" set), the differing fields marked. The
    screenshots call no model: both answers are scripted (the golden's, and a softer review of the same diff)."""
    app = cog(pilot)
    await run_idle(pilot, stage)
    await settle(pilot)
    screen = app.screen
    assert isinstance(screen, RunScreen) and screen.module is not None
    no_blink(screen.query_one("#run-compare", Input))
    screen.query_one("#run-provider", Select).value = "anthropic"
    screen.query_one("#run-compare", Input).value = "openai/gpt-4o-mini"
    test = screen.module.tests[0]
    golden = {k: v for k, v in test.expected.items() if k != "$judge"}
    providers = [
        ScriptedProvider("anthropic", "claude-sonnet-5-5", golden),
        ScriptedProvider("openai", "gpt-4o-mini", second_opinion(golden)),
    ]
    requests = [RunRequest(screen.module, test.input, None, p.name, p.model) for p in providers]
    labels = [f"{p.name}/{p.model}" for p in providers]
    await screen.tabs.open_compare(requests, [RunOptions(p) for p in providers], labels, screen.bench.config.prices)
    pane = screen.query_one(ComparePane)
    await until(pilot, lambda: not pane.running, "both runs")
    await app.workers.wait_for_complete()  # the history records too
    for index, latency in enumerate((3912.0, 2204.0)):  # measured latencies differ on every run: fixed ones
        pane.state.sides[index].latency_ms = latency
    pane.render_state()


async def history(pilot: AppPilot, stage: Stage) -> None:
    """The recorded runs, the newest one's envelope shown."""
    app = cog(pilot)
    await until(pilot, lambda: app.screen.query_one(DataTable).row_count, "the recorded runs")
    await app.workers.wait_for_complete()
    view = app.screen.query_one(CodeView)
    await until(pilot, lambda: '"ok"' in view.text, "the newest run's envelope")


async def goldens(pilot: AppPilot, stage: Stage) -> None:
    """Every golden of code-reviewer via replay; the second case highlighted (its envelope on the right)."""
    app = cog(pilot)
    screen = app.screen
    assert isinstance(screen, GoldensScreen)
    await until(
        pilot,
        lambda: screen.module is not None and len(screen.results) == len(screen.module.tests),
        "every golden test",
    )
    await app.workers.wait_for_complete()
    # Instant replay runs race the first row's highlight with the last result: pick a row, wait for its envelope,
    # then show it with the runtime's per-run trace_id and latency_ms frozen.
    table = screen.query_one(DataTable)
    table.move_cursor(row=1)
    case = screen.results[str(table.coordinate_to_cell_key(Coordinate(1, 0)).row_key.value)]
    assert case.result is not None, f"{case.name} did not run"
    envelope = case.result.envelope
    view = screen.query_one(CodeView)
    await until(pilot, lambda: str(envelope["meta"]["trace_id"]) in view.text, "the highlighted case's envelope")
    view.show_json(frozen_envelope(envelope, 1))


def record_eval_trend(module: str, passed: tuple[int, ...] = (1, 2, 2, 3, 2, 3), cases: int = 3) -> None:
    """Earlier evals of `module`, a day apart: the eval screen's sparkline."""
    with History.open_default() as history_db:
        for i, p in enumerate(passed):
            history_db.record_eval({"format": "cogtui-eval/1"}, {module: (p, cases)}, T0 + i * 86400)


async def eval_history(pilot: AppPilot, stage: Stage) -> None:
    """Six earlier evals of product-ideas (its sparkline), and its `$judge` cases scored by the replay judge
    (`judge: {provider: replay}`: offline, the judge's recorded answer)."""
    cog(pilot).config.judge_provider = "replay"  # as `judge: {provider: replay}` in config.yaml would
    record_eval_trend("product-ideas", (1, 1, 2, 1, 2, 2), cases=2)


async def eval_screen(pilot: AppPilot, stage: Stage) -> None:
    """product-ideas' goldens via replay after the earlier evals; the second case's cell selected."""
    app = cog(pilot)
    screen = app.screen
    assert isinstance(screen, EvalScreen)
    await until(
        pilot,
        lambda: screen.report is not None and len(screen.query_one(Sparkline).data or []) == 7,
        "the eval and its trend",
    )
    await app.workers.wait_for_complete()
    assert screen.report is not None
    # Measured latencies differ on every run: fixed ones, and the figures computed from them.
    for i, cell in enumerate(screen.report.cells):
        cell.latency_ms = 1800.0 + 350 * i
    screen.report.summaries = summarise(screen.report.cells, screen.report.targets)
    screen.show_state()
    table = screen.query_one(DataTable)
    table.move_cursor(row=1, column=1)
    await pilot.press("enter")
    cell = screen.report.cells[1]
    view = screen.query_one("#eval-envelope", CodeView)
    await until(pilot, lambda: '"ok"' in view.text, "the selected cell's envelope")
    view.show_json(frozen_envelope(cell.envelope or {}, 1))


async def insights(pilot: AppPilot, stage: Stage) -> None:
    """The dashboard filled from the recorded runs."""
    app = cog(pilot)
    await until(pilot, lambda: isinstance(app.screen, InsightsScreen) and app.screen.filled, "the dashboard")
    await app.workers.wait_for_complete()


# By the declaring spec's name.
STEPS: dict[str, Steps] = {
    "new-module": Steps(select="code-reviewer", shown=new_module),
    "editor": Steps(shown=editor),
    "migration": Steps(shown=migration),
    "run": Steps(shown=run),
    "history": Steps(shown=history),
    "goldens": Steps(shown=goldens),
    "eval": Steps(before=eval_history, shown=eval_screen),
    "insights": Steps(shown=insights),
}
# More scenes of a declared screen than its own: name -> (the spec's name, its steps).
VARIANTS: dict[str, tuple[str, Steps]] = {
    "run-idle": ("run", Steps(shown=run_idle)),
    "run-compare": ("run", Steps(shown=run_compare)),
}


def declared_scene(spec: ScreenSpec, steps: Steps | None = None, name: str | None = None) -> Scene:
    """A screen's scene from its declaration: the browser, then `Navigate` to the place its `scene` names, then its
    steps (STEPS, by its name) once the screen is shown, held still."""
    place_at = spec.scene
    assert place_at is not None
    steps = STEPS.get(spec.name, Steps()) if steps is None else steps

    async def drive(pilot: AppPilot, stage: Stage) -> None:
        app = cog(pilot)
        if steps.before is not None:
            await steps.before(pilot, stage)
        await browser_ready(pilot, None if steps.select is None else stage.module(steps.select))
        kind = spec.screen_class()
        app.post_message(Navigate(place_at(stage.root)))
        await until(pilot, lambda: isinstance(app.screen, kind) and app.screen.is_mounted, f"the {spec.name} screen")
        if steps.shown is None:
            await app.workers.wait_for_complete()
        else:
            await steps.shown(pilot, stage)
        await settle(pilot)

    return Scene(name or spec.name, drive)


def declared_scenes() -> dict[str, Scene]:
    """The scenes of the screens one can go to, each from its declaration (by the spec's name)."""
    return {spec.name: declared_scene(spec) for spec in specs() if spec.scene is not None}


def scenes() -> dict[str, Scene]:
    """Every scene: the declared screens', their variants, and those of the browser and its overlays."""
    variants = {name: declared_scene(places.named(of), steps, name) for name, (of, steps) in VARIANTS.items()}
    return {**SCENES, **declared_scenes(), **variants}


# The scenes of what is no place one goes to: the browser, its overlays, and the app opened on a saved plan.
SCENES: dict[str, Scene] = {
    s.name: s
    for s in (
        Scene("browser", browser),
        Scene("help", help_screen),
        Scene("palette", palette),
        Scene("review", review, review=True),
    )
}
# What `make screenshots` writes, in this order: eval, goldens and run last, because the runs they make (dated
# now) add to the history and insights the others show with fixed dates; the other declared scenes in between.
FIXED_DATES = ("browser", "help", "palette", "new-module", "editor", "migration", "review", "history", "insights")
MAKING_RUNS = ("eval", "goldens", "run", "run-compare")


def screenshots() -> tuple[str, ...]:
    listed = (*FIXED_DATES, *MAKING_RUNS)
    return (*FIXED_DATES, *(name for name in declared_scenes() if name not in listed), *MAKING_RUNS)


# ------------------------------------------------------------------ the data the screens show


def frozen_envelope(envelope: dict[str, Any], n: int) -> dict[str, Any]:
    """The envelope with the runtime's per-run meta (trace_id, latency_ms) replaced by fixed values."""
    meta = envelope.get("meta")
    if not isinstance(meta, dict):
        return envelope
    fixed = {"trace_id": f"{n:012x}", "latency_ms": 12.0 + 2 * n}
    return {**envelope, "meta": {k: fixed.get(k, v) for k, v in meta.items()}}


def record_replay_runs(modules: list[Path], repeat: int = 2, start: float = T0) -> int:
    """Run every golden input of `modules` `repeat` times through the real runner (replay provider) into the
    history database, 90 minutes apart, with frozen start times, timings and trace ids. Returns the count."""

    async def run_all() -> list[RunRecord]:
        records: list[RunRecord] = []
        for path in [p for _ in range(repeat) for p in modules]:
            module = load_module(path)
            for test in module.tests:
                if test.input is UNPARSED:
                    continue
                provider = make_provider("replay", None, Config())
                try:
                    result = await run_module(module, test.input, RunOptions(provider, resolver=None))
                finally:
                    await provider.aclose()
                n = len(records)
                record = to_record(module, test.input, None, result)
                records.append(
                    dataclasses.replace(
                        record,
                        envelope=frozen_envelope(record.envelope, n),
                        session_id=f"sess_{n:012x}",
                        started_at=start + n * 5400,
                        ttfc_ms=3.0 + n,
                        total_ms=12.0 + 2 * n,
                    )
                )
        return records

    records = asyncio.run(run_all())
    with History.open_default() as history_db:
        history_db.record_many(records)
    return len(records)


def save_plan(out: Path, module_paths: list[Path]) -> Path:
    """What `cogn migrate --all --dry-run --json` writes for these modules."""
    outcomes = [migrate_path(p, "2.2", dry_run=True, backup=False) for p in module_paths]
    out.write_text(json.dumps(plans_document(outcomes, True, "2.2"), indent=2), encoding="utf-8")
    return out


@contextlib.contextmanager
def isolated_environment(folder: Path) -> Iterator[None]:
    """HOME, config, data and themes inside `folder`; no provider keys or extra search path; UTC; instant replay."""
    saved = dict(os.environ)
    for name in (
        "COGNITIVE_MODULES_PATH",
        "COGNITIVE_PROVIDER",
        "COGNITIVE_MODEL",
        *secret_variables(),  # every provider's key
        "VISUAL",
        "EDITOR",
    ):
        os.environ.pop(name, None)
    (folder / "home").mkdir(parents=True, exist_ok=True)
    os.environ.update(
        {
            "HOME": str(folder / "home"),
            "COGTUI_CONFIG_FILE": str(folder / "config.yaml"),
            "COGTUI_DATA_DIR": str(folder / "data"),
            "XDG_CONFIG_HOME": str(folder / "xdg-config"),
            "COGTUI_REPLAY_INTERVAL": "0",
            "TZ": "UTC",
        }
    )
    time.tzset()
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)
        time.tzset()


def still(app: CogtuiApp) -> CogtuiApp:
    """The app with animations off, so a picture never catches one midway: Textual's Tabs move their underline
    to a new tab after a 20 ms timer and then over 0.3 s, which no wait for scheduled animations covers (the timer
    has not fired yet) and a loaded machine photographs at either end."""
    app.animation_level = "none"
    return app


def make_app(stage: Stage, scene: Scene, cwd: Path) -> CogtuiApp:
    return still(
        CogtuiApp(
            paths=[str(stage.root)],
            cwd=cwd,
            watch=False,
            config=Config(),
            review=stage.plan_file if scene.review else None,
        )
    )


async def shoot(names: tuple[str, ...], stage: Stage, cwd: Path, out: Path) -> list[Path]:
    written, every = [], scenes()
    for name in names:
        scene = every[name]
        app = make_app(stage, scene, cwd)
        async with app.run_test(size=SIZE) as pilot:
            await scene.drive(pilot, stage)
            written.append(Path(app.save_screenshot(filename=f"{name}.svg", path=str(out))))
    return written


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0].startswith("-"):
        print("usage: python -m tools.screenshots OUT_DIR", file=sys.stderr)
        return 2
    out = Path(args[0]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="cogtui-screenshots-") as tmp, isolated_environment(Path(tmp)):
        stage = Stage(
            MODULES,
            save_plan(
                Path(tmp) / "PLAN.json",
                [MODULES / n for n in ("legacy-summarizer", "commit-message-writer", "api-naming-reviewer")],
            ),
        )
        runs = record_replay_runs([MODULES / "code-reviewer", MODULES / "product-ideas"])
        # cwd = the checkout, so paths show as modules/NAME, as they do after `make run`.
        written = asyncio.run(shoot(screenshots(), stage, MODULES.parent, out))
    for path in written:
        print(path)
    print(
        f"{len(written)} screenshots ({runs} replay runs recorded) in {time.perf_counter() - started:.1f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
