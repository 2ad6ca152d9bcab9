"""The command line: argparse with one subparser per command, each given its options only when it is used.

A command line names one command, so only that command's module is imported; help, errors and parsing read
as argparse writes them, and a mistyped command is answered with the nearest one (issue 30).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cogtui.cli import COMMANDS, main, parse


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


def test_a_command_s_help_shows_its_own_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["validate", "--help"], prog="cogn")
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: cogn validate [-h] [--path DIR] [--all]") and "--strict" in out


@pytest.mark.parametrize(
    ("typed", "meant"), [("valdate", "validate"), ("lst", "list"), ("evl", "eval"), ("histroy", "history")]
)
def test_a_mistyped_command_names_the_nearest_one(typed: str, meant: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--path", "x", typed, "something"], prog="cogn")
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"cogn: error: {typed!r} is not a command; did you mean {meant!r}? (`cogn --help` lists them)" in err


def test_a_word_far_from_every_command_gets_no_guess(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["xyzzy"], prog="cogn")
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "'xyzzy' is not a command (`cogn --help` lists them)" in err and "did you mean" not in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--path", "x", "--bogus"], "unrecognized arguments: --bogus"),
        (["--path"], "argument --path: expected one argument"),
        (["--path", "x", "validate", "--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_errors_read_as_argparse_writes_them(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv, prog="cogtui")
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "usage: cogtui [-h] [--version] [--path DIR] [--theme NAME] COMMAND ..." in err


def test_global_options_parse_without_a_command() -> None:
    _, args = parse(["--path", "a", "--theme", "t", "--path=b"], "cogtui")
    assert (args.command, args.paths, args.theme) == (None, ["a", "b"], "t")


def test_paths_given_before_and_after_the_command_are_one_list() -> None:
    _, args = parse(["--path", "p", "validate", "--all", "--json", "--path", "q"], "cogn")
    assert (args.command, args.all, args.json, args.paths) == ("validate", True, True, ["p", "q"])


def test_a_command_line_imports_only_the_command_it_names(tmp_path: Path) -> None:
    code = (
        "import sys, cogtui.cli as c\n"
        "c.parse(['--path', 'mods', 'validate', 'x'], 'cogn')\n"
        "print(sorted(m for m in sys.modules if m.startswith('cogtui.cli.cmd_')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path)
    assert out.stdout.strip() == "['cogtui.cli.cmd_validate']", out.stderr
