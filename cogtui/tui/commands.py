"""Command palette providers: every action, for every module; and themes, previewed as you move."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider

from cogtui.core.files.terminal_text import visible

from . import navigation as nav
from .places import specs
from .workbench import workbench


class ModuleCommands(Provider):
    def general(self) -> list[tuple[str, Callable[[], Any], str]]:
        """The app's own commands and each screen's that needs no module (as its declaration words it)."""
        app, bench = self.app, workbench(self.app)
        every = tuple(e.path for e in bench.store.winners)
        return [
            ("Validate all modules", bench.validate_all, "re-check every module on the search path"),
            *(
                (spec.palette_anywhere[0], partial(nav.go, app, spec.anywhere(every)), spec.palette_anywhere[1])
                for spec in specs()
                if spec.palette_anywhere is not None and spec.anywhere is not None
            ),
            ("Switch theme…", partial(app.run_action, "pick_theme"), "preview themes as you move; the choice is saved"),
            ("Toggle file watching", partial(nav.toggle_watching, app), "reload when module files change on disk"),
            ("Keys and help", partial(app.run_action, "help"), "the bindings of this screen"),
            ("Quit", partial(app.run_action, "quit"), "leave cogtui"),
        ]

    def commands(self) -> list[tuple[str, Callable[[], Any], str]]:
        """The general commands, then for each module each screen declared to open on one."""
        out = self.general()
        screens = [spec for spec in specs() if spec.palette_module is not None and spec.for_module is not None]
        for entry in workbench(self.app).store.winners:
            name = visible(entry.name, single_line=True)  # a folder name may hold escape sequences
            for spec in screens:
                assert spec.palette_module is not None and spec.for_module is not None
                title, help_text = spec.palette_module
                out.append(
                    (
                        title.format(name=name),
                        partial(nav.go, self.app, spec.for_module(entry.path, entry.name)),
                        help_text,
                    )
                )
        return out

    async def discover(self) -> Hits:
        for name, command, help_text in self.general():
            yield DiscoveryHit(name, command, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, command, help_text in self.commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), command, help=help_text)


class ThemeCommands(Provider):
    """Themes; the app previews the highlighted one (see CogtuiApp._preview_theme)."""

    def commands(self) -> list[tuple[str, Callable[[], Any]]]:
        choose = workbench(self.app).choose_theme
        return [(name, partial(choose, name)) for name in sorted(self.app.available_themes)]

    async def discover(self) -> Hits:
        for name, command in self.commands():
            yield DiscoveryHit(visible(name, single_line=True), command, text=name)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, command in self.commands():
            if (score := matcher.match(name)) > 0:
                yield Hit(score, matcher.highlight(visible(name, single_line=True)), command, text=name)


# Textual's own palette entries that cogtui's commands replace: its "Theme" picker (cogtui's saves the choice
# to config.yaml, Textual's did not), "Quit" (cogtui's asks while runs are running) and "Keys" (cogtui's help).
REPLACED_SYSTEM_COMMANDS = frozenset({"Theme", "Quit", "Keys"})


def theme_of(hit: Any, app: Any) -> str | None:
    """The theme a palette hit would choose, or None when it is not a theme hit."""
    command = getattr(hit, "command", None)
    if isinstance(command, partial) and command.func == workbench(app).choose_theme and command.args:
        return str(command.args[0])
    return None
