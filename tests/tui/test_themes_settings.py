"""Themes (built-in, user, broken, previewed, persisted), settings, search-path problems, `cogtui web`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from textual.command import CommandList, CommandPalette
from tuikit import copy_modules, editor_ready, isolate, make_app, toasts, until, written_until_seen

from cogtui.core.settings.config import Config, load_config
from cogtui.tui.themes import DEFAULT_THEME, builtin_theme_dir, load_themes


def _near(rgb: tuple[int, int, int], want: tuple[int, int, int]) -> bool:
    return all(abs(a - b) <= 2 for a, b in zip(rgb, want, strict=True))  # Textual's colour system rounds a little


def test_builtin_themes_are_dark_light_and_ansi() -> None:
    loaded = load_themes(builtin_theme_dir())
    names = {t.name: t for t in loaded.themes}
    assert loaded.problems == []
    assert {"cogtui-dark", "cogtui-light", "cogtui-ansi"} <= set(names)
    assert names["cogtui-dark"].dark and not names["cogtui-light"].dark
    assert names["cogtui-ansi"].ansi  # the terminal's own palette: no truecolor needed


def test_css_uses_theme_variables_only() -> None:
    styles = Path(__file__).resolve().parents[2] / "cogtui" / "tui" / "styles"
    import re

    for tcss in styles.glob("*.tcss"):
        assert not re.search(r"#[0-9a-fA-F]{3,8}\b", tcss.read_text()), f"hex colour in {tcss.name}"


async def test_broken_user_theme_falls_back_with_a_notification(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    user_themes = tmp_path / "xdg-config" / "cogtui" / "themes"
    user_themes.mkdir(parents=True)
    (user_themes / "broken.yaml").write_text("name: broken\nprimary: [not, a, colour\n", encoding="utf-8")
    (user_themes / "nocolor.yaml").write_text("name: nocolor\nprimary: notacolour\n", encoding="utf-8")
    (user_themes / "mine.yaml").write_text("name: mine\nprimary: '#336699'\ndark: true\n", encoding="utf-8")
    app = make_app(root, tmp_path, config=Config(theme="broken"))
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await pilot.pause()
        assert app.theme == DEFAULT_THEME  # the asked-for theme is broken: a working one instead
        assert "mine" in app.available_themes and "broken" not in app.available_themes
        await until(lambda: "not available" in " ".join(toasts(app)), pilot)
        notes = " ".join(toasts(app))
        assert "broken.yaml" in notes and "nocolor.yaml" in notes and "not available" in notes
        broken = (
            user_themes / "broken.yaml"
        )  # located, with the whole reason (TUI-18), at the bracket never closed (CODE-7)
        assert f"{broken}:2:10: YAML syntax error: the [ that starts here is never closed" in notes


async def test_theme_choice_is_persisted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        app.choose_theme("cogtui-light")
        await until(lambda: (tmp_path / "config.yaml").exists(), pilot)
        await app.workers.wait_for_complete()
    assert app.theme == "cogtui-light"
    assert load_config(tmp_path / "config.yaml").theme == "cogtui-light"


async def test_palette_previews_themes_and_restores_on_escape(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        before = app.theme
        await pilot.press("ctrl+t")
        await until(
            lambda: isinstance(app.screen, CommandPalette) and app.screen.query_one(CommandList).option_count > 3, pilot
        )
        seen = {app.theme}
        for _ in range(3):
            shown = app.theme
            await pilot.press("down")
            await until(lambda shown=shown: app.theme != shown, pilot)  # moving through the list previews each theme
            seen.add(app.theme)
        assert len(seen) == 4
        await pilot.press("escape")
        await until(lambda: not isinstance(app.screen, CommandPalette), pilot)
        assert app.theme == before
        assert not (tmp_path / "config.yaml").exists()  # a preview is not a choice


async def test_user_theme_reloads_live(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    user_themes = tmp_path / "xdg-config" / "cogtui" / "themes"
    user_themes.mkdir(parents=True)
    app = make_app(root, tmp_path, watch=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await written_until_seen(
            pilot,
            lambda: (user_themes / "fresh.yaml").write_text(
                yaml.safe_dump({"name": "fresh", "primary": "#aa5500"}), encoding="utf-8"
            ),
            lambda: "fresh" in app.available_themes,
        )


async def test_editing_the_active_user_theme_recolours_the_screen(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    user_themes = tmp_path / "xdg-config" / "cogtui" / "themes"
    user_themes.mkdir(parents=True)
    theme_file = user_themes / "mine.yaml"
    theme_file.write_text(
        yaml.safe_dump({"name": "mine", "primary": "#336699", "background": "#102030"}), encoding="utf-8"
    )
    app = make_app(root, tmp_path, config=Config(theme="mine"), watch=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(lambda: app.theme == "mine" and _near(app.screen.styles.background.rgb, (0x10, 0x20, 0x30)), pilot)
        await written_until_seen(
            pilot,
            lambda: theme_file.write_text(
                yaml.safe_dump({"name": "mine", "primary": "#336699", "background": "#302010"}), encoding="utf-8"
            ),
            lambda: _near(app.screen.styles.background.rgb, (0x30, 0x20, 0x10)),
        )
        assert app.theme == "mine"


async def test_unreadable_search_path_entry_is_a_notification(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = isolate(monkeypatch, tmp_path)
    copy_modules(root, "code-reviewer")
    not_a_folder = tmp_path / "file-not-folder"
    not_a_folder.write_text("x", encoding="utf-8")
    from cogtui.tui.app import CogtuiApp

    app = CogtuiApp(paths=[str(root), str(not_a_folder)], cwd=tmp_path, watch=False, config=Config())
    async with app.run_test(size=(100, 30), notifications=True) as pilot:
        await until(lambda: any("not a folder" in n for n in toasts(app)), pilot)


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# `cogtui web` in a Python where textual-serve cannot be imported (None in sys.modules makes its import fail), as
# in an install without the `web` extra: the dev extras always install it.
WITHOUT_TEXTUAL_SERVE = (
    "import runpy, sys; sys.modules['textual_serve'] = None; sys.argv[0] = 'cogtui'; "
    "runpy.run_module('cogtui.cli', run_name='__main__')"
)


def test_web_without_textual_serve_explains(tmp_path: Path) -> None:
    argv = [sys.executable, "-c", WITHOUT_TEXTUAL_SERVE, "web", "--port", str(free_port())]
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "cogtui web needs textual-serve: pip install 'cogtui[web]'" in proc.stderr
    assert "Traceback" not in proc.stderr
    installed = [sys.executable, "-m", "cogtui.cli", "web", "--help"]  # with it, the command parses
    proc = subprocess.run(installed, capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert proc.returncode == 0 and "--port" in proc.stdout


def test_the_ansi_theme_hard_codes_neither_black_nor_white_for_text_or_cursor() -> None:
    """cogtui-ansi starts on every terminal without truecolor, light palettes too (macOS Terminal's default):
    what a dark palette would hide (black) or a light one (white) is never a text, cursor or footer colour."""
    theme = yaml.safe_load((builtin_theme_dir() / "cogtui-ansi.yaml").read_text(encoding="utf-8"))
    colours = {k: v for k, v in theme.items() if isinstance(v, str)} | theme["variables"]
    readable = {
        k: v
        for k, v in colours.items()
        if k.endswith(("foreground", "background")) and k != "input-selection-foreground"
    }
    hidden = {k: v for k, v in readable.items() if v in ("ansi_black", "ansi_white", "ansi_bright_white")}
    assert hidden == {}, hidden
    assert "reverse" in colours["block-cursor-text-style"] and "reverse" in colours["input-cursor-text-style"]


async def test_text_areas_follow_the_theme_with_ansi_syntax_colours_under_cogtui_ansi(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The editor's and the run screen's TextAreas: strings in green under cogtui-ansi (Textual's dark syntax
    theme made them white, hidden on a light palette), Textual's light or dark syntax under the others."""
    from textual.widgets import TextArea

    from cogtui.tui import navigation as nav
    from cogtui.tui.screens.run.screen import RunScreen

    root = isolate(monkeypatch, tmp_path)
    (module,) = copy_modules(root, "code-reviewer")
    app = make_app(root, tmp_path, theme="cogtui-ansi")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        nav.open_module(app, module)
        await until(lambda: editor_ready(app), pilot)
        area = app.screen.query(TextArea).first()
        assert area.theme == "cogtui-ansi" and "cogtui-ansi" in area.available_themes  # registered on the area
        await pilot.pause()
        drawn = [seg for y in range(area.size.height) for seg in area.render_line(y) if "code-reviewer" in seg.text]
        assert drawn and all(seg.style is not None and seg.style.color is not None for seg in drawn)
        assert {seg.style.color.name for seg in drawn if seg.style and seg.style.color} == {"green"}, drawn
        app.theme = "cogtui-light"
        await until(lambda: area.theme == "github_light", pilot)
        app.theme = "cogtui-dark"
        await until(lambda: area.theme == "css", pilot)
        await pilot.press("escape")
        nav.run_module(app, module)
        await until(lambda: isinstance(app.screen, RunScreen) and app.screen.module is not None, pilot)
        assert app.screen.query_one("#run-input", TextArea).theme == "css"


def test_web_refuses_an_address_it_cannot_listen_on_as_a_usage_error(tmp_path: Path) -> None:
    """A port in use, out of range or a host that does not resolve: said plainly, exit 2, never 'a cogtui bug'."""
    import socket

    def serve(*args: str) -> subprocess.CompletedProcess[str]:
        argv = [sys.executable, "-m", "cogtui.cli", "web", *args]
        return subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path, timeout=60)

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = serve("--host", "127.0.0.1", "--port", str(taken.getsockname()[1]))
    assert busy.returncode == 2 and "cannot listen on 127.0.0.1:" in busy.stderr, busy.stderr
    for port in ("99999", "-5", "http"):
        wrong = serve("--port", port)
        assert wrong.returncode == 2 and "port" in wrong.stderr and "Traceback" not in wrong.stderr, wrong.stderr
    nowhere = serve("--host", "no-such-host.invalid", "--port", str(free_port()))
    assert nowhere.returncode == 2 and "cannot listen on no-such-host.invalid" in nowhere.stderr, nowhere.stderr
    for proc in (busy, nowhere):
        assert "bug" not in proc.stderr


def test_web_starts_each_session_with_the_path_and_theme_it_was_given() -> None:
    from cogtui.cli import parse
    from cogtui.cli.cmd_web import served_command

    _, args = parse(["--theme", "cogtui-ansi", "--path", "mods", "web"], "cogtui")
    command = served_command(args)
    assert command[1:3] == ["-m", "cogtui"] and command[3:] == ["--path", "mods", "--theme", "cogtui-ansi"]
