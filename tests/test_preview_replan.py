"""A plan whose files change on disk under the preview is planned again, never left saying "ready" (MIG-9): the
core says when a plan is stale (`staleness`, `StalePlan` from `apply_plan`) and the preview's state turns a stale
apply, or a change the watcher saw, into "planning" again, with a note, instead of a failure `a` would repeat."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cogtui.core.authoring.migration import MigrationError, StalePlan, apply_plan, plan_migration, staleness
from cogtui.core.authoring.migration.plan import MigrationPlan
from cogtui.core.authoring.migration.preview_state import REPLANNED, PreviewState
from cogtui.core.authoring.migration.review import ReviewPlan
from cogtui.core.module.loader import load_module

MODULES = Path(__file__).resolve().parent.parent / "modules"
NAME = "legacy-summarizer"


def plan_of(path: Path) -> MigrationPlan:
    return plan_migration(load_module(path), "2.2")


def one_module(tmp_path: Path) -> tuple[Path, PreviewState]:
    path = Path(shutil.copytree(MODULES / NAME, tmp_path / NAME))
    state = PreviewState.for_paths([path], "2.2")
    plan = plan_of(path)
    assert state.planned(0, ReviewPlan.from_plan(plan), plan, "2.2") and state.slots[0].can_apply
    return path, state


def edit_a_planned_file(plan: MigrationPlan) -> Path:
    """prompt.txt, which the plan turns into prompt.md, edited by another program after the plan was made."""
    assert any(f.path == "prompt.txt" for f in plan.files)
    target = Path(plan.path) / "prompt.txt"
    target.write_bytes(target.read_bytes() + b"\nAlso name the audience.\n")
    return target


def test_apply_refuses_a_stale_plan_as_stale_and_writes_nothing(tmp_path: Path) -> None:
    path, _ = one_module(tmp_path)
    plan = plan_of(path)
    assert staleness(plan) is None
    before = {p: p.read_bytes() for p in path.rglob("*") if p.is_file()}
    target = edit_a_planned_file(plan)
    assert staleness(plan) == f"{target} changed after the plan was made"
    with pytest.raises(StalePlan, match="plan again") as raised:
        apply_plan(plan)
    assert isinstance(raised.value, MigrationError)  # callers that catch MigrationError still do
    after = {p: p.read_bytes() for p in path.rglob("*") if p.is_file()}
    assert set(after) == set(before) and after.pop(target) != before.pop(target) and after == before
    assert staleness(plan_of(path)) is None  # a new plan holds again


def test_a_stale_apply_plans_again_instead_of_failing(tmp_path: Path) -> None:
    path, state = one_module(tmp_path)
    live = state.slots[0].live
    assert live is not None
    edit_a_planned_file(live)
    [(index, _)] = state.start_apply([0])
    assert state.applied(index, None, "prompt.txt changed after the plan was made; plan again", stale=True)
    slot = state.slots[0]
    assert slot.busy == "planning" and slot.failure is None and slot.replanned == REPLANNED
    assert not slot.can_apply and state.status_line(split=False).startswith(f"{NAME}: planning")
    assert "ready" not in state.status_line(split=False)
    fresh = plan_of(path)
    assert state.planned(0, ReviewPlan.from_plan(fresh), fresh, "2.2")
    assert slot.can_apply and slot.replanned == REPLANNED and state.status_line(split=False).startswith(f"{NAME}: a")
    assert state.stale_slots(None) == []
    # Another failure (not stale) still says it failed, and is not planned again.
    state.start_apply([0])
    assert not state.applied(0, None, "validation failed; rolled back")
    assert state.slots[0].failure == "validation failed; rolled back" and state.slots[0].busy is None


def test_a_change_under_the_plan_is_found_and_planned_again(tmp_path: Path) -> None:
    path, state = one_module(tmp_path)
    assert state.stale_slots([path]) == [] and state.stale_slots(None) == []
    live = state.slots[0].live
    assert live is not None
    edit_a_planned_file(live)
    assert state.stale_slots([tmp_path / "elsewhere"]) == []  # another module changed
    assert state.stale_slots([path]) == [0] and state.stale_slots(None) == [0]
    assert state.files_changed(0) and state.slots[0].busy == "planning"
    assert not state.files_changed(0)  # already planning: once
    assert state.stale_slots(None) == []  # nothing to apply while planning


def test_plans_found_stale_off_the_ui_thread_are_planned_again_only_if_still_shown(tmp_path: Path) -> None:
    """The screen checks `replan_candidates` against the files in a worker (TUI-4); by the time it answers, a plan
    may have been replaced (planned again) or be being applied: only a plan still shown and applicable replans."""
    path, state = one_module(tmp_path)
    live = state.slots[0].live
    assert live is not None and state.replan_candidates([tmp_path / "elsewhere"]) == []
    assert state.replan_candidates([path]) == [(0, live)] == state.replan_candidates(None)
    older = plan_of(path)
    assert state.found_stale([(0, older)]) == [] and state.slots[0].busy is None  # not the plan shown now
    state.start_apply([0])
    assert state.replan_candidates(None) == [] and state.found_stale([(0, live)]) == []  # being written
    state.applied(0, None, "validation failed; rolled back")
    assert state.found_stale([(0, live)]) == [0] and state.slots[0].busy == "planning"
    assert state.slots[0].replanned == REPLANNED and state.found_stale([(0, live)]) == []  # once


def test_a_plan_that_cannot_be_made_again_offers_nothing_to_apply(tmp_path: Path) -> None:
    _, state = one_module(tmp_path)
    assert state.files_changed(0)
    state.replan_failed(0, "the value is already in the schema")
    slot = state.slots[0]
    assert not slot.can_apply and slot.busy is None
    assert "could not be made again: the value is already in the schema" in str(state.apply_request())
    assert state.status_line(split=False).startswith(f"{NAME}: failed")


def test_nothing_is_planned_again_once_applied_or_in_review(tmp_path: Path) -> None:
    path, state = one_module(tmp_path)
    live = state.slots[0].live
    assert live is not None
    state.start_apply([0])
    state.applied(0, apply_plan(live), None)
    assert not state.files_changed(0) and state.stale_slots(None) == []
    review = PreviewState()
    review.review_name = "PLAN.json"
    review.review_loaded([ReviewPlan.from_plan(plan_of(path))], None)
    assert not review.files_changed(0)
