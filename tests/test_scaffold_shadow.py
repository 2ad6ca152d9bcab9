"""PATH-5: creating a module whose name another module on the search path has is a shadowing, said in both
directions: a new module under an earlier root shadows the old one; under a later root it is shadowed itself."""

from __future__ import annotations

import shutil
from pathlib import Path

from cogtui.core.authoring.scaffold import shadowing
from cogtui.core.module.discovery import SearchPath, discover

MODULES = Path(__file__).resolve().parents[1] / "modules"


def test_both_directions_and_no_warning_without_a_namesake(tmp_path: Path) -> None:
    first, second, home = tmp_path / "first", tmp_path / "second", tmp_path / "home"
    for folder in (first, second, home):
        folder.mkdir()
    shutil.copytree(MODULES / "code-reviewer", second / "code-reviewer")
    search_path = SearchPath.from_environment([first, second], cwd=tmp_path, home=home, env={})
    index = discover(search_path)
    [shadows] = shadowing("code-reviewer", first, index)
    assert shadows == (
        f"the new module would shadow {second / 'code-reviewer'} (path): `code-reviewer` would run the new one"
    )
    user_root = home / ".cognitive" / "modules"  # after both --path roots: the new one is hidden
    [hidden] = shadowing("code-reviewer", user_root, index)
    assert hidden.startswith(f"{second / 'code-reviewer'} (path) comes first on the search path: it would shadow")
    assert shadowing("ticket-triage", first, index) == []
    assert shadowing("code-reviewer", second, index) == []  # that is the module itself (check_name refuses it)
    assert shadowing("code-reviewer", tmp_path / "elsewhere", index) == []  # not a root: no order to speak of
