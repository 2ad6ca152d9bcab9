"""The migration preview: plan modules, page through files, diffs and notes, apply, undo; or review a saved plan.

The screen keeps one `PreviewState` (core.authoring.migration.preview_state) and draws it: this file holds what the
screen is made of, one handler per message and key, and `draw` (the head line, status line, progress, the lists,
the page and the footer keys, all from the state). j/k/J/K move the state's selection and the lists follow. Each
behaviour is a file beside it, reached through the small `MigrationView` protocol rather than this class:
planning.py (the plans, read or made off the UI thread, and `t`'s other target), replan.py (planning again when a
module's files change under its plan), apply.py (`a` and `u`), pages.py (what the pages say, and the two panes).

Review mode (`cogtui review PLAN.json`) cannot apply or undo: those keys are neither shown nor bound there
(`check_action`); it is the app's only screen, so escape quits.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual import getters, on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import ContentSwitcher, OptionList, ProgressBar, Static
from textual.widgets.option_list import Option
from textual.worker import Worker, WorkerState

from cogtui.core.authoring.migration import MigrationPlan
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
from . import planning
from .apply import Applied, ApplyFlow, Undone
from .pages import DiffPane, SummaryPane, file_prompt, module_prompt, overview_prompt, summary_page, summary_prompt
from .planning import Planned, ReviewLoaded
from .replan import FoundStale, ReplanFailed, ReplanFlow

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
    head = getters.query_one("#migrate-head", Static)
    module_list = getters.query_one("#migrate-modules", OptionList)  # several modules only: hidden for one
    file_list = getters.query_one("#migrate-files", OptionList)
    pane = getters.query_one("#migrate-pane", ContentSwitcher)  # the summary page or the diff page
    summary = getters.query_one(SummaryPane)
    diff_page = getters.query_one(DiffPane)
    diff_view = getters.query_one(DiffView)
    progress = getters.query_one("#migrate-progress", ProgressBar)
    status = getters.query_one("#status", Static)

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
        self.side_by_side = False  # the diff's layout, which the diff view follows (the footer asks it before mount)
        self._files_for: tuple[object, ...] | None = None  # what the file list was filled for
        self._modules_listed = 0  # how many of state.listed the module list shows
        self.replanning = ReplanFlow(self, remake)  # a preset is made again by `remake` when its files change
        self.applying = ApplyFlow(self, self.replanning.after_stale_apply)

    # The state's parts, by the names the tests use.
    @property
    def slots(self) -> list[ModuleSlot]:
        return self.state.slots

    @property
    def current(self) -> int | None:
        return self.state.current

    @property
    def file_index(self) -> int:
        return self.state.file_index

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
        self._update_split()
        self.summary.focus()
        if self.review_file is not None:
            self.pane.loading = True
            planning.read_saved(self, self.review_file, self.review_plans)
            return
        self.show_module_list()
        self.bench.modules_changed.subscribe(self, self.replanning.modules_changed)
        if self.preset is not None:
            planning.show_preset(self, self.preset)
        else:
            planning.plan_all(self)

    @while_open
    def on_resize(self) -> None:
        self._update_split()

    def _update_split(self) -> None:
        wide = self.app.size.width >= SPLIT_MIN_WIDTH
        self.side_by_side = wide if self.split_choice is None else self.split_choice
        self.diff_view.split = self.side_by_side
        self.refresh_bindings()

    # ------------------------------------------------------------ the one handler per message

    @on(Planned)
    def _planned(self, message: Planned) -> None:
        if not self.state.planned(message.index, message.plan, message.live, message.to, message.undoable):
            return  # planned for the target before `t` switched it
        if self.state.multi:
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

    @on(ReviewLoaded)
    def _review_loaded(self, message: ReviewLoaded) -> None:
        self.pane.loading = False
        if message.problem is not None:
            self.notify(message.problem, title="Cannot review this plan", severity="error", timeout=10, markup=False)
        self.state.review_loaded(message.plans, message.problem)
        self.show_module_list()
        if self.state.multi:
            self._list_modules()
        self.draw(force=True)

    @on(Applied)
    def _applied(self, message: Applied) -> None:
        self.applying.applied(message)

    @on(Undone)
    def _undone(self, message: Undone) -> None:
        self.applying.undone(message)

    @on(FoundStale)
    def _found_stale(self, message: FoundStale) -> None:
        self.replanning.stale_found(message)

    @on(ReplanFailed)
    def _replan_failed(self, message: ReplanFailed) -> None:
        self.replanning.failed(message)

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        """Workers catch what they expect; anything else fails the worker (the app reports it, worker_failures.py):
        the modules it was writing are no longer busy."""
        if event.state is not WorkerState.ERROR:
            return
        self.state.writes_failed()
        for index in self.state.listed:
            self.refresh_module_prompt(index)
        self.draw(force=True)

    # ------------------------------------------------------------ selection and layout

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
        self.split_choice = self.side_by_side = not self.side_by_side
        self.diff_view.split = self.side_by_side
        self.notify("Side by side" if self.side_by_side else "Unified diff", timeout=2)
        self.draw()
        self.refresh_bindings()  # the footer's key now names the other layout

    def key_description(self, action: str) -> str | None:
        """The footer's wording for a key, from the state (KeyFooter's DescribesKeys)."""
        return self.state.key_description(action, self.side_by_side)

    def action_close(self) -> None:
        if self.state.writing:
            # Its result must reach this screen, which re-validates the module for the browser.
            self.notify("Wait: files are being written.", severity="warning", timeout=3)
        elif self.review_file is not None:
            self.app.exit()  # review is the app's only screen
        else:
            self.dismiss()

    # ------------------------------------------------------------ target, apply and undo (planning.py, apply.py)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The state says which keys are bound: a saved plan under review cannot be applied, undone or
        planned again, a promotion has no target version; hidden keys are not bound either."""
        return self.state.can(action)

    def offers(self, action: str) -> bool:
        """The keys the footer shows (`KeyFooter`): apply and undo only when they can act (pressed anyway, they
        say why not)."""
        return self.state.offers(action)

    def action_switch_target(self) -> None:
        planning.switch_target(self)

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
        if state.multi:
            modules = self.module_list
            position = modules.get_option_index(OVERVIEW if state.current is None else f"slot-{state.current}")
            if modules.highlighted != position:
                modules.highlighted = position
        self._fill_files(slot, force)
        self.pane.loading = slot is not None and plan is None
        self._draw_lines()
        if plan is None or not 0 < self.file_index <= len(plan.files):
            self.summary.show(summary_page(slot, self.slots, state.listed, self.review_file, state.problem))
            self.pane.current = "migrate-summary"
            self._focus_pane(self.summary)
        else:
            self.diff_page.show(plan.files[self.file_index - 1], plan, force)
            self.pane.current = "migrate-diff"
            self._focus_pane(self.diff_view)

    def _draw_lines(self) -> None:
        """The head and status lines, the planning progress and the footer's keys (cheap: after every plan)."""
        state = self.state
        self.head.update(block(state.heading()))
        self.status.update(block(state.status_line(self.side_by_side)))
        done = state.progress()
        if done is not None:
            self.progress.update(total=done[1], progress=done[0])
        self.progress.set_class(done is None, "-hidden")
        self.refresh_bindings()

    def _focus_pane(self, pane: SummaryPane | DiffView) -> None:
        if not isinstance(self.focused, OptionList):  # someone moving through a list keeps its focus
            pane.focus()

    def show_module_list(self) -> None:
        """Several modules: the module list shows, with the overview alone (modules are added as they are planned)."""
        if self.state.multi:
            self.module_list.remove_class("-hidden")
            self.module_list.set_options([Option(overview_prompt(self.slots), id=OVERVIEW)])
            self._modules_listed = 0
            self.module_list.highlighted = 0

    def _list_modules(self, changed: int | None = None) -> None:
        """The module list follows the state: the overview's count, new modules, a changed module's badge."""
        modules = self.module_list
        modules.replace_option_prompt(OVERVIEW, overview_prompt(self.slots))
        for index in self.state.listed[self._modules_listed :]:
            modules.add_option(Option(module_prompt(self.slots[index]), id=f"slot-{index}"))
        self._modules_listed = len(self.state.listed)
        if changed is not None:
            self.refresh_module_prompt(changed)

    def refresh_module_prompt(self, index: int) -> None:
        if self.state.multi and index in self.state.listed:
            self.module_list.replace_option_prompt(f"slot-{index}", module_prompt(self.slots[index]))

    def _fill_files(self, slot: ModuleSlot | None, force: bool) -> None:
        files = self.file_list
        plan = slot.plan if slot is not None else None
        if force or self._files_for != (self.current, id(plan)):
            self._files_for = (self.current, id(plan))
            options = [] if slot is None else [Option(summary_prompt(plan), id="summary")]
            options += [Option(file_prompt(f), id=f"file-{n}") for n, f in enumerate(plan.files if plan else [])]
            files.set_options(options)
        if files.option_count and files.highlighted != self.file_index:
            files.highlighted = min(self.file_index, files.option_count - 1)
