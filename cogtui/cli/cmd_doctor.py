"""`cogtui doctor`: what the TUI would make of this machine's settings, without opening it.

Prints config.yaml's problems, the theme it would start with and why (the
terminal's colour depth), keymap entries that name no binding or clash, and
the search path: its roots, its problems, and which modules shadow others.
Exit status 1 when there is a problem to fix; shadowing alone is reported but
is not a problem (a project's module overriding a user-wide one is a feature;
CLI-5). Modules in ./cognitive/modules, which the search path does not reach, are
a problem when no module is found, a note otherwise (PATH-4). Every value printed comes from files or the environment: plain text.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from cogtui.core.settings.config import Config, load_config
from cogtui.core.settings.terminal import ANSI_THEME, colour_depth, start_theme


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("--theme", dest="doctor_theme", metavar="NAME", help="check this theme as `cogtui --theme` would")


class Report:
    def __init__(self) -> None:
        self.problems = 0

    def section(self, title: str) -> None:
        print(f"\n{title}")

    def line(self, text: str) -> None:
        print(f"  {text}")

    def problem(self, text: str) -> None:
        self.problems += 1
        print(f"  ✗ {text}")

    def note(self, text: str) -> None:
        print(f"  ⚠ {text}")


def run(args: argparse.Namespace) -> int:
    from cogtui.core.files.terminal_text import visible

    out = Report()
    config = load_config()
    print(visible(f"cogtui doctor: config {config.path}{'' if config.path and config.path.exists() else ' (none)'}"))
    out.section("config.yaml")
    from cogtui.core.run.providers import settings_problems

    problems = [*config.problems, *settings_problems(config)]
    for problem in problems:
        out.problem(visible(problem))
    if not problems:
        out.line("no problems" if config.path and config.path.exists() else "no file: the defaults apply")
    check_theme(out, config.theme, getattr(args, "doctor_theme", None) or getattr(args, "theme", None))
    check_keymap(out, config)
    check_search_path(out, list(getattr(args, "paths", []) or []))
    print()
    print(f"{out.problems} problem{'s' * (out.problems != 1)}" if out.problems else "no problems")
    return 1 if out.problems else 0


def check_theme(out: Report, configured: str | None, requested: str | None) -> None:
    from cogtui.core.files.terminal_text import visible
    from cogtui.tui.themes import DEFAULT_THEME, every_theme

    out.section("theme")
    themes, problems = every_theme()
    depth = colour_depth(os.environ)
    environ = ", ".join(
        f"{k}={os.environ[k]}" for k in ("TERM", "COLORTERM", "TEXTUAL_COLOR_SYSTEM") if k in os.environ
    )
    out.line(visible(f"terminal colour depth: {depth.value} ({environ or 'no TERM or COLORTERM set'})"))
    choice = start_theme(requested, configured, depth, lambda n: n == ANSI_THEME or themes.get(n, False))
    starting = choice.name or configured or DEFAULT_THEME
    why = choice.note or ("--theme" if requested else "config.yaml's theme" if configured else "the default")
    out.line(visible(f"configured: {configured or '(none)'}; cogtui would start with {starting} ({why})"))
    for problem in problems:
        out.problem(visible(problem))
    for name, what in ((configured, "config.yaml's theme"), (requested, "--theme")):
        if name and name not in themes:
            out.problem(visible(f"{what} {name!r} is not available (known: {', '.join(sorted(themes))})"))


def check_keymap(out: Report, config: Config) -> None:
    from cogtui.core.files.terminal_text import visible
    from cogtui.tui.keys import keymap_problems

    out.section("keymap")
    keymap = config.keymap
    problems = keymap_problems(config)
    for problem in problems:
        out.problem(visible(problem))
    if not problems:
        out.line(f"{len(keymap)} entr{'ies' if len(keymap) != 1 else 'y'}, no problems" if keymap else "no entries")


def check_search_path(out: Report, extra: list[str]) -> None:
    from cogtui.core.files.terminal_text import visible
    from cogtui.core.module.discovery import SearchPath, discover, unsearched_modules

    out.section("search path")
    search_path = SearchPath.from_environment(extra, cwd=Path.cwd())
    index = discover(search_path)
    for root in search_path.roots:
        out.line(visible(f"{root.level}: {root.path}"))
    for d in index.diagnostics:
        out.problem(visible(f"{d.message}" + (f" ({d.hint})" if d.hint else "")))
    out.line(f"{len(index.winners)} module{'s' * (len(index.winners) != 1)}")
    unsearched = unsearched_modules(search_path)
    if unsearched is not None:  # modules nothing finds: a problem when they are all there are (PATH-4)
        (out.note if index.winners else out.problem)(visible(unsearched.note))
    for entry in index.entries:
        if entry.shadowed_by is not None:
            out.note(visible(f"{entry.name}: {entry.path} is shadowed by {entry.shadowed_by}"))
