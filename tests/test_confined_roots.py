"""The confined reader judges a file against its root however the root is written (issue 16 answers most reads
without resolving the root again: a file under the root as written is under the resolved root)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from modkit import clean_v22, make_module

from cogtui.core.files.confined import ConfinementError, read_confined
from cogtui.core.module.loader import load_module
from cogtui.core.rules.validate_module import validate_module


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


# ---------------------------------------------------------------- through the module's own reads
# Confinement is judged before existence: a module file linked to a missing file outside the folder is F001, as a
# link to an existing one is. Said "does not exist", it would tell the author (or a hostile folder's maker) which
# paths outside exist (the probe answers differently for the two); a link to a missing file inside is P003.
MODULE_FILES = ["module.yaml", "prompt.md", "schema.json", "tests/case1.input.json", "tests/case1.expected.json"]


@pytest.mark.parametrize("rel", MODULE_FILES)
@pytest.mark.parametrize("target", ["missing outside", "existing outside", "missing inside"])
def test_a_module_file_linked_outside_is_f001_whether_or_not_its_target_exists(
    rel: str, target: str, tmp_path: Path
) -> None:
    root = make_module(tmp_path, clean_v22())
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "there.json").write_text("{}", encoding="utf-8")
    path = root / rel
    path.unlink()
    path.symlink_to(
        {
            "missing outside": outside / "missing.json",
            "existing outside": outside / "there.json",
            "missing inside": root / "missing.json",
        }[target]
    )
    module = load_module(root)
    said = [(d.code, d.message) for d in [*module.load_diagnostics, *validate_module(module)] if d.file == path]
    assert said, target
    if target == "missing inside":
        assert {code for code, _ in said} == {"P003"}, said
        assert all("does not exist" in message for _, message in said), said
    else:
        assert {code for code, _ in said} == {"F001"}, said
        assert all("outside the module folder" in message for _, message in said), said
