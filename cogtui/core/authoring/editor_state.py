"""A module's editor as its screen shows it: one state object the editor's actions and workers update.

The editor screen draws its status line, tab labels (with their marks), each tab's read-only reason,
the problems pane (and the problem f8 moved to, per file), the find bar and which keys the footer
offers (`can`) from this object alone. Each open file is a `FileBuffer`, whose disk state follows
the core's machine (`core/files/disk_state.py`).

Validation runs behind the edits: every edit (or save, reload, change on disk) counts as a change,
a validation answers the changes made before it started, and the problems shown are "checking…"
until the newest one answers. An older validation's answer never replaces a newer one's. One
validation runs at a time: edits made while it runs are answered by one more when it ends, however
many they are, so a burst of typing costs at most two validations, never one per pause.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from cogtui.core.authoring.editor_files import FileBuffer, language_for
from cogtui.core.diagnostics import Diagnostic, counts

CONTRACT_PANE = "contract"  # the read-only tab that shows schema.json as a tree

# What a tab label shows after the path for each of a buffer's marks.
MARK_SIGNS = {"modified": "●", "stale": "⚠", "deleted": "✗", "read-only": "(ro)"}

# A status segment is a list of (text, style) pieces; style is "" or a theme variable such as "$error".
Segment = list[tuple[str, str]]

# The problems pane's height in rows, its border included: open with problems (resizable between the bounds), and
# collapsed (no problems, or hidden) to the one line of its title, which keeps the counts in view.
PROBLEMS_ROWS = 7
PROBLEMS_MIN_ROWS, PROBLEMS_MAX_ROWS = 3, 20
PROBLEMS_STEP = 2


def where(d: Diagnostic) -> tuple[int, int]:
    """A problem's (row, column), 0-based, as the editor's cursor has them."""
    return (max((d.line or 1) - 1, 0), max((d.column or 1) - 1, 0))


@dataclass
class EditorState:
    module: str
    root: Path
    files: dict[str, FileBuffer] = field(default_factory=dict)  # by pane id, in tab order
    by_path: dict[Path, FileBuffer] = field(default_factory=dict)
    open_problem: str = ""  # why no file could be opened at all
    loading: bool = False  # the module and its files are being read (off the UI thread, TUI-4): no tab yet
    contract: bool = False  # the contract tab is there (the module loaded)
    active: str = ""  # the pane id of the tab shown
    diagnostics: list[Diagnostic] = field(default_factory=list)  # the latest validation's, every file
    changes: int = 0  # edits, saves, reloads and disk changes so far
    checked: int = -1  # the change count the shown problems answer (-1: not validated yet)
    validating: bool = False  # a validation is running
    validation_due: bool = False  # changes came while it ran: one more validation follows it
    problem_at: dict[str, Diagnostic] = field(default_factory=dict)  # per file: the problem f8 last moved to
    find_open: bool = False
    find_query: str = ""
    find_note: str = ""  # "3 matches", "not found"
    added: int = 0  # tabs added so far, closed ones included: a new tab's pane id is never one used before
    problems_open: bool = True  # the problems pane shows its list (toggled by a key); collapsed when empty anyway
    problems_size: int = PROBLEMS_ROWS  # its height when it shows the list (resized by keys)
    # The problems of each tab's file, in the order of its text: grouped once per validation (or change of tabs),
    # not on every key (the footer asks `can` of each key's action, and f8's asks for the file's problems).
    by_pane: dict[str, list[Diagnostic]] | None = field(default=None, repr=False, compare=False)

    # ------------------------------------------------------------ files and tabs

    def opened(self, buffers: Iterable[FileBuffer], module: str | None, problem: str = "") -> None:
        """The editor's read of its module arrived: a tab per buffer (in order) and the contract tab when `module`
        loaded, or why nothing could be opened (`problem`)."""
        self.loading = False
        if module is None:
            self.open_problem = problem
            return
        self.module, self.contract = module, True
        for buf in buffers:
            self.add(buf)

    def add(self, buf: FileBuffer) -> None:
        self.files[buf.pane_id] = buf
        self.by_pane = None
        self.by_path[buf.path] = buf
        self.by_path.setdefault(buf.path.resolve(), buf)  # watchers may report resolved paths
        self.added += 1
        if not self.active:
            self.active = buf.pane_id

    def new_pane_id(self) -> str:
        """The pane id for the next tab opened (`add` it then)."""
        return f"file-{self.added}"

    def without_tab(self, listing: Iterable[Path]) -> list[Path]:
        """The module's files (`listing`, as `module_listing.module_files` finds them on disk) that have no tab: a
        tab closed when its file was deleted, the file back since, or a file made since the editor opened."""
        return [path for path in listing if self.file_for(path) is None]

    def file_for(self, path: Path) -> FileBuffer | None:
        return self.by_path.get(path) or self.by_path.get(path.resolve())

    def close(self, pane: str) -> FileBuffer | None:
        """Close one tab (its text is gone); the next tab becomes the shown one if it was."""
        buf = self.files.pop(pane, None)
        if buf is None:
            return None
        self.by_pane = None
        for path in [p for p, b in self.by_path.items() if b is buf]:
            del self.by_path[path]
        self.problem_at.pop(pane, None)
        if self.active == pane:
            self.active = next(iter(self.panes()), "")
        self.changed()
        return buf

    def panes(self) -> list[str]:
        return [*self.files, *([CONTRACT_PANE] if self.contract else [])]

    def activate(self, pane: str) -> bool:
        if pane not in self.panes() or pane == self.active:
            return False
        self.active = pane
        return True

    def pane_after(self, step: int) -> str | None:
        """The tab `step` tabs after (or before) the shown one, wrapping."""
        order = self.panes()
        if not order:
            return None
        index = order.index(self.active) if self.active in order else 0
        return order[(index + step) % len(order)]

    def current(self) -> FileBuffer | None:
        """The file shown (None on the contract tab, or when nothing could be opened)."""
        return self.files.get(self.active)

    def edited(self, pane: str, modified: bool) -> bool:
        """The text of `pane` changed (`modified`: it differs from the disk text); True when its mark changed."""
        self.changed()
        buf = self.files.get(pane)
        if buf is None or buf.modified == modified:
            return False
        buf.modified = modified
        return True

    # ------------------------------------------------------------ validation

    def changed(self) -> None:
        """Something the problems depend on changed: they are being checked again."""
        self.changes += 1

    @property
    def checking(self) -> bool:
        return self.checked < self.changes

    def validation_started(self) -> int:
        """A validation of everything up to now starts; returns the change count it answers."""
        return self.changes

    def want_validation(self) -> bool:
        """The problems should be checked again: True when a validation may start now; False when one is running,
        which is then followed by one more (that answers every change made until it starts)."""
        if self.validating:
            self.validation_due = True
            return False
        self.validating = True
        return True

    def validation_ended(self) -> bool:
        """The running validation ended (answered or failed); True when the next one should start now."""
        self.validating = False
        if not self.validation_due:
            return False
        self.validation_due = False
        return self.want_validation()

    def validated(self, answers: int, diagnostics: list[Diagnostic], module: str | None = None) -> bool:
        """A validation's problems; False (nothing changes) when a newer one has answered already."""
        if answers < self.checked:
            return False
        self.checked, self.diagnostics, self.by_pane = answers, list(diagnostics), None
        if module:
            self.module = module
        self.problem_at = {p: d for p, d in self.problem_at.items() if d in self.diagnostics}
        return True

    def counts(self) -> tuple[int, int]:
        return counts(self.diagnostics)

    def file_problems(self, pane: str) -> list[Diagnostic]:
        """The problems located in the file of `pane`, in the order of the text (the state's own list: read it,
        do not change it)."""
        if self.by_pane is None:
            grouped: dict[str, list[Diagnostic]] = {}
            owners: dict[Path, FileBuffer | None] = {}
            for d in self.diagnostics:
                if d.file is None:
                    continue
                if d.file not in owners:
                    owners[d.file] = self.file_for(d.file)
                buf = owners[d.file]
                if buf is not None:
                    grouped.setdefault(buf.pane_id, []).append(d)
            self.by_pane = {found: sorted(mine, key=where) for found, mine in grouped.items()}
        return self.by_pane.get(pane, [])

    def problems_per_pane(self) -> dict[str, int]:
        self.file_problems("")
        assert self.by_pane is not None
        return {pane: len(self.by_pane[pane]) for pane in self.files if pane in self.by_pane}

    def next_problem(self, cursor: tuple[int, int], step: int) -> Diagnostic | None:
        """f8 / shift+f8: the next (previous) problem of the shown file after (before) the cursor, wrapping."""
        problems = self.file_problems(self.active)
        if not problems:
            return None
        last = self.problem_at.get(self.active)
        if last in problems and where(last) == cursor:
            return problems[(problems.index(last) + step) % len(problems)]
        if step > 0:
            return next((d for d in problems if where(d) > cursor), problems[0])
        return next((d for d in reversed(problems) if where(d) < cursor), problems[-1])

    def jumped(self, diagnostic: Diagnostic) -> FileBuffer | None:
        """The editor moved to `diagnostic`: its file is shown, and it is that file's current problem."""
        buf = self.file_for(diagnostic.file) if diagnostic.file is not None else None
        if buf is None:
            return None
        self.active = buf.pane_id
        self.problem_at[buf.pane_id] = diagnostic
        return buf

    def current_problem(self) -> Diagnostic | None:
        """The shown file's problem f8 (or a click in the problems pane) last moved to."""
        return self.problem_at.get(self.active)

    # ------------------------------------------------------------ the problems pane

    @property
    def problems_collapsed(self) -> bool:
        """The pane is its title line alone: hidden by the user, or with nothing to list."""
        return not self.problems_open or not self.diagnostics

    def problems_rows(self) -> int:
        return 1 if self.problems_collapsed else self.problems_size

    def toggle_problems(self) -> None:
        self.problems_open = not self.problems_open

    def resize_problems(self, step: int) -> bool:
        """Make the open pane `step` rows taller (or shorter), within the bounds; False when nothing changed."""
        size = max(PROBLEMS_MIN_ROWS, min(PROBLEMS_MAX_ROWS, self.problems_size + step))
        if self.problems_collapsed or size == self.problems_size:
            return False
        self.problems_size = size
        return True

    def problems_title(self) -> str:
        """The pane's title: the counts, "no problems", or "checking…" before the first validation answers."""
        if self.checked < 0:
            return "Problems"
        errors, warnings = self.counts()
        if not self.diagnostics:
            return "Problems  ✓ none"
        hidden = "  (hidden)" if not self.problems_open else ""
        return f"Problems  ✗ {errors}  ⚠ {warnings}{hidden}"

    # ------------------------------------------------------------ find

    def find_opened(self) -> None:
        self.find_open = True

    def find_closed(self) -> None:
        self.find_open = False

    def found(self, query: str, note: str) -> None:
        self.find_query, self.find_note = query, note

    def find_note_for(self, query: str) -> str:
        """What the find bar says next to `query` as it opens: the last search's outcome only if it was this
        query's (it opens on the selected text, which may be another)."""
        return self.find_note if query == self.find_query else ""

    # ------------------------------------------------------------ what the screen shows

    def can(self, action: str) -> bool:
        """The keys the footer offers: file keys only on a file's tab, tab keys only with more than one tab, problem
        keys only with problems (and resizing only while the pane lists them)."""
        if action in ("next_diagnostic", "prev_diagnostic"):
            return self.current() is not None and bool(self.diagnostics)
        if action in ("save", "reload", "external_editor", "find", "find_next"):
            return self.current() is not None
        if action in ("next_file", "prev_file", "pick_tab"):
            return len(self.panes()) > 1
        if action == "focus_diagnostics":
            return bool(self.diagnostics)
        if action in ("problems_taller", "problems_shorter"):
            return not self.problems_collapsed
        return True

    def verdict(self) -> list[Segment]:
        """The problem counts (✓ valid, or ✗ errors and ⚠ warnings), and "checking…" while an answer is due."""
        if self.checked < 0:
            return [[("checking…", "$text-muted")]]
        errors, warnings = self.counts()
        if errors or warnings:
            shown = [[(f"✗ {errors}", "$error" if errors else "")], [(f"⚠ {warnings}", "$warning" if warnings else "")]]
        else:
            shown = [[("✓ valid", "$success")]]
        return shown + ([[("checking…", "$text-muted")]] if self.checking else [])

    def status(self) -> list[Segment]:
        """The top line: module, file and its modified mark, the verdict, the disk state, encoding."""
        segments: list[Segment] = [[(self.module, "bold")]]
        if self.loading:
            return [*segments, [("loading the module…", "$text-muted")]]
        buf = self.current()
        if buf is not None:
            segments.append([(buf.rel, "")] + ([(" ", ""), ("●", "$accent")] if buf.modified else []))
        segments += self.verdict()
        if buf is not None:  # the flags before the encoding: a narrow terminal cuts the end of the line
            flags = [(buf.deleted, "deleted on disk", "$error"), (buf.stale, "changed on disk", "$warning")]
            flags.append((buf.read_only, "read-only", "$warning"))
            segments += [[(text, style)] for on, text, style in flags if on]
            segments.append([(buf.style_label, "")])
            if language_for(buf.path) is not None and not buf.highlighted:
                segments.append([("large: no highlighting", "$text-muted")])
        return segments

    def status_text(self) -> str:
        return " · ".join("".join(text for text, _ in segment) for segment in self.status())

    def tab_label(self, pane: str) -> str:
        buf = self.files[pane]
        return buf.rel + "".join(f" {MARK_SIGNS[m]}" for m in buf.marks())
