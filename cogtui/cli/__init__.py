"""`cogn` and `cogtui`: one program. No subcommand starts the TUI (cogtui) or prints help (cogn).

The headless path imports neither Textual nor the provider SDKs: each
subcommand module is imported only when it runs.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # argparse is imported when a command line needs parsing (plain `cogtui` needs none)
    import argparse

from .. import __version__

# name -> (module, one-line help). Each module has `configure(parser)` and `run(args) -> int`.
COMMANDS: dict[str, tuple[str, str]] = {
    "list": ("cogtui.cli.cmd_list", "list every module on the search path"),
    "validate": ("cogtui.cli.cmd_validate", "validate modules and report located diagnostics"),
    "check": ("cogtui.cli.cmd_check", "check an envelope, chunk, stream or input against the spec"),
    "run": ("cogtui.cli.cmd_run", "run a module and print its envelope (or stream its chunks)"),
    "test": ("cogtui.cli.cmd_test", "run a module's golden tests"),
    "eval": ("cogtui.cli.cmd_eval", "run goldens against several providers/models; compare with a baseline"),
    "history": ("cogtui.cli.cmd_history", "list recorded runs"),
    "insights": ("cogtui.cli.cmd_insights", "aggregate overflow insights and custom enum values from the history"),
    "capabilities": ("cogtui.cli.cmd_capabilities", "print each provider's capability declaration"),
    "migrate": ("cogtui.cli.cmd_migrate", "upgrade modules to v2.2 (or v2.5), reviewably and atomically"),
    "review": ("cogtui.cli.cmd_review", "open a saved migration plan (migrate --dry-run --json) in the TUI, read-only"),
    "doctor": (
        "cogtui.cli.cmd_doctor",
        "check config.yaml, the theme for this terminal, the keymap and the search path (exit 1 on problems)",
    ),
    "serve": ("cogtui.cli.cmd_serve", "serve the TUI in a browser through textual-serve"),
    "add": ("cogtui.cli.cmd_add", "install a module from a git repository, or every module of cognitive.lock"),
    "update": ("cogtui.cli.cmd_update", "move installed modules to their newest release, showing the diff first"),
    "remove": ("cogtui.cli.cmd_remove", "remove installed modules and their cognitive.lock entries"),
}


def _path_option(parser: argparse.ArgumentParser, suppress: bool) -> None:
    parser.add_argument(
        "--path",
        action="append",
        metavar="DIR",
        dest="paths" if not suppress else "sub_paths",
        default=None if suppress else [],
        help="add a module root before the standard search path (repeatable)",
    )


def chosen_command(argv: Sequence[str]) -> str | None:
    """The subcommand named in argv (skipping global options), without parsing anything else; None when
    there is none, or when help is asked for before it (the help lists every command)."""
    it = iter(argv)
    for tok in it:
        if tok == "--path":
            next(it, None)
        elif tok in ("-h", "--help"):
            return None
        elif tok in COMMANDS:
            return tok
        elif not tok.startswith("-"):
            return None
    return None


def only_global_options(argv: Sequence[str]) -> bool:
    """True when argv holds nothing but `--path DIR` and `--theme NAME` (how the TUI is started): parsing it
    needs no subcommand parser."""
    it = iter(argv)
    for tok in it:
        if tok in ("--path", "--theme"):
            if next(it, None) is None:
                return False
        elif not tok.startswith(("--path=", "--theme=")):
            return False
    return True


def terminal_columns() -> int:
    """`shutil.get_terminal_size().columns`: $COLUMNS when it is a positive number, else the width of the
    terminal on stdout, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):  # no stdout, closed, detached, or not a terminal
            columns = 0
    return columns or 80


@cache
def help_formatter() -> type[argparse.HelpFormatter]:
    """argparse's own formatter, given the width argparse would find (`terminal_columns() - 2`): argparse asks
    shutil, whose import (bz2, lzma, zlib) was ~2.5 ms of a one-module validate (BENCHMARKS.md)."""
    import argparse

    class HelpFormatter(argparse.HelpFormatter):
        def __init__(
            self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None
        ) -> None:
            width = terminal_columns() - 2 if width is None else width
            super().__init__(prog, indent_increment, max_help_position, width)

    return HelpFormatter


def global_options(argv: Sequence[str]) -> Any:
    """What argparse would make of argv holding only `--path DIR` (repeatable) and `--theme NAME` (the last one
    counts), for which `only_global_options` is True: how `cogtui` is started, without importing argparse
    (with its gettext and locale, ~6 ms before the first frame; BENCHMARKS.md)."""
    paths: list[str] = []
    theme = None
    it = iter(argv)
    for tok in it:
        name, given, value = tok.partition("=")
        value = value if given else next(it)
        if name == "--path":
            paths.append(value)
        else:
            theme = value
    return SimpleNamespace(command=None, paths=paths, theme=theme)


def build_parser(prog: str, only: str | None = None, commands: bool = True) -> argparse.ArgumentParser:
    """The parser. With a chosen command, only that command's subparser is built (and its module imported);
    without `commands`, none (argv names none): building the thirteen subparsers cost more than the rest of a
    one-module validate's parsing, and delayed the TUI's first frame as much."""
    import argparse

    formatter = help_formatter()
    parser = argparse.ArgumentParser(
        prog=prog,
        description="A workbench for Cognitive Modules. Without a subcommand, cogtui opens the TUI.",
        formatter_class=formatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    _path_option(parser, suppress=False)
    parser.add_argument(
        "--theme",
        metavar="NAME",
        help="TUI theme for this session (default: config.yaml's, or cogtui-ansi on a terminal without truecolor)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        if not commands or (only is not None and name != only):
            continue
        cmd = sub.add_parser(name, help=help_text, description=help_text, formatter_class=formatter)
        _path_option(cmd, suppress=True)
        if name == only:
            importlib.import_module(module_name).configure(cmd)
    return parser


# Commands whose start-up (imports, loading) runs with the cyclic collector paused until they call
# `start_up_over`, or until they return: an eval's first model call waits on all of it (BENCHMARKS.md).
PAUSED_START_UP = frozenset({"eval"})


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if prog is None:
        prog = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "cogn"
        prog = prog if prog in ("cogn", "cogtui") else "cogn"
    command = chosen_command(argv)
    if command in PAUSED_START_UP:
        _pause_start_up()
    try:
        return _main(argv, prog, command)
    finally:
        start_up_over()


def _main(argv: list[str], prog: str, command: str | None) -> int:
    plain = only_global_options(argv)
    if prog == "cogtui" and plain:
        return _start_tui(global_options(argv))
    parser = build_parser(prog, command, commands=not plain)
    args = parser.parse_args(argv)
    args.paths = list(args.paths or []) + list(getattr(args, "sub_paths", None) or [])
    if args.command is None:
        if prog == "cogtui":
            return _start_tui(args)
        parser.print_help()
        return 0
    module_name = COMMANDS[args.command][0]
    try:
        return int(importlib.import_module(module_name).run(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `cogn list | head`: stop quietly.
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        except OSError:
            pass
        return 0
    except Exception as exc:  # noqa: BLE001 - the last line of defence: a message, never a traceback
        return internal_error(prog, args.command, exc)


def entry() -> int:
    """The `cogn` and `cogtui` executables and `python -m cogtui.cli`: `main`, then the process ends.

    The objects left are freed by the exit; frozen first, they are not walked by the cyclic collector's
    last collection at interpreter shutdown, which cost ~15 ms of CPU after a one-module validate and
    55-90 ms after an eval (BENCHMARKS.md). Exit handlers still run, and whatever reference counting
    frees is still finalised. Only the process entry does this: `main` called in a process that goes on
    (tests) leaves the collector alone.
    """
    global _process_ends_after_main
    _process_ends_after_main = True
    try:
        return main()
    finally:
        gc.freeze()
        _process_ends_after_main = False  # an `entry` called by a process that goes on (a test) leaves no trace


_process_ends_after_main = False  # set by `entry`: what a command makes lives until the process ends


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic collector off for a bounded piece of work that makes mostly long-lived objects (imports, one
    module and its report) and little cyclic garbage; back as it was afterwards.

    Turned back on, the collector would first walk everything the work made (its allocation count is long past
    the threshold): ~4 ms after a `validate --all`. In a process that ends after this command (`entry`), that
    work is frozen first, so the walk never happens; a process that goes on (tests calling `main`) freezes
    nothing and collects as usual."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        _collector_back(was_on)


def _collector_back(was_on: bool) -> None:
    """The collector as it was before a pause; what the pause made is frozen first when the process ends after
    this command (`entry`), so the collector never walks it."""
    if was_on:
        if _process_ends_after_main:
            gc.freeze()
        gc.enable()


_start_up_paused: list[bool] = []  # while a command's start-up is paused: whether the collector was on before


def _pause_start_up() -> None:
    _start_up_paused.append(gc.isenabled())
    gc.disable()


def start_up_over() -> None:
    """The command's start-up is over (an eval's: its first model call is out): the collector paused for it by
    `main` (PAUSED_START_UP) is back as it was. What start-up made (modules, classes, the loaded modules and their
    goldens) lives on, so in a process that ends after this command it is frozen first, as `collector_paused`
    does, and never walked. At once when nothing is paused; the calls after the first change nothing."""
    if _start_up_paused:
        _collector_back(_start_up_paused.pop())


EX_SOFTWARE = 70  # sysexits.h: an internal software error


def internal_error(prog: str, command: str, exc: BaseException) -> int:
    """One readable line (keys redacted) for a bug that escaped every command's own handling."""
    from cogtui.core.run.envelope_builder import redact_keys

    detail = redact_keys(f"{type(exc).__name__}: {exc}")
    print(
        f"{prog} {command}: internal error ({detail}). This is a cogtui bug; "
        "please report it with the command you ran.",
        file=sys.stderr,
    )
    return EX_SOFTWARE


def _start_tui(args: argparse.Namespace) -> int:
    # Start-up makes long-lived objects only (modules, classes, stylesheets, widgets): the cyclic collector
    # walking them before the first frame cost 60-130 ms (a full collection among them). It is paused until
    # the first frame is on screen; the app then freezes what exists and turns it back on (app.py).
    gc.disable()
    try:
        from ..tui.app import run_app
    except ImportError:
        print("cogtui: the TUI is not available in this build; use a subcommand (see --help).", file=sys.stderr)
        return 2
    return run_app(args)


if __name__ == "__main__":
    raise SystemExit(entry())
