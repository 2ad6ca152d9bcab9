"""What promoting a dashboard row asks for and into which module (core.authoring.promotion_target)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cogtui.core.authoring.promote import PromotionError
from cogtui.core.authoring.promotion_target import (
    NO_MAPPING,
    PromotionRequest,
    enum_promotion,
    mapping_promotions,
    plan_promotion,
)
from cogtui.core.module.loader import load_module

GROUP = {
    "suggested_mapping": "data.cache_assumption",
    "modules": ["a", "b"],
    "examples": [
        {"module": "a", "text": "from a"},
        {"module": "a", "text": "again from a"},
        {"module": "c", "text": "from a module no longer in the group"},
    ],
}


def test_a_mapping_suggested_by_several_modules_offers_one_promotion_each_with_its_own_examples() -> None:
    requests = mapping_promotions(GROUP)
    assert isinstance(requests, list)
    assert [r.module for r in requests] == ["a", "b"]
    assert [e["text"] for e in requests[0].examples] == ["from a", "again from a"]
    # b has no example of its own: it gets them all rather than none.
    assert len(requests[1].examples) == 3
    assert {r.mapping for r in requests} == {"data.cache_assumption"}
    assert requests[0].title == "Promote data.cache_assumption in a"


def test_a_group_without_a_mapping_or_without_modules_has_nothing_to_promote() -> None:
    assert mapping_promotions({**GROUP, "suggested_mapping": None}) == NO_MAPPING
    assert isinstance(mapping_promotions({**GROUP, "modules": []}), str)


def test_an_enum_row_promotes_its_value_into_its_module() -> None:
    request = enum_promotion({"module": "m", "field": "issues[].category", "value": "concurrency", "count": 3})
    assert request == PromotionRequest("m", field="issues[].category", value="concurrency")
    assert request.title == "Add 'concurrency' to issues[].category in m"


@pytest.fixture
def reviewer(tmp_path: Path, data_dir: Path) -> Path:
    dest = tmp_path / "code-reviewer"
    shutil.copytree(Path(__file__).resolve().parent.parent / "modules" / "code-reviewer", dest)
    return dest


def test_each_request_makes_its_kind_of_plan(reviewer: Path) -> None:
    module = load_module(reviewer)
    enum_plan = plan_promotion(enum_promotion({"module": "x", "field": "issues[].category", "value": "perf2"}), module)
    assert '"perf2"' in (enum_plan.files[0].new_text or "")
    (mapping,) = [r for r in mapping_promotions({**GROUP, "modules": ["code-reviewer"]}) if not isinstance(r, str)]
    plan = plan_promotion(mapping, module)
    assert "cache_assumption" in json.loads(plan.files[0].new_text or "")["data"]["properties"]
    with pytest.raises(PromotionError):
        plan_promotion(PromotionRequest("code-reviewer"), module)


def test_a_promoted_row_is_marked_and_only_its_own_promotion_is_undone(reviewer: Path) -> None:
    """After applying a promotion the module's schema holds it (the dashboard marks the row); undo from
    the dashboard restores the schema, and refuses when the latest change is not that promotion."""
    from cogtui.core.authoring.promote import apply_promotion
    from cogtui.core.authoring.promotion_target import can_undo, is_promoted, undo_promotion

    field = enum_promotion({"module": "code-reviewer", "field": "issues[].category", "value": "perf2"})
    (mapping,) = [r for r in mapping_promotions({**GROUP, "modules": ["code-reviewer"]}) if not isinstance(r, str)]
    nested = PromotionRequest("code-reviewer", mapping="issues[].category.react_hooks")
    module = load_module(reviewer)
    before = (reviewer / "schema.json").read_bytes()
    assert not any(is_promoted(r, module) for r in (field, mapping, nested))
    assert is_promoted(enum_promotion({"module": "m", "field": "issues[].category", "value": "security"}), module)
    assert not can_undo(mapping, module)
    with pytest.raises(PromotionError, match="cogtui keeps no backup of this promotion in code-reviewer"):
        undo_promotion(mapping, module)

    apply_promotion(plan_promotion(mapping, module))
    module = load_module(reviewer)
    assert is_promoted(mapping, module) and not is_promoted(field, module)
    assert can_undo(mapping, module) and not can_undo(field, module)
    apply_promotion(plan_promotion(field, module))
    module = load_module(reviewer)
    assert is_promoted(field, module) and is_promoted(mapping, module)
    with pytest.raises(PromotionError, match='the latest is the enum value "perf2" added to issues'):  # came after
        undo_promotion(mapping, module)
    undo_promotion(field, module)
    module = load_module(reviewer)
    assert not is_promoted(field, module) and is_promoted(mapping, module) and can_undo(mapping, module)
    result = undo_promotion(mapping, module)
    assert result.restored == ("schema.json",)
    assert (reviewer / "schema.json").read_bytes() == before
    assert not is_promoted(mapping, load_module(reviewer))


def test_why_a_promotion_cannot_be_undone_names_the_changes_in_the_way_and_where_to_undo_them(reviewer: Path) -> None:
    """MIG-10: not "latest promotion only", but which later changes stand in the way, the latest by name and date,
    and where each kind is undone; or that cogtui keeps no backup of it at all."""
    from cogtui.core.authoring.promote import apply_promotion
    from cogtui.core.authoring.promotion_target import change_name, undo_refusal

    first = PromotionRequest("code-reviewer", mapping="data.cache_assumption")
    later = [
        enum_promotion({"module": "code-reviewer", "field": "issues[].category", "value": "perf2"}),
        PromotionRequest("code-reviewer", mapping="input.ticket_id"),
    ]
    for request in [first, *later]:
        apply_promotion(plan_promotion(request, load_module(reviewer)))
    module = load_module(reviewer)
    assert undo_refusal(later[-1], module) is None  # the latest: u undoes it
    why = undo_refusal(first, module)
    assert why is not None and why.startswith("u undoes only code-reviewer's latest change, and this promotion (")
    assert 'has 2 later changes after it; the latest is the promotion of "input.ticket_id" (' in why
    assert why.endswith("undo those 2 changes first, newest first (the latest: u on its row here), then press u here.")
    assert "not the latest" not in why and "latest promotion only" not in why
    middle = undo_refusal(later[0], module)
    assert (
        middle is not None and "has a later change after it" in middle and "undo it first (u on its row here)" in middle
    )
    other = PromotionRequest("code-reviewer", mapping="data.never_promoted")
    assert undo_refusal(other, module) == (
        "cogtui keeps no backup of this promotion in code-reviewer (it was added outside cogtui, or its backup was "
        "removed), so u has nothing to restore: edit the schema to take it out."
    )
    migration = {"from": "v1", "to": "2.2", "promotion": None, "created": "2026-11-26T07:05:00+00:00"}
    assert change_name(migration) == "the migration from v1 to v2.2"
