"""Command palette providers: every action, for every module; and themes, previewed as you move."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider

from cogtui.core.files.terminal_text import visible

from . import navigation as nav
from .workbench import workbench


class ModuleCommands(Provider):
    def commands(self) -> list[tuple[str, Callable[[], Any], str]]:
        app, bench = self.app, workbench(self.app)
        out: list[tuple[str, Callable[[], Any], str]] = [
            ("Validate all modules", bench.validate_all, "re-check every module on the search path"),
            ("New module…", partial(nav.new_module, app), "create a v2.2 module from a template"),
            (
                "Migrate all modules…",
                partial(nav.migrate_all, app),
                "preview and apply upgrades of every legacy module",
            ),
            ("Switch theme…", partial(app.run_action, "pick_theme"), "preview themes as you move; the choice is saved"),
            ("Toggle file watching", partial(nav.toggle_watching, app), "reload when module files change on disk"),
            (
                "Insights dashboard",
                partial(nav.insights, app, None),
                "overflow insights and custom enum values from run history",
            ),
            ("Keys and help", partial(app.run_action, "help"), "the bindings of this screen"),
            ("Quit", partial(app.run_action, "quit"), "leave cogtui"),
        ]
        for entry in bench.store.winners:
            name = visible(entry.name, single_line=True)  # a folder name may hold escape sequences
            out.append((f"Open {name}", partial(nav.open_module, app, entry.path), "edit the module's files"))
            out.append((f"Run {name}", partial(nav.run_module, app, entry.path), "run with streaming output"))
            out.append((f"Migrate {name}", partial(nav.migrate, app, [entry.path]), "preview the upgrade plan"))
            out.append((f"Golden tests of {name}", partial(nav.goldens, app, entry.path), "run every golden test"))
            out.append((f"Eval of {name}", partial(nav.evaluate, app, entry.path), "goldens against each target"))
            out.append((f"History of {name}", partial(nav.history, app, entry.path), "past runs of the module"))
            out.append((f"Insights of {name}", partial(nav.insights, app, entry.name), "insights for this module"))
        return out

    async def discover(self) -> Hits:
        for name, command, help_text in self.commands()[:8]:
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
