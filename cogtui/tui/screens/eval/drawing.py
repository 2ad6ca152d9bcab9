"""The eval screen's drawing: the matrix, title, progress, summary, footer and the chosen cell's pane, from its
`EvalState` alone (core/eval/eval_state.py). A mixin of EvalScreen (screen.py): how the state looks is apart from
what the screen does (its keys, the eval's worker, accepting answers), so either reads without the other."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import getters
from textual.widgets import DataTable, ProgressBar, Sparkline, Static

from cogtui.core.eval.eval_state import CellStatus, EvalPhase, EvalState, judge_text
from cogtui.core.files.terminal_text import visible

from ...richstyle import themed
from ...shown import assemble, block, cell, styled
from ...widgets.text_views import CodeView

CELL_STYLE = {
    CellStatus.PASSED: "success",
    CellStatus.FAILED: "error",
    CellStatus.CANCELLED: "text-muted",
    CellStatus.NOT_RUN: "text-muted",
}


if TYPE_CHECKING:  # a mixin of a Screen: type-checked as one
    from textual.screen import Screen

    _Screen = Screen[None]
else:
    _Screen = object


class DrawsEvalState(_Screen):
    state: EvalState
    detail_shown: tuple[object, ...] | None = None  # what the right pane shows now: redrawn when it changes
    # The screen's widgets, composed once (eval/screen.py's compose).
    matrix = getters.query_one("#eval-matrix", DataTable)
    title_line = getters.query_one("#eval-title", Static)
    progress_bar = getters.query_one("#eval-progress", ProgressBar)
    summary_line = getters.query_one("#eval-summary", Static)
    trend_line = getters.query_one("#eval-trend", Sparkline)
    trend_label = getters.query_one("#eval-trend-label", Static)
    diff_view = getters.query_one("#eval-diff", CodeView)
    envelope_view = getters.query_one("#eval-envelope", CodeView)

    def build_matrix(self) -> None:
        """A row per case and a column per target, every cell as the state has it."""
        table = self.matrix
        table.clear(columns=True)
        table.add_column("case", key="case")
        for label in self.state.targets:
            table.add_column(cell(visible(label, single_line=True)), key=label)
        for case in self.state.cases if self.state.targets else []:
            table.add_row(cell(visible(case, single_line=True)), *[""] * len(self.state.targets), key=case)
        if self.state.targets and self.state.cases:
            table.move_cursor(row=0, column=1)  # on a result, where enter shows something
        self.show_state(every_cell=True)

    def show_cell(self, case: str, target: str) -> None:
        status = self.state.status(case, target)
        style = CELL_STYLE.get(status)
        label = self.state.label(case, target)
        mark = themed(self.app, label, style, bold=status is CellStatus.FAILED) if style else cell(label)
        # The column grows to its widest label: sized by its header alone ("replay"), it cut "✗ E2001" to "✗ E200".
        self.matrix.update_cell(case, target, mark, update_width=True)
        if self.state.selected == (case, target):
            self.show_detail()

    def show_state(self, every_cell: bool = False) -> None:
        """Title, progress, summary, verdict and footer from the state (and every matrix cell when asked)."""
        state = self.state
        title = state.title()
        if state.module and title.startswith(state.module):
            self.title_line.update(assemble((state.module, "bold"), title[len(state.module) :]))
        else:
            self.title_line.update(styled(title, "$error" if state.problem else "$text-muted"))
        done, total = state.progress()
        self.progress_bar.update(total=total, progress=done)
        muted = state.phase is not EvalPhase.DONE
        summary = state.summary()
        self.summary_line.update(styled(summary, "$text-muted") if muted else block(summary))
        if every_cell and state.targets:
            for case in state.cases:
                for target in state.targets:
                    self.show_cell(case, target)
        self.show_detail()
        self.refresh_bindings()

    def show_detail(self) -> None:
        """The right pane: the selected cell's diff and envelope, else the eval's verdict."""
        state = self.state
        chosen = state.selected_cell()
        shown = (state.selected, chosen, state.phase) if state.selected else (state.verdict(), state.phase)
        if shown == self.detail_shown:
            return
        self.detail_shown = shown
        diff_view = self.diff_view
        envelope_view = self.envelope_view
        if state.selected is None:
            verdict = state.verdict()
            hint = "\n[$text-muted]enter on a cell: its diff and envelope[/]" if state.phase is EvalPhase.DONE else ""
            colour = "$success" if state.phase is EvalPhase.DONE and not state.failures else "$text-muted"
            colour = "$error" if state.phase is EvalPhase.DONE and state.failures else colour
            diff_view.show_text(f"[{colour}]{verdict}[/]{hint}" if verdict else "")
            envelope_view.show_text("")
            return
        case, target = state.selected
        if chosen is None:
            diff_view.show_plain(f"{case} on {target}: {state.status(case, target)}", "$text-muted")
            envelope_view.show_text("")
            return
        head = f"# {case} on {target}: {state.label(case, target)}" + (
            f" (run {chosen.run_id})" if chosen.run_id else ""
        )
        reasons = "".join(f"\n# {r}" for r in chosen.reasons)
        judged = judge_text(chosen, state.judge)
        if chosen.passed:
            diff_view.show_plain(f"{head}\nThe envelope satisfies the golden." + (f"\n{judged}" if judged else ""))
        else:
            judged = "".join(f"\n# {line}" for line in judged.splitlines())
            diff_view.show_diff(f"{head}{reasons}{judged}\n\n{chosen.diff}".rstrip())
        envelope_view.show_json(chosen.envelope if chosen.envelope is not None else {})
