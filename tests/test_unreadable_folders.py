"""A folder on the search path that cannot be read is said, never silently missing (tests/unreadable.py).

`cogn list` warns and lists the rest; a command naming the folder, by path or by name, says it cannot be
read instead of "no module folder at that path". A command judging every module (`validate --all`,
`test --all`, `eval --all`, `migrate --all`) judges the rest and fails: not judged is not passed (PATH-3).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_json import document
from unreadable import as_unprivileged, unreadable

MODULES = Path(__file__).resolve().parent.parent / "modules"


def cogn(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "COGTUI_CONFIG_FILE": str(tmp_path / "config.yaml"),
        "COGTUI_DATA_DIR": str(tmp_path / "data"),
        "NO_COLOR": "1",
    }
    argv = as_unprivileged([sys.executable, "-m", "cogtui.cli", *args])
    return subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60, check=False)


def roots(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "modules"
    for name in ("code-reviewer", "release-notes"):
        shutil.copytree(MODULES / name, root / name)
    return root, root / "release-notes"


def test_list_warns_about_the_unreadable_folder_and_lists_the_rest(tmp_path: Path) -> None:
    root, hidden = roots(tmp_path)
    with unreadable(hidden):
        done = cogn(tmp_path, "--path", str(root), "list")
    assert done.returncode == 0, done.stderr
    assert "code-reviewer" in done.stdout and "release-notes" not in done.stdout
    assert f"warning: cannot read {hidden}: Permission denied" in done.stderr
    assert "a module in it cannot be found" in done.stderr


def test_naming_the_unreadable_folder_by_path_says_it_cannot_be_read(tmp_path: Path) -> None:
    _root, hidden = roots(tmp_path)
    with unreadable(hidden):
        done = cogn(tmp_path, "validate", str(hidden))
    assert done.returncode == 2
    assert done.stderr.strip() == f"cogn: cannot read {hidden}: Permission denied"


def test_naming_it_by_name_says_so_too(tmp_path: Path) -> None:
    root, hidden = roots(tmp_path)
    with unreadable(hidden):
        validate = cogn(tmp_path, "--path", str(root), "validate", "release-notes")
        run = cogn(tmp_path, "--path", str(root), "run", "release-notes")
    for done in (validate, run):
        assert done.returncode == 2
        assert (
            f"cannot read {hidden}: Permission denied (a module named 'release-notes' may be in it)" in done.stderr
        ), done.stderr
        assert "no module folder at that path" not in done.stderr


UNJUDGED = "1 folder on the search path could not be read, so the modules in it were not judged: "

ALL_COMMANDS = [
    ["validate", "--all"],
    ["validate", "--all", "--json"],
    ["test", "--all", "--provider", "replay"],
    ["eval", "--all", "--provider", "replay", "--no-history"],
    ["migrate", "--all", "--dry-run"],
]


@pytest.mark.parametrize("command", ALL_COMMANDS, ids=" ".join)
def test_every_all_command_judges_the_rest_and_fails(tmp_path: Path, command: list[str]) -> None:
    root, hidden = roots(tmp_path)
    with unreadable(hidden):
        done = cogn(tmp_path, "--path", str(root), *command)
    assert done.returncode == 1, (done.stdout, done.stderr)
    if "--json" in command:  # the folder is named in the summary, its module is not judged
        doc = document(done.stdout, "validate")
        assert [m["module"] for m in doc["modules"]] == ["code-reviewer"]
        assert doc["summary"]["unreadable_folders"] == [str(hidden)]
    else:
        assert "code-reviewer" in done.stdout and "release-notes" not in done.stdout  # the rest was judged
    assert f"error: cannot read {hidden}: Permission denied" in done.stderr
    assert "warning: cannot read" not in done.stderr
    assert done.stderr.rstrip().endswith(UNJUDGED + str(hidden)), done.stderr  # said last, where CI logs are read


def test_the_same_commands_pass_when_the_folder_is_readable(tmp_path: Path) -> None:
    """The failure above is the folder's: with it readable, the same search path passes."""
    root, _hidden = roots(tmp_path)
    for command in ALL_COMMANDS:
        done = cogn(tmp_path, "--path", str(root), *command)
        assert done.returncode == 0, (command, done.stdout, done.stderr)
        assert "could not be read" not in done.stderr


def test_validate_all_json_stays_a_list_of_the_modules_judged(tmp_path: Path) -> None:
    root, hidden = roots(tmp_path)
    with unreadable(hidden):
        done = cogn(tmp_path, "--path", str(root), "validate", "--all", "--json")
    doc = document(done.stdout, "validate")
    assert [r["module"] for r in doc["modules"]] == ["code-reviewer"] and doc["summary"]["unreadable_folders"]
    assert done.returncode == 1


def test_an_unreadable_root_fails_validate_all_and_says_so(tmp_path: Path) -> None:
    root, _hidden = roots(tmp_path)
    other = tmp_path / "other"
    shutil.copytree(MODULES / "code-reviewer", other / "code-reviewer")
    with unreadable(root):
        alone = cogn(tmp_path, "--path", str(root), "validate", "--all")
        beside = cogn(tmp_path, "--path", str(root), "--path", str(other), "validate", "--all")
    assert alone.returncode == 1 and "no modules on the search path" in alone.stderr
    assert beside.returncode == 1 and "code-reviewer" in beside.stdout and "1 valid" in beside.stdout
    for done in (alone, beside):
        assert f"error: cannot read {root}: Permission denied" in done.stderr
        assert done.stderr.rstrip().endswith(UNJUDGED + str(root)), done.stderr


def test_discovery_names_the_folders_it_could_not_read(tmp_path: Path) -> None:
    """The rule lives in discovery (`ModuleIndex.unreadable`); read by a process that permissions bind."""
    root, hidden = roots(tmp_path)
    script = (
        "import sys; from cogtui.core.module.discovery import SearchPath, discover; "
        "index = discover(SearchPath.from_environment(sys.argv[1:2], env={})); "
        "print([str(p) for p in index.unreadable], [e.name for e in index.entries])"
    )
    argv = as_unprivileged([sys.executable, "-c", script, str(root)])
    with unreadable(hidden):
        done = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path, timeout=60, check=False)
    assert done.stdout.strip() == f"{[str(hidden)]} {['code-reviewer']}", done.stderr
