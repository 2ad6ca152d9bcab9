"""`cogn` and `cogtui`: one program. No subcommand starts the TUI (cogtui) or prints help (cogn).

The headless path imports neither Textual nor the provider SDKs: each
subcommand module is imported only when it runs.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any

from cogtui import __version__

# name -> (module, one-line help). Each module has `configure(parser)` and `run(args) -> int`.
COMMANDS: dict[str, tuple[str, str]] = {
    "list": ("cogtui.cli.cmd_list", "list every module on the search path"),
    "validate": ("cogtui.cli.cmd_validate", "validate modules and report located diagnostics"),
    "check": ("cogtui.cli.cmd_check", "check an envelope, chunk, stream or input against the spec"),
    "run": ("cogtui.cli.cmd_run", "run a module and print its envelope (or stream its chunks)"),
    "prompt": ("cogtui.cli.cmd_prompt", "show the prompt a run would send, its tokens and cost (no model called)"),
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
    "serve": ("cogtui.cli.cmd_serve", "serve modules over HTTP: JSON, SSE and NDJSON runs, OpenAPI (the serve extra)"),
    "mcp": ("cogtui.cli.cmd_mcp", "serve modules to agents as MCP tools, over stdio or --http (the serve extra)"),
    "web": ("cogtui.cli.cmd_web", "serve the TUI in a browser through textual-serve (the web extra)"),
    "add": ("cogtui.cli.cmd_add", "install a module from a git repository, or every module of cognitive.lock"),
    "update": ("cogtui.cli.cmd_update", "move installed modules to their newest release, showing the diff first"),
    "remove": ("cogtui.cli.cmd_remove", "remove installed modules and their cognitive.lock entries"),
    "schema": ("cogtui.cli.cmd_schema", "print the manifest's JSON Schema (v2.2, v2.5 or v1) for editors and tools"),
    "lsp": ("cogtui.cli.cmd_lsp", "the language server for editors, over stdio (the lsp extra; docs/editors.md)"),
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


class CommandParser(argparse.ArgumentParser):
    """A command's parser, given its options (and its module imported) when it first parses or shows help: a
    command line names one command, so the other modules are never imported."""

    def __init__(self, *args: Any, module: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.module = module
        self.configured = not module

    def configure(self) -> None:
        if not self.configured:
            self.configured = True
            _path_option(self, suppress=True)
            importlib.import_module(self.module).configure(self)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        self.configure()
        return super().parse_known_args(args, namespace)

    def format_usage(self) -> str:
        self.configure()
        return super().format_usage()

    def format_help(self) -> str:
        self.configure()
        return super().format_help()


class CommandLine(argparse.ArgumentParser):
    """The top-level parser: a mistyped command is answered with the nearest one."""

    words: Sequence[str] = ()

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        self.words = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> Any:
        bad = next((w for w in self.words if message.startswith(f"argument COMMAND: invalid choice: {w!r}")), None)
        if bad is not None:
            from cogtui.core.diagnostics import did_you_mean

            message = f"{bad!r} is not a command{did_you_mean(bad, COMMANDS)} (`{self.prog} --help` lists them)"
        elif message.startswith("unrecognized arguments:") and "--json" in self.words:
            message += " (--json takes no file: it prints to stdout, and `-o FILE` writes the file)"
        super().error(message)


def build_parser(prog: str) -> argparse.ArgumentParser:
    """The whole command line: the global options and one subparser per command, each filled in only when used."""
    parser = CommandLine(
        prog=prog, description="A workbench for Cognitive Modules. Without a subcommand, cogtui opens the TUI."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    _path_option(parser, suppress=False)
    parser.add_argument(
        "--theme",
        metavar="NAME",
        help="TUI theme for this session (default: config.yaml's, or cogtui-ansi on a terminal without truecolor)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=CommandParser)
    for name, (module_name, help_text) in COMMANDS.items():
        sub.add_parser(name, help=help_text, description=help_text, module=module_name)
    return parser


def parse(argv: Sequence[str], prog: str) -> tuple[argparse.ArgumentParser, argparse.Namespace]:
    """The parser and what it made of argv, `--path` given before and after the command in one list."""
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    args.paths = list(args.paths or []) + list(getattr(args, "sub_paths", None) or [])
    return parser, args


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if prog is None:
        prog = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "cogn"
        prog = prog if prog in ("cogn", "cogtui") else "cogn"
    parser, args = parse(argv, prog)
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

    What the command made is frozen before the interpreter's last full collection at exit, which then does not
    walk it (exit handlers still run): a shorter exit for every command, short ones above all."""
    try:
        return main()
    finally:
        gc.freeze()


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
    # Start-up makes long-lived objects only (modules, classes, stylesheets, widgets), which the cyclic collector
    # would walk again and again (full collections among them) before the first frame. It is paused until the
    # first frame is on screen; the app then freezes what exists and turns it back on (app.py). The first frame
    # comes sooner for it (bench/bench_first_frame.py).
    gc.disable()
    try:
        from cogtui.tui.app import run_app
    except ImportError:
        print("cogtui: the TUI is not available in this build; use a subcommand (see --help).", file=sys.stderr)
        return 2
    return run_app(args)


if __name__ == "__main__":
    raise SystemExit(entry())
