"""The history table's cells (core.history.run_cells, TUI-8): short fixed columns, and a provider/model that
gives up the model's date, then the provider's name, then the end of the model's name, in that order."""

from __future__ import annotations

from cogtui.core.history.run_cells import (
    MIN_PROVIDER_MODEL,
    cut,
    fit_columns,
    provider_model,
    provider_model_header,
    provider_model_room,
    time_cell,
    width,
)

MODEL = "claude-sonnet-4-5-20250929"


def test_the_model_name_is_kept_readable_as_long_as_it_can_be() -> None:
    assert provider_model("anthropic", MODEL, 40) == f"anthropic/{MODEL}"
    assert provider_model("anthropic", MODEL, 30) == "anthropic/claude-sonnet-4-5"  # the date goes first
    assert provider_model("anthropic", MODEL, 20) == "a…/claude-sonnet-4-5"  # then the provider's name
    assert provider_model("anthropic", MODEL, 17) == "claude-sonnet-4-5"
    assert provider_model("anthropic", MODEL, 12) == "claude-sonn…"  # then the end, with an ellipsis
    assert provider_model("openai", "gpt-4o-2024-08-06", 12) == "o…/gpt-4o"
    assert provider_model("openai", "gpt-4o-2024-08-06", 8) == "gpt-4o"
    assert provider_model("replay", None, 20) == "replay/-"
    assert all(width(provider_model("anthropic", MODEL, n)) <= n for n in range(1, 40))


def test_wide_characters_are_counted_as_two_cells() -> None:
    assert width("模型") == 4 and width("e\u0301") == 1
    assert cut("模型模型", 5) == "模型…" and width(cut("模型模型", 5)) <= 5
    assert cut("abc", 3) == "abc" and cut("abcd", 3) == "ab…" and cut("abcd", 0) == ""


def test_times_fit_in_six_cells() -> None:
    assert [time_cell(x) for x in (None, 850, 12345, 245_000, 7_000_000)] == ["-", "850 ms", "12.3 s", "4m05s", "116m"]
    assert all(len(time_cell(ms)) <= 6 for ms in (0, 999.6, 59_949, 59_999, 5_999_000))


def test_the_room_left_and_the_header() -> None:
    assert provider_model_room(60, [1, 4, 11]) == 60 - (3 + 6 + 13) - 2
    assert provider_model_room(10, [1, 4, 11]) == MIN_PROVIDER_MODEL
    assert provider_model_header(14) == "provider/model" and provider_model_header(13) == "model"


def test_the_short_columns_give_up_cells_widest_first_so_the_table_fits() -> None:
    """TUI-8: at 80 columns the model's column scrolled off; now the widest short column (the outcome's
    "interrupted") gives up its end first, never below its header's width, until the model has its minimum."""
    widths, floors = [1, 4, 5, 11, 4, 6], [1, 4, 5, 7, 4, 6]  # only the outcome may be cut, to its header's width
    assert fit_columns(80, widths, floors) == (widths, provider_model_room(80, widths))  # room enough: unchanged
    fitted, room = fit_columns(47, widths, floors)
    assert fitted == [1, 4, 5, 8, 4, 6] and room == MIN_PROVIDER_MODEL
    assert sum(w + 2 for w in fitted) + 2 + room == 47  # it fits exactly
    assert fit_columns(46, widths, floors) == ([1, 4, 5, 7, 4, 6], MIN_PROVIDER_MODEL)
    assert fit_columns(40, widths, floors) == (floors, MIN_PROVIDER_MODEL)  # every column at its floor: it scrolls
    assert fit_columns(40, [3, 9], [1, 1]) == ([3, 9], 40 - 5 - 11 - 2)  # nothing cut while the model has room
    assert fit_columns(20, [3, 9], [1, 1])[0] == [3, 6]  # the widest first
    assert fit_columns(15, [3, 3], [1, 1])[0] == [2, 2] and fit_columns(14, [3, 3], [1, 1])[0] == [1, 2]  # left first
