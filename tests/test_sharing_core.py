"""The sharing core's parts on their own: sources and credentials, tag order, the content hash, the lock
file, size limits, a lock that cannot be written, git's own protocol guard, and what `cogn validate`
imports (SHARE-1 to SHARE-6)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
from gitkit import GitRepo, tree
from modkit import clean_v22

from cogtui.core.sharing.git import Git, GitError, TreeEntry
from cogtui.core.sharing.install import Installer, place_for
from cogtui.core.sharing.lockfile import Lock, LockEntry, LockError, content_hash, read_lock
from cogtui.core.sharing.repo_tree import Limits, TreeRefused, module_entries, module_folders
from cogtui.core.sharing.source import Revision, Source, SourceError, parse_source, split_spec
from cogtui.core.sharing.versions import is_newer, newest_release


@pytest.mark.parametrize(
    ("spec", "source", "revision"),
    [
        ("https://github.com/acme/mods.git@v1.2.0", "https://github.com/acme/mods.git", Revision(ref="v1.2.0")),
        ("https://github.com/acme/mods.git#ABCDEF1", "https://github.com/acme/mods.git", Revision(commit="abcdef1")),
        ("git@github.com:acme/mods.git@main", "git@github.com:acme/mods.git", Revision(ref="main")),
        ("git@github.com:mods@v1", "git@github.com:mods", Revision(ref="v1")),
        ("ssh://git@host/acme/mods.git", "ssh://git@host/acme/mods.git", Revision()),
        ("https://TOKEN@host", "https://TOKEN@host", Revision()),  # no path: the '@' is the user's, not a ref
        ("acme/mods@feature/x", "acme/mods", Revision(ref="feature/x")),
        ("https://me@h/acme/mods.git@release/2.x", "https://me@h/acme/mods.git", Revision(ref="release/2.x")),
        ("git@h:acme/mods", "git@h:acme/mods", Revision()),
    ],
)
def test_split_spec(tmp_path: Path, spec: str, source: str, revision: Revision) -> None:
    assert split_spec(spec, tmp_path) == (source, revision)


def test_a_folder_named_with_an_at_sign_is_taken_whole(tmp_path: Path) -> None:
    (tmp_path / "mods@2").mkdir()
    assert split_spec("mods@2", tmp_path) == ("mods@2", Revision())


@pytest.mark.parametrize("bad", ["x@", "x@-rf", "x@a..b", "x@a b", "x#12", "x#xyz1234"])
def test_refs_and_commits_git_would_not_take(tmp_path: Path, bad: str) -> None:
    with pytest.raises(SourceError):
        split_spec(bad, tmp_path)


def test_credentials_are_shown_as_stars_and_never_stored(tmp_path: Path) -> None:
    token = parse_source("https://ghp_TOKEN1234@github.com/acme/mods.git", tmp_path)
    assert (token.shown, token.stored) == ("https://***@github.com/acme/mods.git", "https://github.com/acme/mods.git")
    assert token.url == "https://ghp_TOKEN1234@github.com/acme/mods.git"  # git still gets it
    said = token.scrub("fatal: could not read ghp_TOKEN1234 from https://ghp_TOKEN1234@github.com/acme/mods.git")
    assert "ghp_TOKEN1234" not in said and "https://***@github.com/acme/mods.git" in said
    pair = parse_source("https://me:pa55word@host/x.git", tmp_path)
    assert pair.stored == "https://host/x.git" and "pa55word" not in pair.scrub("me:pa55word@host said pa55word")
    ssh = parse_source("ssh://git:hunter22@host/x.git", tmp_path)
    assert (ssh.shown, ssh.stored) == ("ssh://git:***@host/x.git", "ssh://git@host/x.git")
    plain = parse_source("ssh://git@host/x.git", tmp_path)
    assert plain.shown == plain.stored == plain.url and plain.scrub("git@host") == "git@host"


def test_protocols(tmp_path: Path) -> None:
    assert parse_source("git@github.com:acme/mods.git", tmp_path).protocol == "ssh"
    assert parse_source("git+ssh://host/x.git", tmp_path).protocol == "ssh"
    assert parse_source("file:///srv/x.git", tmp_path).protocol == "file"
    shorthand = parse_source("acme/mods", tmp_path)
    assert (shorthand.url, shorthand.protocol) == ("https://github.com/acme/mods.git", "https")
    (tmp_path / "acme" / "mods").mkdir(parents=True)  # an existing folder wins over the shorthand
    local = parse_source("acme/mods", tmp_path)
    assert (local.protocol, local.stored, local.url) == ("file", "acme/mods", str(tmp_path / "acme" / "mods"))
    assert parse_source("acme/mods", tmp_path, relative_paths=False).stored == str(tmp_path / "acme" / "mods")
    for refused in ("http://h/x.git", "git://h/x.git", "ext::sh -c id", "fd::3", "ftp://h/x", "-uhost", ""):
        with pytest.raises(SourceError):
            parse_source(refused, tmp_path)


def test_git_itself_refuses_a_transport_outside_the_three(tmp_path: Path) -> None:
    """Past the parser (a source made by hand), git's protocol settings still refuse `ext::`, which would run
    a command: the guard does not rest on parsing alone."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    marker = tmp_path / "ran"
    hostile = Source(f"ext::sh -c touch% {marker}", "ext::…", "ext::…", "ssh")
    with pytest.raises(GitError, match="not allowed"):
        Git(hostile, scratch).remote_refs()
    assert not marker.exists()


def test_release_order() -> None:
    assert newest_release(["v1.2.0", "v1.10.0", "v1.9.9", "v2.0.0-rc.1", "latest", "1.10.0"]) == "1.10.0"
    assert newest_release(["v1.0.0-alpha", "nightly"]) is None
    assert is_newer("v1.0.0", "v1.0.0-rc.2") and is_newer("v1.0.0-rc.10", "v1.0.0-rc.2")
    assert is_newer("v1.0.0-beta", "v1.0.0-alpha.9") and not is_newer("v1.0.0+build.2", "v1.0.0")
    assert not is_newer("nightly", "v1.0.0")


def test_the_content_hash_is_the_documented_one() -> None:
    files = {"b/x.txt": b"12", "a.txt": b"", "é.md": "ü".encode()}
    expected = hashlib.sha256(b"a.txt\x000\x00" + b"b/x.txt\x002\x0012" + "é.md".encode() + b"\x002\x00" + "ü".encode())
    assert content_hash(files) == "sha256:" + expected.hexdigest()
    assert content_hash({"ab": b"c"}) != content_hash({"a": b"bc"})  # the separators keep paths and bytes apart


def entry(**changes: object) -> dict[str, object]:
    value: dict[str, object] = {
        "source": "https://h/x.git",
        "path_in_repo": "",
        "ref": "v1.0.0",
        "follows": "tag",
        "commit": "a" * 40,
        "hash": "sha256:" + "b" * 64,
    }
    value.update(changes)
    return value


def test_a_lock_round_trips_in_name_order(tmp_path: Path) -> None:
    lock = Lock(tmp_path / "cognitive.lock")
    lock.entries["zeta"] = LockEntry("https://h/z.git", "", None, "commit", "c" * 40, "sha256:" + "d" * 64)
    lock.entries["alpha"] = LockEntry(**entry())  # type: ignore[arg-type]
    lock.save()
    text = lock.path.read_text(encoding="utf-8")
    assert text.index('"alpha"') < text.index('"zeta"') and text.endswith("}\n")
    assert read_lock(lock.path).entries == lock.entries


@pytest.mark.parametrize(
    ("modules", "said"),
    [
        ({"m": entry(commit="abc")}, "modules.m: commit must be a full commit id"),
        ({"m": entry(hash="md5:00")}, "modules.m: hash must be sha256:"),
        ({"m": entry(follows="tag", ref=None)}, "an entry that follows a tag needs its ref"),
        ({"m": entry(follows="moon")}, "follows must be one of tag, branch, commit"),
        ({"..": entry()}, "'..' is not a folder name a module can have"),
        ({".hidden": entry()}, "a name discovery skips"),
        ({"m": "text"}, "modules.m: not an object"),
    ],
)
def test_a_lock_that_says_what_a_lock_cannot(tmp_path: Path, modules: dict[str, object], said: str) -> None:
    path = tmp_path / "cognitive.lock"
    path.write_text(json.dumps({"lock_format": 1, "modules": modules}), encoding="utf-8")
    with pytest.raises(LockError, match=None) as caught:
        read_lock(path)
    assert said in caught.value.message


def test_a_lock_of_another_format_or_not_json(tmp_path: Path) -> None:
    path = tmp_path / "cognitive.lock"
    path.write_text('{"lock_format": 2, "modules": {}}', encoding="utf-8")
    with pytest.raises(LockError, match="lock_format 2 is not one this cogtui reads"):
        read_lock(path)
    path.write_text("{\n  nope", encoding="utf-8")
    with pytest.raises(LockError, match=r"cognitive\.lock:2:3: not JSON"):
        read_lock(path)


@pytest.fixture
def one_module(tmp_path: Path) -> GitRepo:
    repo = GitRepo(tmp_path / "repo", tmp_path / "home")
    repo.put("", clean_v22("summarizer"))
    repo.commit()
    repo.tag("v1.0.0")
    return repo


@pytest.mark.parametrize(
    ("limits", "said"),
    [
        (Limits(total_bytes=1000), "more than 1000 bytes in all"),
        (Limits(file_bytes=500), "more than a module file may be (the limit is 500 bytes)"),
    ],
)
def test_bytes_are_bounded(tmp_path: Path, one_module: GitRepo, limits: Limits, said: str) -> None:
    place = place_for("project", cwd=tmp_path, home=tmp_path / "home")
    with Installer(place, limits=limits) as installer:
        outcome = installer.add(one_module.url)
    assert (outcome.status, outcome.reason) == ("refused", "too-large") and said in outcome.message
    assert list(place.root.iterdir()) == [] and not place.lock_path.exists()


def test_a_lock_that_cannot_be_written_puts_the_old_module_back(
    tmp_path: Path, one_module: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    place = place_for("project", cwd=tmp_path, home=tmp_path / "home")
    with Installer(place) as installer:
        assert installer.add(f"{one_module.url}@v1.0.0").status == "installed"
    before, lock_before = tree(place.root / "summarizer"), place.lock_path.read_bytes()
    one_module.put("", {"prompt.md": "changed\n"})
    one_module.commit()

    def full_disk(_lock: Lock) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Lock, "save", full_disk)
    with Installer(place) as installer:
        outcome = installer.add(f"{one_module.url}@main")
    assert (outcome.status, outcome.reason) == ("refused", "write") and "No space left" in outcome.message
    assert tree(place.root / "summarizer") == before and place.lock_path.read_bytes() == lock_before
    assert [p.name for p in place.root.iterdir()] == ["summarizer"]


def test_validate_does_not_import_the_sharing_code(tmp_path: Path) -> None:
    module = tmp_path / "summarizer"
    module.mkdir()
    for rel, value in clean_v22("summarizer").items():
        from modkit import dump

        (module / rel).parent.mkdir(parents=True, exist_ok=True)
        (module / rel).write_bytes(dump(rel, value))
    probe = (
        "import sys\nfrom cogtui.cli import main\ncode = main(['validate', sys.argv[1]])\n"
        "print(code, sorted(m for m in sys.modules if m.startswith('cogtui.core.sharing') or m == 'cogtui.cli.cmd_add'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(module)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.stdout.strip().splitlines()[-1] == "0 []", done.stdout + done.stderr


def blob(path: str, size: int = 1, mode: str = "100644") -> TreeEntry:
    return TreeEntry(mode, "0" * 40, size, path)


def test_module_folders_are_the_outermost_discovery_would_take() -> None:
    entries = [
        blob("a/module.yaml"),
        blob("a/nested/module.yaml"),  # inside a module: part of it, not another one
        blob(".hidden/b/module.yaml"),
        blob("x.bak/module.yaml"),
        blob(".cognitive/modules/c/MODULE.md"),
        blob("d/README.md"),
    ]
    assert module_folders(entries) == [".cognitive/modules/c", "a"]
    assert module_folders([*entries, blob("module.md")]) == [""]  # a module at the root holds the rest


@pytest.mark.parametrize(
    ("entry", "reason", "said"),
    [
        (blob("m/link", mode="120000"), "symlink", "m/link is a symlink"),
        (TreeEntry("160000", "1" * 40, None, "m/vendor"), "submodule", "m/vendor is a git submodule"),
        (blob("m/sub/.git/config"), "name", "sub/.git/config: a path a module cannot hold"),
        (blob("m/PROMPT.md"), "name", "prompt.md and PROMPT.md differ only in case"),
        (blob("m/caf\udce9.md"), "name", "not UTF-8"),
        (blob("m/big.bin", size=9 * 1024 * 1024), "too-large", "m/big.bin is 9.0 MiB"),
    ],
)
def test_what_a_module_may_not_hold(entry: TreeEntry, reason: str, said: str) -> None:
    entries = [blob("m/module.yaml"), blob("m/prompt.md"), entry, blob("elsewhere/link", mode="120000")]
    with pytest.raises(TreeRefused) as caught:
        module_entries(entries, "m", Limits())
    assert caught.value.reason == reason and said in caught.value.message


def test_what_lies_outside_the_module_is_not_looked_at() -> None:
    entries = [blob("m/module.yaml"), blob("m/prompt.md"), blob("other/link", mode="120000"), blob("mx/file")]
    assert sorted(module_entries(entries, "m", Limits())) == ["module.yaml", "prompt.md"]
