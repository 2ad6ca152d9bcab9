"""The search path: order, shadowing, what is never a module, unreadable roots, resolve()."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from modkit import clean_v0, clean_v1, clean_v22, make_module, mapping_in

from cogtui.core.module.discovery import SearchPath, SearchRoot, discover, is_candidate_name, resolve
from cogtui.core.workspace import Workspace, check_path, resolve_target


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    cwd, home = tmp_path / "work", tmp_path / "home"
    cwd.mkdir()
    home.mkdir()
    return {"cwd": cwd, "home": home, "tmp": tmp_path}


def module(parent: Path, name: str, files: dict | None = None) -> Path:
    return make_module(parent, files or clean_v22(), name)


def test_order_of_roots(world: dict[str, Path]) -> None:
    cwd, home, tmp = world["cwd"], world["home"], world["tmp"]
    env = {"COGNITIVE_MODULES_PATH": os.pathsep.join([str(tmp / "c1"), "", "rel-c2", str(tmp / "c3")])}
    sp = SearchPath.from_environment(["extra", tmp / "abs-extra"], cwd=cwd, home=home, env=env)
    assert [(r.path, r.level) for r in sp.roots] == [
        (cwd / "extra", "path"),
        (tmp / "abs-extra", "path"),
        (cwd / ".cognitive" / "modules", "project"),
        (home / ".cognitive" / "modules", "user"),
        (tmp / "c1", "custom"),
        (cwd / "rel-c2", "custom"),
        (tmp / "c3", "custom"),
    ]
    assert sp.root_for("user") == SearchRoot(home / ".cognitive" / "modules", "user")


def test_no_env_variable(world: dict[str, Path]) -> None:
    sp = SearchPath.from_environment(cwd=world["cwd"], home=world["home"], env={})
    assert [r.level for r in sp.roots] == ["project", "user"]
    assert sp.root_for("custom") is None


def test_tilde_in_env_uses_the_given_home(world: dict[str, Path]) -> None:
    sp = SearchPath.from_environment(cwd=world["cwd"], home=world["home"], env={"COGNITIVE_MODULES_PATH": "~/mods"})
    assert sp.roots[-1] == SearchRoot(world["home"] / "mods", "custom")


def test_duplicate_roots_keep_the_first(world: dict[str, Path]) -> None:
    cwd, home = world["cwd"], world["home"]
    project = cwd / ".cognitive" / "modules"
    env = {"COGNITIVE_MODULES_PATH": str(project)}
    sp = SearchPath.from_environment([project], cwd=cwd, home=home, env=env)
    assert [(r.path, r.level) for r in sp.roots] == [(project, "path"), (home / ".cognitive" / "modules", "user")]


def test_every_level_is_searched_and_the_first_name_wins(world: dict[str, Path]) -> None:
    cwd, home, tmp = world["cwd"], world["home"], world["tmp"]
    extra = tmp / "extra"
    project = cwd / ".cognitive" / "modules"
    user = home / ".cognitive" / "modules"
    c1, c2 = tmp / "c1", tmp / "c2"
    module(extra, "only-path")
    module(project, "shared")
    module(project, "only-project")
    module(user, "shared")
    module(user, "only-user", clean_v1())
    module(c1, "shared")
    module(c1, "in-customs", clean_v0())
    module(c2, "in-customs")
    env = {"COGNITIVE_MODULES_PATH": os.pathsep.join([str(c1), str(c2)])}
    index = discover(SearchPath.from_environment([extra], cwd=cwd, home=home, env=env))
    rows = [(e.name, e.level, e.path, e.shadowed_by) for e in index.entries]
    assert rows == [
        ("only-path", "path", extra / "only-path", None),
        ("only-project", "project", project / "only-project", None),
        ("shared", "project", project / "shared", None),
        ("only-user", "user", user / "only-user", None),
        ("shared", "user", user / "shared", project / "shared"),
        ("in-customs", "custom", c1 / "in-customs", None),
        ("shared", "custom", c1 / "shared", project / "shared"),
        ("in-customs", "custom", c2 / "in-customs", c1 / "in-customs"),
    ]
    winner = index.get("shared")
    assert winner is not None and winner.path == project / "shared" and not winner.shadowed
    assert [e.path for e in index.shadowed_under(winner)] == [user / "shared", c1 / "shared"]
    assert {e.name for e in index.winners} == {"only-path", "only-project", "shared", "only-user", "in-customs"}
    assert {e.name: e.manifest for e in index.winners} == {
        "only-path": "module.yaml",
        "only-project": "module.yaml",
        "shared": "module.yaml",
        "only-user": "MODULE.md",
        "in-customs": "module.md",
    }
    assert index.diagnostics == []


def test_path_root_shadows_project(world: dict[str, Path]) -> None:
    cwd, home, tmp = world["cwd"], world["home"], world["tmp"]
    module(tmp / "extra", "m")
    module(cwd / ".cognitive" / "modules", "m")
    index = discover(SearchPath.from_environment([tmp / "extra"], cwd=cwd, home=home, env={}))
    shadowed = [e for e in index.entries if e.shadowed]
    assert [(e.level, e.shadowed_by) for e in shadowed] == [("project", tmp / "extra" / "m")]


def test_name_is_folder_name(world: dict[str, Path]) -> None:
    files = clean_v22()
    mapping_in(files, "module.yaml")["name"] = "something-else"
    module(world["tmp"] / "root", "folder-name", files)
    index = discover(SearchPath.from_environment([world["tmp"] / "root"], cwd=world["cwd"], home=world["home"], env={}))
    assert [e.name for e in index.entries] == ["folder-name"]
    assert index.get("something-else") is None


NEVER_MODULES = [
    ".git",
    ".hidden",
    "foo.bak",
    "foo~",
    "foo.orig",
    "backups",
    "backup",
    "foo.old",
    "foo.swp",
    "foo.bak.2",
    "__pycache__",
    "node_modules",
    "__init__",
]


def test_hidden_and_backup_folders_are_never_modules(world: dict[str, Path]) -> None:
    root = world["tmp"] / "root"
    for name in NEVER_MODULES:
        module(root, name)
    module(root, "real")
    (root / "loose-file.yaml").write_text("name: x\n")
    (root / "no-manifest").mkdir()
    (root / "no-manifest" / "prompt.md").write_text("x")
    index = discover(SearchPath.from_environment([root], cwd=world["cwd"], home=world["home"], env={}))
    assert [e.name for e in index.entries] == ["real"]
    for name in NEVER_MODULES:
        assert not is_candidate_name(name), name
    for name in ("real", "foo-bak", "backup-tool", "orig", "a.b"):
        assert is_candidate_name(name), name


def test_a_root_that_is_itself_a_module(world: dict[str, Path]) -> None:
    mod = module(world["tmp"], "my-module")
    module(mod, "nested")  # a folder inside a module is not scanned as a module
    index = discover(SearchPath.from_environment([mod], cwd=world["cwd"], home=world["home"], env={}))
    assert [(e.name, e.path, e.level) for e in index.entries] == [("my-module", mod, "path")]


def test_missing_and_file_roots(world: dict[str, Path]) -> None:
    a_file = world["tmp"] / "not-a-dir"
    a_file.write_text("x")
    index = discover(
        SearchPath.from_environment([world["tmp"] / "missing", a_file], cwd=world["cwd"], home=world["home"], env={})
    )
    assert index.entries == []
    # Both were typed (--path): a missing one is said too, never an empty search path (PATH-2).
    assert [(d.code, d.file) for d in index.diagnostics] == [("P003", world["tmp"] / "missing"), ("P003", a_file)]
    assert "does not exist" in index.diagnostics[0].message and "not a folder" in index.diagnostics[1].message
    quiet = discover(SearchPath.from_environment([], cwd=world["tmp"] / "nowhere", home=world["home"], env={}))
    assert quiet.diagnostics == []  # the standard roots are often absent: silent


@pytest.fixture
def locked(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "locked"
    module(root, "inside")
    root.chmod(0)
    try:
        yield root
    finally:
        root.chmod(0o755)


def test_unreadable_root_is_a_diagnostic(locked: Path, world: dict[str, Path]) -> None:
    module(world["tmp"] / "open", "visible")
    sp = SearchPath.from_environment([locked, world["tmp"] / "open"], cwd=world["cwd"], home=world["home"], env={})
    index = discover(sp)  # must not raise
    assert "visible" in [e.name for e in index.entries]
    if os.access(locked, os.R_OK):
        return  # running as root: permissions are not enforced, so there is nothing unreadable to report
    assert [e.name for e in index.entries] == ["visible"]
    [d] = index.diagnostics
    assert d.code == "P003" and d.file == locked and "cannot read" in d.message


def test_unreadable_module_folder_does_not_raise(tmp_path: Path) -> None:
    mod = module(tmp_path, "m")
    (mod / "schema.json").chmod(0)
    try:
        report = check_path(mod)
        assert report.module is not None
        if not os.access(mod / "schema.json", os.R_OK):
            assert any(d.code == "P003" and d.file == mod / "schema.json" for d in report.diagnostics)
    finally:
        (mod / "schema.json").chmod(0o644)


# ---------------------------------------------------------------- resolve


def test_resolve_by_name_and_by_path(world: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    cwd, home, tmp = world["cwd"], world["home"], world["tmp"]
    project = cwd / ".cognitive" / "modules"
    user = home / ".cognitive" / "modules"
    winner = module(project, "dup")
    loser = module(user, "dup")
    local = module(cwd, "local-mod")
    elsewhere = module(tmp, "elsewhere")
    index = discover(SearchPath.from_environment(cwd=cwd, home=home, env={}))
    assert resolve("dup", index, cwd) == winner
    assert resolve(str(loser), index, cwd) == loser  # a shadowed module is still reachable by its path
    assert resolve("local-mod", index, cwd) == local  # not on the search path, but a folder under cwd
    assert resolve("./local-mod", index, cwd) == local
    assert resolve(str(elsewhere), index, cwd) == elsewhere
    assert resolve(str(elsewhere / "module.yaml"), index, cwd) == elsewhere
    assert resolve("missing", index, cwd) is None
    assert resolve(str(tmp), index, cwd) is None  # a folder, but not a module
    assert resolve(str(elsewhere / "prompt.md"), index, cwd) is None
    assert resolve("x" * 300, index, cwd) is None  # too long for a file name: not found, not OSError
    too_long = discover(SearchPath.from_environment(["y" * 300], cwd=cwd, home=home, env={})).diagnostics
    assert [d.code for d in too_long] == ["P003"]  # said as missing (PATH-2), not an OSError
    monkeypatch.chdir(cwd)
    assert resolve("local-mod", index) == Path("local-mod").absolute()


def test_name_lookup_beats_a_same_named_folder_in_cwd(world: dict[str, Path]) -> None:
    cwd, home = world["cwd"], world["home"]
    on_path = module(cwd / ".cognitive" / "modules", "x")
    module(cwd, "x")
    index = discover(SearchPath.from_environment(cwd=cwd, home=home, env={}))
    assert resolve("x", index, cwd) == on_path


def test_resolve_target_finds_what_the_search_path_finds(
    world: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`workspace.resolve_target` skips discovery for a target written as a path (issue 16): same answers."""
    cwd, home, tmp = world["cwd"], world["home"], world["tmp"]
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("COGNITIVE_MODULES_PATH", raising=False)
    module(cwd / ".cognitive" / "modules", "dup")
    loser = module(home / ".cognitive" / "modules", "dup")
    module(cwd, "local-mod")
    renamed = make_module(tmp, clean_v22("a/b"), "c")
    (cwd / "a").mkdir()  # `a/b` names no folder: the manifest's name finds it
    targets = ["dup", str(loser), "./local-mod", "local-mod", "local-mod/", str(loser / "module.yaml"), "a/b"]
    targets += ["missing", "./missing", str(tmp), str(loser / "prompt.md"), "x" * 300 + "/y", "a"]
    for target in targets:
        expected = Workspace.from_environment([tmp]).resolve(target)
        assert resolve_target(target, [tmp]) == expected, target
    assert resolve_target("a/b", [tmp]) == renamed and resolve_target("./local-mod") == cwd / "local-mod"
