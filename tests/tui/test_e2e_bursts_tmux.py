"""The real binary in tmux, typed at full speed: each word is sent as one `send-keys` string, so the
terminal delivers it in one burst, into every text field reachable from the browser. The screen is
checked after each word: the letters are in the field, no letter ran as a command (`q` quits, `i`
opens insights, `h` history, `m` migrate, `n` new module, `r` run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_e2e_tmux import cogtui_in_tmux, label, wait_for
from tuikit import copy_modules

pytestmark = pytest.mark.e2e


def test_words_typed_in_one_burst_land_in_every_text_field(tmp_path: Path) -> None:
    root = tmp_path / "modules"
    root.mkdir()
    copy_modules(root, "code-reviewer", "product-ideas")
    tmux, command, status_file = cogtui_in_tmux(tmp_path, root)
    try:
        tmux.start(command, cwd=tmp_path)
        wait_for(tmux, lambda s: bool(label("✓", "code-reviewer").search(s)), "the modules, validated")

        # The filter: `/` mounts the box; the word after it must land in it, not run as keys.
        tmux.keys("/quiz")
        screen = wait_for(tmux, lambda s: "quiz" in s, "the word in the filter box")
        assert not label("✓", "code-reviewer").search(screen)  # the tree filtered: nothing matches "quiz"
        assert "/ Filter" in screen  # still the browser (its footer), not insights or any other screen
        tmux.keys("Escape")
        wait_for(tmux, lambda s: "quiz" not in s and "code-reviewer" in s, "the filter cleared")

        tmux.keys("/code", "Enter")  # the first match; then `r` opens its run screen and the rest is typed
        tmux.keys("rhigh")
        screen = wait_for(tmux, lambda s: "high" in s and "provider / model" in s, "the word in the run input")
        assert "not JSON" in wait_for(tmux, lambda s: "not JSON" in s, "the input check")  # `high` broke the JSON
        tmux.keys("Escape")
        wait_for(tmux, lambda s: "provider / model" not in s and "code-reviewer" in s, "back in the browser")

        tmux.keys("nmy-quick-mod")  # `n` opens the new-module form, whose name field gets the rest
        wait_for(tmux, lambda s: "New v2.2 module" in s and "my-quick-mod" in s, "the name in the form")
        tmux.keys("Escape")
        wait_for(tmux, lambda s: "New v2.2 module" not in s, "the form closed")

        tmux.keys("C-p")
        tmux.keys("migrate all")  # the palette's search box
        wait_for(tmux, lambda s: "Migrate all modules" in s, "the palette's match")
        tmux.keys("Escape")
        wait_for(tmux, lambda s: "Migrate all modules" not in s and "code-reviewer" in s, "the palette closed")

        assert not status_file.exists() and tmux.pane("#{pane_dead}") != "1"  # no `q` ever quit
        assert "Traceback" not in tmux.screen()
    finally:
        tmux.kill()
