"""The migration preview's one state object (core.authoring.migration.preview_state), without a screen: real plans
of bundled modules, then every transition the screen feeds it."""

from __future__ import annotations

import shutil
from pathlib import Path

from cogtui.core.authoring.migration import plan_migration
from cogtui.core.authoring.migration.apply import ApplyResult, UndoResult
from cogtui.core.authoring.migration.preview_state import PreviewState
from cogtui.core.authoring.migration.review import ReviewPlan
from cogtui.core.module.loader import load_module

MODULES = Path(__file__).resolve().parent.parent / "modules"


def planned_state(tmp_path: Path, names: list[str], to: str = "2.2") -> PreviewState:
    paths = [Path(shutil.copytree(MODULES / n, tmp_path / n)) for n in names]
    state = PreviewState.for_paths(paths, to)
    for i, path in enumerate(paths):
        plan = plan_migration(load_module(path), to)
        assert state.planned(i, ReviewPlan.from_plan(plan), plan if plan.ok else None, to)
    return state


def test_planning_progress_selection_and_a_late_plan_for_another_target(tmp_path: Path) -> None:
    paths = [Path(shutil.copytree(MODULES / n, tmp_path / n)) for n in ("commit-message-writer", "code-reviewer")]
    state = PreviewState.for_paths(paths, "2.2")
    assert state.multi and state.current is None and state.progress() == (0, 2)
    assert state.heading() == "Migrate to v2.2 · 2 modules"
    assert state.status_line(split=False) == "0/2 planned · unified (s) · to v2.2 (t) · esc back"
    plan = plan_migration(load_module(paths[0]), "2.2")
    assert not state.planned(0, ReviewPlan.from_plan(plan), plan, "2.5")  # for a target since switched away from
    assert state.progress() == (0, 2)
    assert state.planned(0, ReviewPlan.from_plan(plan), plan, "2.2")
    current = plan_migration(load_module(paths[1]), "2.2")
    state.planned(1, ReviewPlan.from_plan(current), None, "2.2")
    assert state.progress() is None and state.listed == [0]  # the current module is not listed
    assert state.step_module(1) and state.current == 0 and state.file_index == 0
    assert state.heading().startswith("Migrate to v2.2 · commit-message-writer v")
    files = state.file_count(0)
    for _ in range(files):
        assert state.next_file()
    assert state.heading().endswith(f"file {files}/{files}")
    assert not state.next_file()  # the last file of the last listed module
    assert state.prev_file() and state.file_index == files - 1
    state.select(None, 0)
    assert not state.prev_file()


def test_apply_undo_failure_and_retarget(tmp_path: Path) -> None:
    state = planned_state(tmp_path, ["commit-message-writer"])
    assert state.current == 0 and state.can("apply") and state.can("switch_target")
    assert (
        state.status_line(split=True) == "commit-message-writer: a applies · side by side (s) · to v2.2 (t) · esc back"
    )
    [(index, _)] = state.start_apply([0])
    assert state.writing and state.start_apply([0]) == []  # no second write meanwhile
    assert state.status_line(split=False).startswith("commit-message-writer: applying")
    state.applied(index, None, "it changed on disk")
    assert state.slots[0].failure == "it changed on disk" and not state.writing
    assert state.status_line(split=False).startswith("commit-message-writer: failed")
    state.start_apply([0])
    path = state.slots[0].path
    assert path is not None
    state.applied(0, ApplyResult("commit-message-writer", path, tmp_path / "backup"), None)
    assert state.slots[0].failure is None and "already applied" in str(state.apply_request())
    assert state.status_line(split=False).startswith("commit-message-writer: applied (u undoes it)")
    assert state.start_undo(0) and not state.start_undo(0)
    assert state.undone(0, UndoResult("commit-message-writer", path, tmp_path / "backup"), None)  # plan again
    assert state.slots[0].busy == "planning" and state.slots[0].applied is None
    state.retarget("2.5")
    assert state.to_label == "v2.5" and state.slots[0].plan is None and state.heading().startswith("Migrate to v2.5")


def test_review_and_promotion_modes_offer_only_what_they_can_do(tmp_path: Path) -> None:
    review = planned_state(tmp_path, ["commit-message-writer"])
    review.review_name = "PLAN.json"
    assert not any(review.can(a) for a in ("apply", "undo", "switch_target")) and review.can("next_file")
    assert review.status_line(split=False) == "read-only: apply and undo are disabled · unified (s) · esc quits"
    assert review.heading().startswith("Review PLAN.json (read-only) · commit-message-writer")
    promotion = PreviewState.for_paths([tmp_path / "commit-message-writer"], "2.2", "Promote x in m")
    assert promotion.can("apply") and promotion.can("undo") and not promotion.can("switch_target")
    assert promotion.heading() == "Promote x in m · commit-message-writer"
    assert "to v2.2" not in promotion.status_line(split=False)
    assert (promotion.change_kind, review.change_kind) == ("promotion", "migration")  # in messages: undo, confirm


def test_apply_and_undo_are_offered_only_when_they_can_act(tmp_path: Path) -> None:
    """Issue 30: the footer offered `a` Apply and `u` Undo with nothing to apply or undo."""
    state = PreviewState.for_paths([tmp_path / "commit-message-writer"], "2.2")
    assert not state.offers("apply") and not state.offers("undo")  # still planning
    assert state.can("apply") and state.can("undo")  # still bound: pressed, they say why they do nothing
    state = planned_state(tmp_path, ["commit-message-writer"])
    assert state.offers("apply") and not state.offers("undo")  # no backup of an earlier change
    slot = state.slots[0]
    plan = slot.plan
    assert plan is not None
    state.planned(0, plan, slot.live, "2.2", undoable=True)
    assert state.offers("undo")
    state.start_apply([0])
    assert not state.offers("apply") and not state.offers("undo")  # being written
    path = slot.path
    assert path is not None
    state.applied(0, ApplyResult("commit-message-writer", path, tmp_path / "backup"), None)
    assert not state.offers("apply") and state.offers("undo")  # applied: nothing more to apply, its undo offered
    current = PreviewState.for_paths([tmp_path / "x"], "2.2")
    current.planned(0, ReviewPlan("x", "v2.2", "v2.2", already_current=True), None, "2.2")
    assert not current.offers("apply") and not current.offers("undo")  # already current, never changed by cogtui


def test_footer_keys_say_what_they_do_now() -> None:
    live, review = PreviewState(), PreviewState()
    review.review_name = "PLAN.json"
    assert live.key_description("toggle_layout", split=False) == "Side by side"
    assert live.key_description("toggle_layout", split=True) == "Unified"
    assert live.key_description("close", split=False) is None  # the keymap's "Back"
    assert review.key_description("close", split=False) == "Quit"
    assert review.key_description("next_file", split=False) is None


def test_a_plan_without_modules_offers_nothing_to_page_through() -> None:
    empty = PreviewState()
    empty.review_name = "PLAN.json"
    empty.review_loaded([], None)
    assert not any(empty.can(a) for a in ("next_file", "prev_file", "next_module", "prev_module", "toggle_layout"))
    assert empty.can("close")
