"""Which modules a batch of file changes touches (core.module.file_changes): the watchers' rule, headless."""

from __future__ import annotations

from pathlib import Path

from modkit import clean_v22, make_module

from cogtui.core.module.file_changes import is_scratch_file, modules_touched


def test_a_change_inside_a_known_module_touches_it_and_nothing_else(tmp_path: Path) -> None:
    a = make_module(tmp_path, clean_v22("a"), name="a")
    b = make_module(tmp_path, clean_v22("b"), name="b")
    found = modules_touched([a / "prompt.md", a / "tests" / "x.input.json"], [tmp_path], {a, b})
    assert found.touched == {a} and not found.structural


def test_a_new_module_folder_is_structural_and_a_plain_new_folder_is_not(tmp_path: Path) -> None:
    a = make_module(tmp_path, clean_v22("a"), name="a")
    fresh = make_module(tmp_path, clean_v22("fresh"), name="fresh")
    (tmp_path / "notes").mkdir()
    assert modules_touched([fresh / "module.yaml"], [tmp_path], {a}).structural
    found = modules_touched([tmp_path / "notes" / "todo.txt"], [tmp_path], {a})
    assert found.touched == set() and not found.structural


def test_a_known_module_that_lost_its_manifest_is_structural(tmp_path: Path) -> None:
    a = make_module(tmp_path, clean_v22("a"), name="a")
    (a / "module.yaml").unlink()
    found = modules_touched([a / "module.yaml"], [tmp_path], {a})
    assert found.touched == {a} and found.structural


def test_a_root_that_is_itself_a_module_is_touched_by_any_change_under_it(tmp_path: Path) -> None:
    root = make_module(tmp_path, clean_v22("solo"), name="solo")
    assert modules_touched([root / "deep" / "file.txt"], [root], {root}).touched == {root}


def test_changes_outside_the_roots_hidden_or_backup_folders_and_scratch_files_touch_nothing(tmp_path: Path) -> None:
    root = tmp_path / "mods"
    a = make_module(root, clean_v22("a"), name="a")
    hidden = make_module(root, clean_v22("h"), name=".hidden")
    changed = [tmp_path / "elsewhere.txt", hidden / "module.yaml", a / "prompt.md~", a / ".#prompt.md", a / "x.swp"]
    changed.append(a / "module.yaml.cogtui-tmp")
    found = modules_touched(changed, [root], {a})
    assert found.touched == set() and not found.structural


def test_scratch_files_are_editor_leftovers_and_our_temporaries_only() -> None:
    for name in ("a.swp", "a.swx", "a~", ".#a", "x/__pycache__/y.pyc", "module.yaml.cogtui-tmp"):
        assert is_scratch_file(name), name
    for name in ("module.yaml", "prompt.md", "tests/case.input.json", "swp.md"):
        assert not is_scratch_file(name), name
