"""The parser is built for what argv asks (issue 16: building every subparser delayed each command and the TUI).

A named command builds only its own subparser; argv with global options only (how the TUI starts) builds
none. Help, errors and parsing must read exactly as with the full parser.
"""

from __future__ import annotations

import pytest

from cogtui.cli import COMMANDS, HelpFormatter, build_parser, main, only_global_options, terminal_columns


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
    assert ours.formatter_class is HelpFormatter and ours.format_help() == theirs.format_help()
