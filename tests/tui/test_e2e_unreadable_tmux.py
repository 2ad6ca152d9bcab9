"""The real binary with a module folder it cannot read: the others stay watched, and the folder comes back.

A recursive file watch fails as a whole on one unreadable folder; before the watch plan (core/files/
watch_plan.py), one such folder stopped watching for every module while the status still said "watching
files". tests/unreadable.py makes the permissions bind even when the tests run as root.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_e2e_tmux import cogtui_in_tmux, label, wait_for
from tuikit import copy_modules

pytestmark = pytest.mark.e2e
PLAIN_WATCHING = re.compile(r"·  watching files\s*$", re.M)


def break_tier(manifest: Path) -> None:
    manifest.write_text(re.sub(r"(?m)^tier: .*$", "tier: bogus", manifest.read_text(encoding="utf-8")), "utf-8")


def test_an_unreadable_folder_is_left_out_of_watching_and_watched_once_readable(tmp_path: Path) -> None:
    root = tmp_path / "modules"
    root.mkdir()
    reviewer, notes = copy_modules(root, "code-reviewer", "release-notes")
    notes.chmod(0)
    tmux, command, _status_file = cogtui_in_tmux(tmp_path, root, unprivileged=True)
    try:
        tmux.start(command, cwd=tmp_path)
        screen = wait_for(
            tmux,
            lambda s: bool(label("✓", "code-reviewer").search(s)) and "watching files (1 folder unreadable)" in s,
            "the readable module, and the status saying one folder is left out of watching",
        )
        assert "release-notes" not in screen

        break_tier(reviewer / "module.yaml")  # the readable module is still watched
        wait_for(tmux, lambda s: bool(label("✗", "code-reviewer").search(s)), "✗ code-reviewer after its edit")

        notes.chmod(0o755)  # readable again: discovered, and watched from now on
        wait_for(
            tmux,
            lambda s: bool(label("✓", "release-notes").search(s) and PLAIN_WATCHING.search(s)),
            "release-notes listed, and the status back to plain watching",
        )
        break_tier(notes / "module.yaml")
        wait_for(tmux, lambda s: bool(label("✗", "release-notes").search(s)), "✗ release-notes after its edit")
        assert "Traceback" not in tmux.screen()
    finally:
        notes.chmod(0o755)
        tmux.kill()


def test_a_search_path_with_nothing_readable_says_it_is_not_watched(tmp_path: Path) -> None:
    root = tmp_path / "modules"
    root.mkdir()
    copy_modules(root, "code-reviewer")
    root.chmod(0)
    tmux, command, _status_file = cogtui_in_tmux(tmp_path, root, unprivileged=True)
    try:
        tmux.start(command, cwd=tmp_path)
        screen = wait_for(
            tmux,
            lambda s: "not watching: no folder on the search path can be read" in s,
            "the status saying nothing is watched",
        )
        assert "watching files" not in screen and "Traceback" not in screen
    finally:
        root.chmod(0o755)
        tmux.kill()
