"""Colour depth and the theme it calls for: the ANSI theme without truecolor, `--theme` overriding.

Unit tests for the core rule (core/settings/terminal.py), Pilot for the app's start, and the real
binary in tmux with a 16-colour TERM.
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import pytest
from test_e2e_tmux import Tmux, wait_for
from textual.notifications import Notify
from tuikit import copy_modules, isolate

from cogtui.cli import build_parser
from cogtui.core.settings.config import Config
from cogtui.core.settings.terminal import ANSI_THEME, ColourDepth, colour_depth, start_theme
from cogtui.tui.app import CogtuiApp


@pytest.mark.parametrize(
    ("environ", "driver", "depth"),
    [
        ({"COLORTERM": "truecolor", "TERM": "xterm"}, None, ColourDepth.TRUECOLOR),
        ({"COLORTERM": "24bit"}, None, ColourDepth.TRUECOLOR),
        ({"TERM": "xterm-direct"}, None, ColourDepth.TRUECOLOR),
        ({"TERM": "xterm-256color"}, "truecolor", ColourDepth.EIGHT_BIT),  # TERM speaks before the driver
        ({"TERM": "screen"}, None, ColourDepth.STANDARD),
        ({"TERM": "linux"}, None, ColourDepth.STANDARD),
        ({"TERM": "xterm-16color"}, None, ColourDepth.STANDARD),
        ({"TERM": "dumb"}, None, ColourDepth.NONE),
        ({"TEXTUAL_COLOR_SYSTEM": "standard", "COLORTERM": "truecolor"}, None, ColourDepth.STANDARD),
        ({"TEXTUAL_COLOR_SYSTEM": "truecolor", "TERM": "linux"}, None, ColourDepth.TRUECOLOR),
        ({}, "256", ColourDepth.EIGHT_BIT),  # nothing in the environment: Textual's console decides
        ({}, None, ColourDepth.NONE),
    ],
)
def test_colour_depth(environ: dict[str, str], driver: str | None, depth: ColourDepth) -> None:
    assert colour_depth(environ, driver) is depth


def test_start_theme_rules() -> None:
    def is_ansi(name: str) -> bool:
        return name in (ANSI_THEME, "ansi-dark")

    assert start_theme("cogtui-light", None, ColourDepth.STANDARD, is_ansi).name == "cogtui-light"
    chosen = start_theme(None, "cogtui-dark", ColourDepth.STANDARD, is_ansi)
    assert chosen.name == ANSI_THEME and "16-colour" in chosen.note and "--theme" in chosen.note
    assert "256-colour" in start_theme(None, None, ColourDepth.EIGHT_BIT, is_ansi).note
    assert start_theme(None, "ansi-dark", ColourDepth.STANDARD, is_ansi).name is None  # already an ANSI theme
    assert start_theme(None, "cogtui-light", ColourDepth.TRUECOLOR, is_ansi).name is None
    assert start_theme(None, None, ColourDepth.NONE, is_ansi).name is None


def test_theme_option_parses() -> None:
    assert build_parser("cogtui").parse_args(["--theme", "cogtui-light"]).theme == "cogtui-light"


def app_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, theme: str | None = None) -> CogtuiApp:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    return CogtuiApp(paths=[str(root)], cwd=tmp_path, watch=False, config=Config(), theme=theme, detect_terminal=True)


async def test_a_16_colour_terminal_starts_in_the_ansi_theme_and_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLORTERM", raising=False)
    monkeypatch.delenv("TEXTUAL_COLOR_SYSTEM", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    app = app_for(tmp_path, monkeypatch)
    seen: list[object] = []
    async with app.run_test(size=(80, 24), message_hook=seen.append) as pilot:
        await pilot.pause()
        assert app.theme == ANSI_THEME and app.current_theme.ansi
        notes = [str(m.notification.message) for m in seen if isinstance(m, Notify)]
        assert any("16-colour terminal" in n for n in notes)
    # nothing was written to config.yaml: a choice made for this terminal is not the user's setting
    assert not (tmp_path / "config.yaml").exists()


async def test_theme_option_overrides_the_terminal_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLORTERM", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    app = app_for(tmp_path, monkeypatch, theme="cogtui-light")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.theme == "cogtui-light"


async def test_a_truecolor_terminal_keeps_the_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLORTERM", "truecolor")
    app = app_for(tmp_path, monkeypatch)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.theme == "cogtui-dark"


def test_the_real_binary_on_a_16_colour_term(tmp_path: Path) -> None:
    """TERM=xterm without COLORTERM in tmux: the notification says the ANSI theme was chosen; --theme overrides."""
    tmux_binary = shutil.which("tmux")
    if tmux_binary is None:
        pytest.fail("tmux is not installed (`apt-get install tmux`; .ci/run installs it)")
    cogtui = Path(sys.executable).parent / "cogtui"
    root = tmp_path / "modules"
    root.mkdir()
    copy_modules(root, "code-reviewer")
    env = [
        "env",
        "-u",
        "COLORTERM",
        "-u",
        "TEXTUAL_COLOR_SYSTEM",
        "-u",
        "COLUMNS",
        "-u",
        "LINES",
        f"HOME={tmp_path / 'home'}",
        f"COGTUI_CONFIG_FILE={tmp_path / 'config.yaml'}",
        f"COGTUI_DATA_DIR={tmp_path / 'data'}",
        f"COGTUI_CACHE_DIR={tmp_path / 'cache'}",
        f"COGTUI_STATE_DIR={tmp_path / 'state'}",  # the note is said at the first start on this terminal only
        "TERM=xterm",
    ]
    for extra, expect_note in (([], True), (["--theme", "cogtui-dark"], False)):
        tmux = Tmux(tmux_binary, tmp_path)
        try:
            tmux.start([*env, str(cogtui), "--path", str(root), *extra], cwd=tmp_path)
            screen = wait_for(tmux, lambda s: "code-reviewer" in s, "the browser")
            if expect_note:
                wait_for(tmux, lambda s: "16-colour terminal" in s and ANSI_THEME in s, "the ANSI theme note")
            else:
                time.sleep(1.0)  # the note would show with the first frame
                screen = tmux.screen()
                assert "16-colour terminal" not in screen, screen
        finally:
            tmux.kill()
