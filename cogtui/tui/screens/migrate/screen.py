"""The migration preview: plan modules, page through files, diffs and notes, apply, undo; or review a saved plan.

The screen keeps one `PreviewState` (core.authoring.migration.preview_state): planning, applying and undoing run in
thread workers (work.py) that only post this screen's messages, and one handler per message feeds the state;
`draw` draws the head line, status line, progress, page and footer keys from it. j/k/J/K move the state's selection
and the option lists follow. Live plans and saved plans both arrive as `ReviewPlan`s, so they are drawn by the same
code (model.py).

Review mode (`cogtui review PLAN.json`) cannot apply or undo: those keys are neither shown nor bound there
(`check_action`); it is the app's only screen, so escape quits.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import ContentSwitcher, OptionList, ProgressBar, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState

from cogtui.core.authoring.migration import MigrationPlan, backups_for
from cogtui.core.authoring.migration.preview_state import ModuleSlot, PreviewState
from cogtui.core.authoring.migration.review import ReviewPlan

from ...keys import bindings
from ...mounting import while_open
from ...shown import block
from ...stylesheets import stylesheet
from ...widgets.diff_view import DiffView
from ...widgets.key_footer import KeyFooter
from ...workbench import Workbench, workbench
from ...worker_failures import ReportsWorkerFailures
from . import model as view
from . import work as workers
from .apply import ApplyFlow
from .pages import DiffPane, SummaryPane
from .replan import ReplanFlow
from .target import switch_target

SPLIT_MIN_WIDTH = 140  # side by side by default from this terminal width; `s` overrides it
OVERVIEW = "overview"


class MigrationScreen(ReportsWorkerFailures, Screen[None]):
    DEFAULT_CSS = stylesheet("migrate.tcss")
    BINDINGS = bindings(
        "migrate.apply",
        "migrate.undo",
        "migrate.layout",
        "migrate.target",
        "migrate.next_file",
        "migrate.prev_file",
        "migrate.next_module",
        "migrate.prev_module",
        "migrate.close",
    )
    HELP = (
        "Migration preview. j/k page through the files (past the last one: the next module), J/K move between "
        "modules, s switches unified / side by side, t switches the target version (v2.2 / v2.5), a applies, "
        "u undoes."
    )

    def __init__(
        self,
        paths: list[Path] | None = None,
        review_file: Path | None = None,
        to: str = "2.2",
        preset: MigrationPlan | None = None,
        title: str | None = None,
        review_plans: list[ReviewPlan] | None = None,
        remake: Callable[[], MigrationPlan | str] | None = None,
    ) -> None:
        super().__init__()
        self.review_file = review_file
        self.review_plans = review_plans  # already read (`cogtui review -`: stdin), else read from review_file
        # A plan made elsewhere (a promotion from the insights dashboard): shown and applied like a migration.
        self.preset = preset
        self.title_text = title
        if preset is not None:
            paths = [Path(preset.path)]
        promotion = (title or "Review the change") if preset is not None else None
        self.state = PreviewState.for_paths(list(paths or []), to, promotion)  # what every part shows
        self.state.review_name = review_file.name if review_file is not None else self.state.review_name
        self.split_choice: bool | None = None  # None: by terminal width
        self._diff: DiffView | None = None  # the diff's view once mounted: the footer asks for its layout per key
        self._files_for: tuple[object, ...] | None = None  # what the file list was filled for
        self._modules_listed = 0  # how many of state.listed the module list shows
        self.replanning = ReplanFlow(self, remake)  # a preset is made again by `remake` when its files change
        self.applying = ApplyFlow(self, self.replanning.after_stale_apply)

    # The state's parts, by the names the flows and tests use.
    @property
    def slots(self) -> list[ModuleSlot]:
        return self.state.slots

    @property
    def listed(self) -> list[int]:
        return self.state.listed

    @property
    def current(self) -> int | None:
        return self.state.current

    @property
    def file_index(self) -> int:
        return self.state.file_index

    @property
    def multi(self) -> bool:
        return self.state.multi

    @property
    def to(self) -> str:
        return self.state.to

    @classmethod
    def for_modules(cls, paths: list[Path], to: str = "2.2") -> MigrationScreen:
        return cls(paths=list(paths), to=to)

    @classmethod
    def for_review(cls, path: Path, plans: list[ReviewPlan] | None = None) -> MigrationScreen:
        return cls(review_file=Path(path), review_plans=plans)

    @classmethod
    def for_plan(
        cls,
        plan: MigrationPlan,
        title: str = "Review the change",
        remake: Callable[[], MigrationPlan | str] | None = None,
    ) -> MigrationScreen:
        return cls(preset=plan, title=title, remake=remake)

    @property
    def bench(self) -> Workbench:
        return workbench(self.app)

    @property
    def to_label(self) -> str:
        return self.state.to_label

    # ------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield Static(id="migrate-head")
        with Horizontal(id="migrate-body"):
            with Vertical(id="migrate-side"):
                yield OptionList(id="migrate-modules", classes="-hidden")
                yield OptionList(id="migrate-files")
            with ContentSwitcher(id="migrate-pane", initial="migrate-summary"):
                yield SummaryPane(id="migrate-summary")
                yield DiffPane(id="migrate-diff")
        yield ProgressBar(id="migrate-progress", show_eta=False, classes="-hidden")
        yield Static(id="status")
        yield KeyFooter()

    @while_open
    def on_mount(self) -> None:
        self._diff = self.query_one(DiffView)
        self._update_split()
        self.query_one(SummaryPane).focus()
        if self.review_file is not None:
            self.query_one("#migrate-pane").loading = True
            if self.review_plans is not None:
                self.post_message(workers.ReviewLoaded(self.review_plans, None))
            else:
                workers.read_plan_file(self, self.review_file)
            return
        self.show_module_list()
        self.bench.modules_changed.subscribe(self, self.replanning.modules_changed)
        if self.preset is not None:
            undoable = bool(backups_for(self.preset.module))
            self.post_message(workers.Planned(0, ReviewPlan.from_plan(self.preset), self.preset, undoable=undoable))
            return
        self.plan_all()

    def plan_all(self) -> None:
        """Plan every slot for the current target (at mount, and after `t` switches the target)."""
        self.draw()
        workers.plan_modules(self, [(i, s.path) for i, s in enumerate(self.slots) if s.path], self.to)

    @while_open
    def on_resize(self) -> None:
        self._update_split()

    def _update_split(self) -> None:
        wide = self.app.size.width >= SPLIT_MIN_WIDTH
        self.query_one(DiffView).split = wide if self.split_choice is None else self.split_choice
        self.refresh_bindings()

    def show_module_list(self) -> None:
        if self.multi:
            modules = self.query_one("#migrate-modules", OptionList)
            modules.remove_class("-hidden")
            modules.set_options([Option(view.overview_prompt(self.slots), id=OVERVIEW)])
            self._modules_listed = 0
            modules.highlighted = 0

    # ------------------------------------------------------------ the one handler per state change

    @on(workers.Planned)
    def _planned(self, message: workers.Planned) -> None:
        if not self.state.planned(message.index, message.plan, message.live, message.to, message.undoable):
            return  # planned for the target before `t` switched it
        if self.multi:
            self._list_modules(message.index)
            done = sum(1 for s in self.slots if s.plan is not None)
            # The overview lists every module: redrawing it per plan would be quadratic over hundreds of them.
            if self.current is None and done % 25 and done != len(self.slots):
                self._draw_lines()
                return
        if self.current in (None, message.index):
            self.draw(force=True)
        else:
            self._draw_lines()

    def _list_modules(self, changed: int | None = None) -> None:
        """The module list follows the state: the overview's count, new modules, a changed module's badge."""
        modules = self.query_one("#migrate-modules", OptionList)
        modules.replace_option_prompt(OVERVIEW, view.overview_prompt(self.slots))
        for index in self.listed[self._modules_listed :]:
            modules.add_option(Option(view.module_prompt(self.slots[index]), id=f"slot-{index}"))
        self._modules_listed = len(self.listed)
        if changed is not None:
            self.refresh_module_prompt(changed)

    def refresh_module_prompt(self, index: int) -> None:
        if self.multi and index in self.listed:
            modules = self.query_one("#migrate-modules", OptionList)
            modules.replace_option_prompt(f"slot-{index}", view.module_prompt(self.slots[index]))

    @on(workers.ReviewLoaded)
    def _review_loaded(self, message: workers.ReviewLoaded) -> None:
        self.query_one("#migrate-pane").loading = False
        if message.problem is not None:
            self.notify(message.problem, title="Cannot review this plan", severity="error", timeout=10, markup=False)
        self.state.review_loaded(message.plans, message.problem)
        self.show_module_list()
        if self.multi:
            self._list_modules()
        self.draw(force=True)

    @on(workers.Applied)
    def _applied(self, message: workers.Applied) -> None:
        self.applying.applied(message)

    @on(workers.ReplanFailed)
    def _replan_failed(self, message: workers.ReplanFailed) -> None:
        self.replanning.failed(message)

    @on(workers.FoundStale)
    def _found_stale(self, message: workers.FoundStale) -> None:
        self.replanning.stale_found(message)

    @on(workers.Undone)
    def _undone(self, message: workers.Undone) -> None:
        self.applying.undone(message)

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        """Workers catch what they expect; anything else fails the worker (the app reports it, worker_failures.py):
        the modules it was writing are no longer busy."""
        if event.state is not WorkerState.ERROR:
            return
        self.state.writes_failed()
        for index in self.listed:
            self.refresh_module_prompt(index)
        self.draw(force=True)

    # ------------------------------------------------------------ selection

    @on(OptionList.OptionHighlighted, "#migrate-modules")
    def _module_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_index != event.option_list.highlighted:
            return  # a stale highlight: j/k moved on since
        option_id = event.option.id or OVERVIEW
        index = None if option_id == OVERVIEW else int(option_id.removeprefix("slot-"))
        if index != self.current:
            self._select(index, 0)

    @on(OptionList.OptionHighlighted, "#migrate-files")
    def _file_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        if event.option_index == event.option_list.highlighted and event.option_index != self.file_index:
            self._select(self.current, event.option_index)

    def _select(self, index: int | None, file_index: int) -> None:
        self.state.select(index, file_index)
        self.draw()

    def action_next_file(self) -> None:
        if not self.state.next_file():
            self.notify("That was the last file.", timeout=2)
        self.draw()

    def action_prev_file(self) -> None:
        if not self.state.prev_file():
            self.notify("That was the first page.", timeout=2)
        self.draw()

    def action_next_module(self) -> None:
        if self.state.step_module(1):
            self.draw()

    def action_prev_module(self) -> None:
        if self.state.step_module(-1):
            self.draw()

    def action_toggle_layout(self) -> None:
        diff = self.query_one(DiffView)
        self.split_choice = not diff.split
        diff.split = self.split_choice
        self.notify("Side by side" if diff.split else "Unified diff", timeout=2)
        self.draw()
        self.refresh_bindings()  # the footer's key now names the other layout

    def key_description(self, action: str) -> str | None:
        """The footer's wording for a key, from the state (KeyFooter's DescribesKeys)."""
        return self.state.key_description(action, self._diff is not None and self._diff.split)

    def action_close(self) -> None:
        if self.state.writing:
            # Its result must reach this screen, which re-validates the module for the browser.
            self.notify("Wait: files are being written.", severity="warning", timeout=3)
        elif self.review_file is not None:
            self.app.exit()  # review is the app's only screen
        else:
            self.dismiss()

    # ------------------------------------------------------------ apply and undo (apply.py)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The state says which keys are bound: a saved plan under review cannot be applied, undone or
        planned again, a promotion has no target version; hidden keys are not bound either."""
        return self.state.can(action)

    def offers(self, action: str) -> bool:
        """The keys the footer shows (`KeyFooter`): apply and undo only when they can act (pressed anyway, they
        say why not)."""
        return self.state.offers(action)

    def action_switch_target(self) -> None:
        switch_target(self)

    def action_apply(self) -> None:
        self.applying.apply()

    def action_undo(self) -> None:
        self.applying.undo()

    # ------------------------------------------------------------ drawing

    def draw(self, force: bool = False) -> None:
        """Draw everything from the state: head and status lines, progress, the module list's highlight,
        the page (the overview, a module's summary, or one file's diff) and the footer's keys."""
        state = self.state
        slot = state.slot
        plan = slot.plan if slot is not None else None
        if self.multi:
            modules = self.query_one("#migrate-modules", OptionList)
            position = modules.get_option_index(OVERVIEW if state.current is None else f"slot-{state.current}")
            if modules.highlighted != position:
                modules.highlighted = position
        self._fill_files(slot, force)
        self.query_one("#migrate-pane").loading = slot is not None and plan is None
        self._draw_lines()
        switcher = self.query_one(ContentSwitcher)
        if plan is None or not 0 < self.file_index <= len(plan.files):
            page = view.summary_page(slot, self.slots, self.listed, self.review_file, state.problem)
            self.query_one(SummaryPane).show(page)
            switcher.current = "migrate-summary"
            self._focus_pane(self.query_one(SummaryPane))
        else:
            self.query_one(DiffPane).show(plan.files[self.file_index - 1], plan, force)
            switcher.current = "migrate-diff"
            self._focus_pane(self.query_one(DiffView))

    def _draw_lines(self) -> None:
        """The head and status lines, the planning progress and the footer's keys (cheap: after every plan)."""
        state = self.state
        self.query_one("#migrate-head", Static).update(block(state.heading()))
        self.query_one("#status", Static).update(block(state.status_line(self.query_one(DiffView).split)))
        progress = self.query_one(ProgressBar)
        done = state.progress()
        if done is not None:
            progress.update(total=done[1], progress=done[0])
        progress.set_class(done is None, "-hidden")
        self.refresh_bindings()

    def _focus_pane(self, pane: SummaryPane | DiffView) -> None:
        if not isinstance(self.focused, OptionList):  # someone moving through a list keeps its focus
            pane.focus()

    def _fill_files(self, slot: ModuleSlot | None, force: bool) -> None:
        files = self.query_one("#migrate-files", OptionList)
        plan = slot.plan if slot is not None else None
        if force or self._files_for != (self.current, id(plan)):
            self._files_for = (self.current, id(plan))
            options = [] if slot is None else [Option(view.summary_prompt(plan), id="summary")]
            options += [Option(view.file_prompt(f), id=f"file-{n}") for n, f in enumerate(plan.files if plan else [])]
            files.set_options(options)
        if files.option_count and files.highlighted != self.file_index:
            files.highlighted = min(self.file_index, files.option_count - 1)
