"""The editor's one state object (core.authoring.editor_state), without a screen."""

from __future__ import annotations

from pathlib import Path

from cogtui.core.authoring.editor_files import FileBuffer
from cogtui.core.authoring.editor_state import CONTRACT_PANE, EditorState
from cogtui.core.diagnostics import Diagnostic, Severity
from cogtui.core.files.disk_state import Disk, after_disk_change


def problem(path: Path, line: int, severity: Severity = Severity.ERROR) -> Diagnostic:
    return Diagnostic(severity, "M003", f"problem on line {line}", path, line, 1)


def opened(tmp_path: Path) -> tuple[EditorState, FileBuffer, FileBuffer, FileBuffer]:
    texts = {"module.yaml": "name: m\ntier: exec\n", "prompt.md": "Say hi.\n", "notes.md": "a\fb\n"}
    state = EditorState("m", tmp_path, contract=True)
    for index, (name, text) in enumerate(texts.items()):
        (tmp_path / name).write_text(text, encoding="utf-8")
        buf = FileBuffer(tmp_path / name, name, f"file-{index}", tmp_path)
        buf.load()
        state.add(buf)
    manifest, prompt, notes = state.files.values()
    return state, manifest, prompt, notes


def test_tabs_marks_and_the_status_line(tmp_path: Path) -> None:
    state, manifest, _prompt, notes = opened(tmp_path)
    assert state.active == "file-0" and state.panes() == ["file-0", "file-1", "file-2", CONTRACT_PANE]
    assert state.status_text() == "m · module.yaml · checking… · UTF-8, LF"  # nothing validated yet
    assert notes.read_only and state.tab_label("file-2") == "notes.md (ro)"
    assert state.edited("file-0", True) and not state.edited("file-0", True)  # the mark changes once
    assert state.tab_label("file-0") == "module.yaml ●" and state.status_text().startswith("m · module.yaml ●")
    manifest.state = after_disk_change(manifest.state, Disk.CHANGED).state  # another program wrote it
    assert state.tab_label("file-0") == "module.yaml ● ⚠" and "changed on disk" in state.status_text()
    assert state.pane_after(-1) == CONTRACT_PANE and state.pane_after(1) == "file-1"
    assert state.activate("file-2") and not state.activate("file-2") and not state.activate("nope")
    assert "read-only" in state.status_text() and state.current() is notes
    assert state.activate(CONTRACT_PANE) and state.current() is None
    assert state.status_text() == "m · checking…"
    assert not state.can("save") and not state.can("next_diagnostic") and not state.can("find")
    assert state.can("pick_tab") and state.can("close")
    state.activate("file-1")
    assert state.can("save") and state.can("find_next") and state.can("reload")


def test_one_validation_runs_at_a_time_and_edits_meanwhile_ask_for_one_more(tmp_path: Path) -> None:
    state, *_ = opened(tmp_path)
    assert state.want_validation() and state.validating  # none running: start one
    for _ in range(5):  # edits while it runs: each asks, none starts
        state.edited("file-0", True)
        assert not state.want_validation()
    assert state.validation_ended() and state.validating  # one more, for all five
    assert not state.validation_ended() and not state.validating  # nothing came meanwhile: done
    assert state.want_validation()


def test_only_the_newest_validation_is_shown_and_checking_lasts_until_it_answers(tmp_path: Path) -> None:
    state, manifest, _prompt, _notes = opened(tmp_path)
    state.changed()
    first = state.validation_started()
    state.edited("file-0", True)  # typed on while the first validation ran
    state.changed()
    second = state.validation_started()
    assert state.validated(first, [problem(manifest.path, 2)], "renamed") and state.module == "renamed"
    assert state.checking and state.status_text().startswith("renamed · module.yaml ●")
    assert "✗ 1 · ⚠ 0 · checking…" in state.status_text()
    assert state.validated(second, [])
    assert not state.checking and "✓ valid" in state.status_text() and "checking" not in state.status_text()
    assert not state.validated(first, [problem(manifest.path, 2)])  # older than what is shown: dropped
    assert state.diagnostics == [] and state.counts() == (0, 0)


def test_f8_moves_through_the_shown_files_problems_and_remembers_each_files_own(tmp_path: Path) -> None:
    state, manifest, prompt, _notes = opened(tmp_path)
    two, one = problem(manifest.path, 2), problem(manifest.path, 1, Severity.WARNING)
    elsewhere = problem(prompt.path, 1)
    state.validated(state.validation_started(), [two, elsewhere, one])
    assert state.file_problems("file-0") == [one, two] and state.problems_per_pane() == {"file-0": 2, "file-1": 1}
    assert state.next_problem((0, 0), 1) == two  # the first after the cursor
    assert state.next_problem((5, 0), 1) == one  # none after: wraps to the first
    assert state.next_problem((5, 0), -1) == two and state.next_problem((0, 0), -1) == two  # before, wrapping
    assert state.jumped(one) is manifest and state.current_problem() == one
    assert state.next_problem((0, 0), 1) == two  # on the problem it jumped to: the next one
    assert state.jumped(elsewhere) is prompt and state.active == "file-1" and state.current_problem() == elsewhere
    state.activate("file-0")
    assert state.current_problem() == one  # each file keeps its own
    state.validated(state.validation_started(), [two])  # fixed: a problem that is gone is nobody's current one
    assert state.current_problem() is None
    outside = problem(tmp_path / "elsewhere.json", 1)
    assert state.jumped(outside) is None and state.active == "file-0"
    assert state.next_problem((0, 0), 1) == two and state.activate("file-2") and state.next_problem((0, 0), 1) is None


def test_closing_a_tab_and_find(tmp_path: Path) -> None:
    state, manifest, prompt, _notes = opened(tmp_path)
    state.jumped(problem(prompt.path, 1))
    changes = state.changes
    assert state.close("file-1") is prompt and state.active == "file-0" and state.changes == changes + 1
    assert state.file_for(prompt.path) is None and "file-1" not in state.problem_at
    assert state.close("file-1") is None
    assert state.file_for(manifest.path) is manifest and state.file_for(manifest.path.resolve()) is manifest
    state.find_opened()
    state.found("tier", "1 match")
    assert state.find_open and (state.find_query, state.find_note) == ("tier", "1 match")
    state.find_closed()
    assert not state.find_open and state.find_query == "tier"  # f3 finds it again
    assert state.find_note_for("tier") == "1 match" and state.find_note_for("deny") == ""  # reopened on another
    alone = EditorState("m", tmp_path)
    alone.add(manifest)
    assert not alone.can("next_file") and not alone.can("pick_tab") and alone.can("save")


def test_a_closed_tab_is_among_the_files_without_one_and_opens_under_a_new_pane_id(tmp_path: Path) -> None:
    """TUI-10: f2 and "Open X" offer the module's files with no tab; a tab opened again never reuses a pane id."""
    state, _manifest, prompt, _notes = opened(tmp_path)
    listing = [*(b.path for b in state.files.values()), tmp_path / "new.md"]
    assert state.without_tab(listing) == [tmp_path / "new.md"] and state.new_pane_id() == "file-3"
    state.close("file-1")
    assert state.without_tab(listing) == [prompt.path, tmp_path / "new.md"]
    again = FileBuffer(prompt.path, "prompt.md", state.new_pane_id(), tmp_path)
    state.add(again)
    assert again.pane_id == "file-3" and state.new_pane_id() == "file-4" and state.file_for(prompt.path) is again
    assert state.panes() == ["file-0", "file-2", "file-3", CONTRACT_PANE]  # before the contract tab


def test_loading_then_opened_with_its_files_or_why_not(tmp_path: Path) -> None:
    """TUI-4: while the module is read off the UI thread the status says so and no key acts on a file; `opened`
    gives the tabs (and the contract tab), or the reason nothing could be opened."""
    state = EditorState("folder", tmp_path, loading=True)
    assert state.status_text() == "folder · loading the module…" and state.panes() == []
    assert not any(state.can(a) for a in ("save", "find", "pick_tab", "next_file")) and state.can("close")
    _read, manifest, prompt, _notes = opened(tmp_path)  # buffers read elsewhere (as the worker reads them)
    state.opened([manifest, prompt], "m")
    assert not state.loading and state.module == "m" and state.panes() == ["file-0", "file-1", CONTRACT_PANE]
    assert state.active == "file-0" and state.status_text() == "m · module.yaml · checking… · UTF-8, LF"
    gone = EditorState("folder", tmp_path, loading=True)
    gone.opened([], None, "not a module folder")
    assert not gone.loading and gone.open_problem == "not a module folder" and gone.panes() == []
    assert gone.status_text() == "folder · checking…"


def test_the_problems_pane_is_one_line_when_empty_or_hidden_and_resizes_within_bounds() -> None:
    from cogtui.core.authoring.editor_state import PROBLEMS_MAX_ROWS, PROBLEMS_MIN_ROWS, PROBLEMS_ROWS

    state = EditorState("m", Path("m"))
    assert state.problems_title() == "Problems" and state.problems_rows() == 1  # not validated yet
    state.validated(0, [])
    assert state.problems_collapsed and state.problems_title() == "Problems  ✓ none"
    assert not state.resize_problems(2) and not state.can("problems_taller") and not state.can("focus_diagnostics")
    problem = Diagnostic(Severity.ERROR, "M003", "bad tier", Path("m/module.yaml"), 3, 7)
    state.validated(1, [problem])
    assert state.problems_rows() == PROBLEMS_ROWS and state.problems_title() == "Problems  ✗ 1  ⚠ 0"
    assert state.can("problems_taller") and state.can("focus_diagnostics")
    while state.resize_problems(5):
        pass
    assert state.problems_rows() == PROBLEMS_MAX_ROWS
    while state.resize_problems(-5):
        pass
    assert state.problems_rows() == PROBLEMS_MIN_ROWS
    state.toggle_problems()
    assert state.problems_rows() == 1 and state.problems_title().endswith("(hidden)")
    assert not state.can("problems_shorter")
    state.toggle_problems()
    assert state.problems_rows() == PROBLEMS_MIN_ROWS  # the size chosen stays


def test_prose_wraps_and_data_does_not() -> None:
    from cogtui.core.authoring.editor_files import soft_wraps

    assert soft_wraps(Path("prompt.md")) and soft_wraps(Path("NOTES.txt")) and soft_wraps(Path("README"))
    assert not soft_wraps(Path("module.yaml")) and not soft_wraps(Path("schema.json"))
