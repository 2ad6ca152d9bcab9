"""The parser is built for what argv asks (issue 16: building every subparser delayed each command and the TUI).

A named command builds only its own subparser; argv with global options only (how the TUI starts) builds
none. Help, errors and parsing must read exactly as with the full parser.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cogtui.cli import (
    COMMANDS,
    build_parser,
    global_options,
    help_formatter,
    main,
    only_global_options,
    terminal_columns,
)


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--help"], prog="cogn")
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert all(name in out for name in COMMANDS)


def test_help_before_a_command_is_the_full_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help", "validate"], prog="cogn")
    out = capsys.readouterr().out
    assert all(name in out for name in COMMANDS)


def test_an_unknown_command_lists_the_choices(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["bogus"], prog="cogn")
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'bogus'" in err and all(repr(name) in err for name in COMMANDS)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--path", "x", "--bogus"], "unrecognized arguments: --bogus"),
        (["--path"], "argument --path: expected one argument"),
        (["--path", "x", "validate", "--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_errors_read_as_with_the_full_parser(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv, prog="cogtui")
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "usage: cogtui [-h] [--version] [--path DIR] [--theme NAME] COMMAND ..." in err


def test_global_options_only_parse_without_subparsers() -> None:
    assert only_global_options(["--path", "a", "--theme=x", "--path=b"])
    assert not only_global_options(["--path"]) and not only_global_options(["list"])
    assert not only_global_options(["--help"]) and not only_global_options(["--version"])
    args = build_parser("cogtui", None, commands=False).parse_args(["--path", "a", "--theme", "t"])
    assert (args.command, args.paths, args.theme) == (None, ["a"], "t")


@pytest.mark.parametrize(
    "argv",
    [[], ["--path", "a"], ["--path", "a", "--theme=x", "--path=b"], ["--theme", "x", "--theme", "y"], ["--path="]],
)
def test_plain_cogtui_options_are_read_as_argparse_reads_them_without_it(argv: list[str]) -> None:
    """`cogtui [--path DIR]... [--theme NAME]` starts the TUI without importing argparse (issue 16): what it reads
    is what the parser would."""
    assert only_global_options(argv)
    parsed = build_parser("cogtui", None, commands=False).parse_args(argv)
    ours = global_options(argv)
    assert (ours.command, ours.paths, ours.theme) == (parsed.command, parsed.paths, parsed.theme)


def test_starting_the_tui_imports_no_argparse(tmp_path: Path) -> None:
    code = (
        "import sys, cogtui.cli as c, cogtui.tui.app as a\n"
        "a.run_app = lambda args: print(sorted(vars(args).items()), 'argparse' in sys.modules) or 0\n"
        "sys.exit(c.main(['--path', 'mods', '--theme=x'], prog='cogtui'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert out.stdout.strip() == "[('command', None), ('paths', ['mods']), ('theme', 'x')] False", out.stderr


def test_a_chosen_command_parses_its_own_options() -> None:
    args = build_parser("cogn", "validate").parse_args(["--path", "p", "validate", "--all", "--json"])
    assert (args.command, args.all, args.json, args.paths) == ("validate", True, True, ["p"])


@pytest.mark.parametrize("columns", [None, "", "0", "-4", "wide", "57", "203"])
def test_help_is_as_wide_as_argparse_would_make_it(columns: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The help formatter learns the width without shutil (issue 16), and must agree with shutil."""
    import argparse
    import shutil

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert terminal_columns() == shutil.get_terminal_size().columns
    ours = build_parser("cogn", "eval")
    theirs = build_parser("cogn", "eval")
    theirs.formatter_class = argparse.HelpFormatter
    assert ours.formatter_class is help_formatter() and ours.format_help() == theirs.format_help()
