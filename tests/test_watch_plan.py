"""The watch plan: folders under the search path that cannot be read are left out, the rest stays watched.

The plan is made in a process that file permissions bind (tests/unreadable.py): as root they would not.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from unreadable import as_unprivileged, unreadable

from cogtui.core.files.watch_plan import plan_watch

PLAN = """
import json, sys
from pathlib import Path
from cogtui.core.files.watch_plan import plan_watch
plan = plan_watch(Path(p) for p in sys.argv[1:])
print(json.dumps({k: [str(p) for p in getattr(plan, k)] for k in ("recursive", "shallow", "unreadable")}))
"""


def plan_as_user(*roots: Path) -> dict[str, list[str]]:
    argv = as_unprivileged([sys.executable, "-c", PLAN, *map(str, roots)])
    done = subprocess.run(argv, capture_output=True, text=True, check=True, timeout=60)
    return json.loads(done.stdout)


def tree(root: Path) -> Path:
    """root/a (readable), root/b (unreadable), root/c/d (unreadable), root/c/e/f (readable), root/g.txt."""
    for sub in ("a/tests", "b", "c/d", "c/e/f"):
        (root / sub).mkdir(parents=True)
    (root / "g.txt").write_text("g", encoding="utf-8")
    return root


def test_everything_readable_is_one_recursive_watch_per_root(tmp_path: Path) -> None:
    root = tree(tmp_path / "modules")
    plan = plan_watch([root])
    assert plan.recursive == [root] and plan.shallow == [] and plan.unreadable == []
    assert plan.complete
    assert plan_as_user(root) == {"recursive": [str(root)], "shallow": [], "unreadable": []}


def test_unreadable_folders_are_left_out_and_their_parents_watched_for_their_own_entries(tmp_path: Path) -> None:
    root = tree(tmp_path / "modules")
    other = tree(tmp_path / "other")
    with unreadable(root / "b", root / "c" / "d"):
        plan = plan_as_user(root, other)
    assert plan == {
        "recursive": [str(root / "a"), str(root / "c" / "e"), str(other)],
        "shallow": [str(root), str(root / "c")],
        "unreadable": [str(root / "b"), str(root / "c" / "d")],
    }


def test_an_unreadable_root_is_left_out_whole(tmp_path: Path) -> None:
    root = tree(tmp_path / "modules")
    with unreadable(root):
        plan = plan_as_user(root)
    assert plan == {"recursive": [], "shallow": [], "unreadable": [str(root)]}
