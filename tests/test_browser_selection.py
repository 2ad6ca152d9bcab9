"""The browser's filter rule and how its selection follows the module (core.module.selection)."""

from __future__ import annotations

from pathlib import Path

from cogtui.core.module.selection import follow_selection, name_matches

ORDER = [Path(n) for n in ("alpha", "beta", "gamma", "delta", "epsilon")]


def test_names_match_by_substring_ignoring_case() -> None:
    assert name_matches("SQL-Guard", "sql") and name_matches("sql-guard", "GUARD") and name_matches("x", "")
    assert not name_matches("code-reviewer", "sql")


def test_a_shown_selection_stays() -> None:
    assert follow_selection(Path("gamma"), ORDER, {Path("alpha"), Path("gamma")}) == Path("gamma")


def test_a_hidden_selection_moves_to_the_next_shown_module_else_the_previous() -> None:
    assert follow_selection(Path("gamma"), ORDER, {Path("alpha"), Path("epsilon")}) == Path("epsilon")
    assert follow_selection(Path("delta"), ORDER, {Path("alpha"), Path("beta")}) == Path("beta")


def test_no_selection_or_an_unknown_one_takes_the_first_shown_and_nothing_shown_gives_none() -> None:
    assert follow_selection(None, ORDER, {Path("delta"), Path("beta")}) == Path("beta")
    assert follow_selection(Path("gone"), ORDER, {Path("delta")}) == Path("delta")
    assert follow_selection(Path("gamma"), ORDER, set()) is None
