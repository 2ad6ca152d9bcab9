"""Notices said once (core/settings/said.py): the terminal's theme note is told at the first start on a terminal,
not at every start (issue 30: a toast on every start in tmux)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cogtui.core.settings.locations import state_dir
from cogtui.core.settings.said import first_time, said_file


def test_a_notice_is_said_once_and_another_notice_once_too(tmp_path: Path) -> None:
    path = tmp_path / "state" / "said.json"
    assert first_time("256-colour terminal: cogtui-ansi", path)
    assert not first_time("256-colour terminal: cogtui-ansi", path)
    assert first_time("16-colour terminal: cogtui-ansi", path)  # another terminal: its own note, once
    assert not first_time("16-colour terminal: cogtui-ansi", path)
    assert not first_time("256-colour terminal: cogtui-ansi", path)


def test_an_unreadable_or_unwritable_memory_says_it_again_and_never_fails(tmp_path: Path) -> None:
    broken = tmp_path / "said.json"
    broken.write_text("{not json", encoding="utf-8")
    assert first_time("note", broken)
    assert not first_time("note", broken)  # rewritten whole
    blocked = tmp_path / "file" / "said.json"
    (tmp_path / "file").write_text("a file where the folder would be", encoding="utf-8")
    assert first_time("note", blocked) and first_time("note", blocked)


def test_the_state_folder_is_cogtuis_own(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("COGTUI_STATE_DIR", str(tmp_path / "mine"))
    assert said_file() == tmp_path / "mine" / "said.json"
    monkeypatch.delenv("COGTUI_STATE_DIR")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg-state"))
    assert state_dir() == tmp_path / "xdg-state" / "cogtui"
