"""A folder on the search path that cannot be read is said, never silently missing (tests/unreadable.py).

`cogn list` warns and lists the rest; a command naming the folder, by path or by name, says it cannot be
read instead of "no module folder at that path".
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

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
