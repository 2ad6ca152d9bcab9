"""The app's themes: the built-in and user theme files registered and reapplied when they change, the theme the
terminal can show chosen at start, and the palette's theme picker previewing each theme as it is highlighted.

A mixin of the app (`CogtuiApp(Theming, ...)`), so that app.py stays wiring: it reads the app's `config` and the
session's `--theme`, and says what it found with the app's `notify`. Saving a chosen theme is the app's
`choose_theme` (it persists settings).
"""

from __future__ import annotations

import os

from textual import on, work
from textual.app import App
from textual.command import CommandPalette

from cogtui.core.settings.config import Config
from cogtui.core.settings.terminal import ANSI_THEME, colour_depth, start_theme

from .messages import ThemesChanged
from .themes import (
    DEFAULT_THEME,
    FALLBACK_THEME,
    builtin_theme_dir,
    load_themes,
    start_in_theme,
    theme_cache_file,
    user_theme_dir,
)
from .worker_failures import ReportsWorkerFailures


class Theming(ReportsWorkerFailures, App[None]):
    """Themes for the app: set up by `start_themes` in the app's `__init__`, before the first stylesheet pass."""

    config: Config
    session_theme: str | None  # `--theme`: this session only, never saved to config.yaml

    def start_themes(self, theme: str | None, detect_terminal: bool) -> None:
        """Themes before the first stylesheet pass (switching theme after mount re-applies every rule); with
        `detect_terminal`, the ANSI theme where the terminal has no truecolor."""
        self.session_theme = theme
        self.terminal_note = ""
        self.terminal_note_said: bool | None = None  # whether it was said at this start (None: not decided yet)
        self._theme_before_preview: str | None = None
        if detect_terminal:
            self.pick_theme_for_terminal(theme)
        self.theme_problems = self.install_themes(announce=False)

    def pick_theme_for_terminal(self, requested: str | None) -> None:
        depth = colour_depth(os.environ, self.console.color_system)
        choice = start_theme(requested, self.config.theme, depth, self.is_ansi_theme)
        self.session_theme, self.terminal_note = choice.name, choice.note

    def is_ansi_theme(self, name: str) -> bool:
        theme = self.available_themes.get(name)
        return name == ANSI_THEME or (theme is not None and theme.ansi)

    @work(name="say the terminal's theme", thread=True, group="said", exit_on_error=False)
    def say_terminal_note(self) -> None:
        """The theme chosen for this terminal, said at the first start on it only (`cogn doctor` says it always)."""
        from cogtui.core.settings.said import first_time

        self.call_from_thread(self._terminal_note_decided, first_time(self.terminal_note))

    def _terminal_note_decided(self, first: bool) -> None:
        self.terminal_note_said = first
        if first:
            self.notify(self.terminal_note, title="Terminal", timeout=6, markup=False)

    def install_themes(self, announce: bool = True) -> list[str]:
        """Register the built-in and user themes and apply the configured one; returns the problems found."""
        loaded = load_themes(builtin_theme_dir(), user_theme_dir(), cache_file=theme_cache_file())
        for theme in loaded.themes:
            self.register_theme(theme)
        if announce:
            for problem in loaded.problems:  # they quote theme files: plain text, never markup
                self.notify(problem, title="Theme", severity="warning", timeout=8, markup=False)
        problems = list(loaded.problems)
        if self._theme_before_preview is not None:
            return problems  # the palette's preview owns the theme until it closes
        wanted = self.session_theme or self.config.theme or DEFAULT_THEME
        if wanted in self.available_themes:
            if self.theme == wanted:
                self.mutate_reactive(App.theme)  # same name, maybe new colours: apply them again
            elif not start_in_theme(self, wanted):
                self.theme = wanted
        else:
            problems.append(
                f"Theme {wanted!r} is not available; using {DEFAULT_THEME if DEFAULT_THEME in self.available_themes else FALLBACK_THEME}."
            )
            self.theme = DEFAULT_THEME if DEFAULT_THEME in self.available_themes else FALLBACK_THEME
            if announce:
                self.notify(problems[-1], severity="warning", markup=False)
        return problems

    @on(ThemesChanged)
    def _themes_changed(self) -> None:
        self.install_themes(announce=True)

    def apply_theme(self, name: str, fallback: bool = False) -> bool:
        if name in self.available_themes:
            self.theme = name
            return True
        if fallback:
            self.notify(f"Theme {name!r} is not available; using {FALLBACK_THEME}.", severity="warning", markup=False)
            self.theme = DEFAULT_THEME if DEFAULT_THEME in self.available_themes else FALLBACK_THEME
        return False

    def action_pick_theme(self) -> None:
        self._theme_before_preview = self.theme
        from .commands import ThemeCommands

        self.push_screen(CommandPalette(providers=[ThemeCommands], placeholder="Search for themes…"))

    @on(CommandPalette.OptionHighlighted)
    def _preview_theme(self, event: CommandPalette.OptionHighlighted) -> None:
        from .commands import theme_of

        name = theme_of(getattr(event.highlighted_event.option, "hit", None), self)
        if self._theme_before_preview is not None and name is not None:
            self.apply_theme(name)

    @on(CommandPalette.Closed)
    def _end_theme_preview(self, event: CommandPalette.Closed) -> None:
        if self._theme_before_preview is not None and not event.option_selected:
            self.apply_theme(self._theme_before_preview)
        self._theme_before_preview = None
