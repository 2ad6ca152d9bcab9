"""The confined reader judges a file against its root however the root is written (issue 16 answers most reads
without resolving the root again: a file under the root as written is under the resolved root)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cogtui.core.files.confined import ConfinementError, read_confined


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    real = tmp_path / "real"
    mod = real / "mod"
    (mod / "tests").mkdir(parents=True)
    (mod / "prompt.md").write_text("inside", encoding="utf-8")
    evil = real / "mod-evil"  # a sibling whose name begins with the module's
    evil.mkdir()
    (real / "x").mkdir()  # for a root written with `..`
    (evil / "secret.txt").write_text("outside", encoding="utf-8")
    (mod / "tests" / "sibling.json").symlink_to(evil / "secret.txt")
    (mod / "tests" / "up.json").symlink_to(Path("..") / ".." / "mod-evil" / "secret.txt")
    (mod / "tests" / "own.json").symlink_to(mod / "prompt.md")
    (tmp_path / "link").symlink_to(real, target_is_directory=True)
    return {"tmp": tmp_path, "mod": mod, "linked": tmp_path / "link" / "mod", "dotted": real / "x" / ".." / "mod"}


@pytest.mark.parametrize("written", ["mod", "linked", "dotted", "relative"])
def test_a_root_however_written_reads_inside_and_refuses_outside(
    written: str, world: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    if written == "relative":
        monkeypatch.chdir(world["tmp"])
        root = Path("link") / "mod"
    else:
        root = world[written]
    assert read_confined(root / "prompt.md", root) == b"inside"
    assert read_confined(root / "tests" / "own.json", root) == b"inside"  # a link that stays inside
    for leak in ("sibling.json", "up.json"):
        with pytest.raises(ConfinementError) as refused:
            read_confined(root / "tests" / leak, root)
        assert refused.value.diagnostic.code == "F001"


def test_the_root_itself_and_a_root_of_slash(world: dict[str, Path]) -> None:
    assert read_confined(world["mod"] / "prompt.md", Path(os.sep)) == b"inside"
    with pytest.raises(ConfinementError):
        read_confined(world["mod"] / "tests" / "sibling.json", world["mod"] / "tests")
