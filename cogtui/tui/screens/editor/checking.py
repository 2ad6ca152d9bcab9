"""Checking as you type: an edit starts a short timer, the module is checked with the unsaved texts overlaid on the
disk, and the answer is drawn (the problems list, each file's gutter marks, the contract tab's tree).

The check runs in a process of its own (`live_check.LiveChecker`): a long check holds the Python interpreter's lock
for its whole length, and in the editor's process every key typed meanwhile would wait for it (TUI-20). A thread
worker waits for the answer and posts `Validated`; the screen's handler hands it back here, so every state change
happens on the UI thread (AGENTS.md invariant 8). Checks run one at a time: edits made during one are answered by
one more as it ends, so a burst of keys never piles them up (TUI-13).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message
from textual.timer import Timer
from textual.widgets import TextArea
from textual.worker import get_current_worker

from ...live_check import LiveReport
from ...watching import validate_entries
from ...widgets.contract_tree import ContractTree
from ...widgets.marked_text_area import marks_for
from ...workbench import workbench

if TYPE_CHECKING:
    from .view import EditorView

# The pause in typing after which the module is checked again: a burst of keys asks once.
VALIDATE_DELAY_S = 0.1


class Validated(Message):
    """The module validated with the unsaved buffers overlaid."""

    def __init__(self, report: LiveReport | None, answers: int) -> None:
        super().__init__()
        self.report, self.answers = report, answers  # answers: the state's change count it was started at
        # report: None when the validation failed (the app was told), so the next one may start


class Checking:
    """The editor's check as you type: `edited` for each change of a text, `validate_now` for any other reason to
    check again (a save, a file changed on disk, a tab opened or closed), `validated` for the answer."""

    def __init__(self, editor: EditorView) -> None:
        self.editor = editor
        self.timer: Timer | None = None  # the typing pause's timer, while one runs

    def edited(self, event: TextArea.Changed) -> None:
        """A text changed: its tab's marks and the status line follow, and a check once the typing pauses."""
        editor, state = self.editor, self.editor.state
        buf = state.files.get((event.text_area.id or "").removesuffix("-text"))
        if buf is None:
            return
        # Read-only text may differ from the file (TextArea turns form feeds into newlines): never "modified".
        modified = not buf.read_only and event.text_area.text != buf.saved_lf
        was_checking = state.checking
        if state.edited(buf.pane_id, modified):
            editor.refresh_buffer(buf)
        elif not was_checking:
            editor.update_status()  # "checking…"
        if self.timer is not None:
            self.timer.stop()
        self.timer = editor.screen.set_timer(VALIDATE_DELAY_S, editor.validate_now)

    def validate_now(self) -> None:
        """Check the module again with the buffers as they are; when a check is running, one more follows it."""
        if self.timer is not None:
            self.timer.stop()
            self.timer = None
        self.editor.state.changed()
        if self.editor.state.want_validation():
            self.start()
        self.editor.update_status()

    def start(self) -> None:
        editor = self.editor
        texts = [(buf, editor.area(buf).text) for buf in editor.state.files.values() if not buf.read_only]
        overlay = {buf.path: text for buf, text in texts if text != buf.saved_lf}
        answers = editor.state.validation_started()
        screen, checker, root = editor.screen, editor.checker, editor.module_path

        def check() -> None:
            report = None
            try:
                report = checker.check(root, overlay)
            finally:  # answered or failed (the failure goes to the app as WorkerFailed), the next check may start
                if not get_current_worker().is_cancelled:  # the editor closed
                    screen.post_message(Validated(report, answers))

        # A failed worker's name is the title of the app's notice of it ("check the files failed").
        screen.run_worker(
            check, name="check the files", group="editor-validate", exclusive=True, thread=True, exit_on_error=False
        )

    def validated(self, message: Validated) -> None:
        """A check's answer: drawn when no edit came since it started (else the next check's answer will be)."""
        editor, state = self.editor, self.editor.state
        if state.validation_ended():  # edits came while it ran: check their text now
            self.start()
        if message.report is None:
            return
        report = message.report
        if not state.validated(message.answers, report.diagnostics, report.name):
            return
        if report.contract is not None and editor.screen.query(ContractTree):  # the contract tab may have none
            editor.screen.query_one(ContractTree).show_map(report.contract)
        editor.problems_panel.show(state.diagnostics)
        editor.show_problems()
        for buf in state.files.values():
            rows = [(d.line - 1, d.severity) for d in state.file_problems(buf.pane_id) if d.line]
            editor.area(buf).set_marks(marks_for(rows))
        editor.update_status()

    def tell_app(self) -> None:
        """Revalidate this module from disk for the browser (the app's one handler applies the report).

        Not when the app watches the search path: its watcher sees the same write and revalidates once.
        """
        if not workbench(self.editor.app).watching:
            validate_entries(self.editor.app, [self.editor.module_path], group="revalidate")
