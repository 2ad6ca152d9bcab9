"""`cogn add` and `cogn remove` on local git repositories: what is installed, what cognitive.lock records,
and that the lock alone reproduces an install in a fresh copy of a project (SHARE-1, SHARE-2, SHARE-7)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from gitkit import GitRepo, cogn, project, tree
from modkit import PROMPT_V22, clean_v22


def sha256_of_files(files: dict[str, bytes]) -> str:
    """The content hash as docs/sharing.md defines it, written out independently of the code under test."""
    digest = hashlib.sha256()
    for rel in sorted(files, key=lambda r: r.encode("utf-8")):
        digest.update(rel.encode("utf-8") + b"\0" + str(len(files[rel])).encode() + b"\0" + files[rel])
    return "sha256:" + digest.hexdigest()


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    """A repository holding one module, modules/summarizer, tagged at several versions."""
    repo = GitRepo(tmp_path / "repo", tmp_path / "home")
    repo.put("modules/summarizer", clean_v22("summarizer"))
    repo.put("", {"README.md": "modules\n"})
    repo.commit("first")
    for number, tag in enumerate(("v1.0.0", "v1.2.0", "v1.10.0", "v2.0.0-rc.1", "latest")):
        repo.put("modules/summarizer", {"prompt.md": PROMPT_V22 + f"\nRelease {tag}.\n" * (number + 1)})
        repo.commit(tag)
        repo.tag(tag, annotated=number % 2 == 1)
    return repo


def installed(proj: Path, name: str = "summarizer") -> Path:
    return proj / ".cognitive" / "modules" / name


def lock_of(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "cognitive.lock").read_text(encoding="utf-8"))


def test_add_installs_the_newest_release_and_records_it(tmp_path: Path, repo: GitRepo) -> None:
    proj, home = project(tmp_path)
    proc = cogn(proj, home, "add", repo.url)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "installed summarizer" in proc.stdout and "v1.10.0" in proc.stdout  # 1.10 > 1.2; no pre-release
    files = tree(installed(proj))
    assert files == repo.files_at("v1.10.0", "modules/summarizer")
    entry = lock_of(proj)["modules"]["summarizer"]
    assert entry == {
        "source": repo.url,
        "path_in_repo": "modules/summarizer",
        "ref": "v1.10.0",
        "follows": "tag",
        "commit": repo.git("rev-parse", "v1.10.0^{commit}"),
        "hash": sha256_of_files(files),
    }
    assert lock_of(proj)["lock_format"] == 1
    assert cogn(proj, home, "validate", "summarizer").returncode == 0  # found on the search path, valid
    assert [p.name for p in installed(proj).parent.iterdir()] == ["summarizer"]  # no staging folder left


def test_the_lock_alone_reproduces_the_install_in_a_fresh_project(tmp_path: Path, repo: GitRepo) -> None:
    proj, home = project(tmp_path)
    assert cogn(proj, home, "add", f"{repo.url}@main", "--module", "summarizer").returncode == 0
    lock_bytes = (proj / "cognitive.lock").read_bytes()
    assert lock_of(proj)["modules"]["summarizer"]["follows"] == "branch"
    repo.put("modules/summarizer", {"prompt.md": PROMPT_V22 + "\nMoved on.\n"})
    repo.commit("after the lock")  # the branch moves on: the lock still says the commit it recorded

    fresh = tmp_path / "fresh"
    fresh.mkdir()
    shutil.copy(proj / "cognitive.lock", fresh / "cognitive.lock")
    proc = cogn(fresh, home, "add")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert tree(installed(fresh)) == tree(installed(proj))
    assert (fresh / "cognitive.lock").read_bytes() == lock_bytes  # reinstalling writes nothing to the lock

    again = cogn(fresh, home, "add")
    assert again.returncode == 0 and "is installed as the lock says" in again.stdout


def test_reinstall_refuses_files_that_do_not_hash_to_the_lock(tmp_path: Path, repo: GitRepo) -> None:
    proj, home = project(tmp_path)
    assert cogn(proj, home, "add", f"{repo.url}@v1.0.0").returncode == 0
    lock = lock_of(proj)
    lock["modules"]["summarizer"]["hash"] = "sha256:" + "0" * 64
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    (fresh / "cognitive.lock").write_text(json.dumps(lock), encoding="utf-8")
    proc = cogn(fresh, home, "add")
    assert proc.returncode == 1
    assert "hash to sha256:" in proc.stdout and "records sha256:" + "0" * 64 in proc.stdout
    assert not installed(fresh).parent.exists()  # nothing was written, so not even the modules folder


def test_reinstall_keeps_local_changes_unless_forced(tmp_path: Path, repo: GitRepo) -> None:
    proj, home = project(tmp_path)
    assert cogn(proj, home, "add", f"{repo.url}@v1.0.0").returncode == 0
    good = tree(installed(proj))
    (installed(proj) / "prompt.md").write_text("my own edit\n", encoding="utf-8")
    proc = cogn(proj, home, "add")
    assert proc.returncode == 1 and "has local changes" in proc.stdout and "--force" in proc.stdout
    assert (installed(proj) / "prompt.md").read_text(encoding="utf-8") == "my own edit\n"
    assert cogn(proj, home, "add", "--force").returncode == 0
    assert tree(installed(proj)) == good


def test_a_missing_lock_is_an_error_and_an_empty_one_installs_nothing(tmp_path: Path) -> None:
    proj, home = project(tmp_path)
    proc = cogn(proj, home, "add")
    assert proc.returncode == 2 and "no cognitive.lock" in proc.stderr
    remove = cogn(proj, home, "remove", "summarizer")
    assert remove.returncode == 2 and "Nothing is installed at this level" in remove.stdout
    update = cogn(proj, home, "update")
    assert update.returncode == 0 and "nothing is installed here" in update.stdout
    assert list(proj.iterdir()) == []  # no .cognitive folder made by asking
    (proj / "cognitive.lock").write_text('{"lock_format": 1, "modules": {}}', encoding="utf-8")
    proc = cogn(proj, home, "add")
    assert proc.returncode == 0 and "lists no modules" in proc.stdout


def test_a_broken_lock_is_said_where(tmp_path: Path) -> None:
    proj, home = project(tmp_path)
    (proj / "cognitive.lock").write_text('{"lock_format": 1,\n "modules": {,}}', encoding="utf-8")
    proc = cogn(proj, home, "add")
    assert proc.returncode == 2 and "cognitive.lock:2:" in proc.stderr and "Traceback" not in proc.stderr


def test_a_commit_is_pinned_and_an_abbreviated_one_is_found(tmp_path: Path, repo: GitRepo) -> None:
    proj, home = project(tmp_path)
    commit = repo.git("rev-parse", "v1.2.0^{commit}")
    proc = cogn(proj, home, "add", f"{repo.url}#{commit[:8]}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    entry = lock_of(proj)["modules"]["summarizer"]
    assert (entry["ref"], entry["follows"], entry["commit"]) == (None, "commit", commit)
    assert tree(installed(proj)) == repo.files_at("v1.2.0", "modules/summarizer")
    update = cogn(proj, home, "update")
    assert update.returncode == 0 and "is pinned at commit" in update.stdout


def test_adding_the_same_thing_again_changes_nothing(tmp_path: Path, repo: GitRepo) -> None:
    proj, home = project(tmp_path)
    assert cogn(proj, home, "add", f"{repo.url}@v1.0.0").returncode == 0
    proc = cogn(proj, home, "add", f"{repo.url}@v1.0.0")
    assert proc.returncode == 0 and "is installed as the lock says" in proc.stdout
    moved = cogn(proj, home, "add", f"{repo.url}@v1.2.0")  # the same source at another tag: an explicit move
    assert moved.returncode == 0 and "installed summarizer" in moved.stdout
    assert lock_of(proj)["modules"]["summarizer"]["ref"] == "v1.2.0"


def test_a_local_path_is_recorded_as_written(tmp_path: Path, repo: GitRepo) -> None:
    """A relative path is recorded relative to the project, so a copy of the project beside the repository
    finds it again."""
    proj, home = project(tmp_path)
    proc = cogn(proj, home, "add", "../repo@v1.0.0")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert lock_of(proj)["modules"]["summarizer"]["source"] == "../repo"
    twin = tmp_path / "twin"
    twin.mkdir()
    shutil.copy(proj / "cognitive.lock", twin / "cognitive.lock")
    assert cogn(twin, home, "add").returncode == 0
    assert tree(installed(twin)) == tree(installed(proj))


def test_json_has_the_one_shape(tmp_path: Path, repo: GitRepo) -> None:
    proj, home = project(tmp_path)
    proc = cogn(proj, home, "add", f"{repo.url}@v1.0.0", "--json")
    assert proc.returncode == 0
    out = json.loads(proc.stdout)
    assert (out["format"], out["command"], out["summary"]) == (1, "add", {"modules": 1, "installed": 1})
    [module] = out["modules"]
    assert module["name"] == "summarizer" and module["status"] == "installed" and module["ref"] == "v1.0.0"
    assert module["path"] == str(installed(proj)) and module["path_in_repo"] == "modules/summarizer"
    assert module["diagnostics"] == [] and proc.stderr == ""  # no progress lines around JSON


def test_the_user_level_has_its_own_folder_and_lock(tmp_path: Path, repo: GitRepo) -> None:
    proj, home = project(tmp_path)
    proc = cogn(proj, home, "add", "--user", f"{repo.url}@v1.0.0")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (home / ".cognitive" / "modules" / "summarizer" / "module.yaml").is_file()
    assert lock_of(home / ".cognitive")["modules"]["summarizer"]["source"] == repo.url
    assert not (proj / "cognitive.lock").exists() and not installed(proj).exists()
    wrong_level = cogn(proj, home, "remove", "summarizer")
    assert wrong_level.returncode == 2 and "installed at the user level: add --user" in wrong_level.stdout
    assert cogn(proj, home, "remove", "--user", "summarizer").returncode == 0
    assert not (home / ".cognitive" / "modules" / "summarizer").exists()


def test_remove_deletes_the_folder_and_its_entry(tmp_path: Path, repo: GitRepo) -> None:
    proj, home = project(tmp_path)
    assert cogn(proj, home, "add", f"{repo.url}@v1.0.0").returncode == 0
    proc = cogn(proj, home, "remove", "summarizer")
    assert proc.returncode == 0 and "removed summarizer" in proc.stdout
    assert not installed(proj).exists() and lock_of(proj)["modules"] == {}
    assert list(installed(proj).parent.iterdir()) == []
    again = cogn(proj, home, "remove", "summarizer")
    assert again.returncode == 2 and "summarizer is not in" in again.stdout


def test_remove_keeps_local_changes_unless_forced(tmp_path: Path, repo: GitRepo) -> None:
    proj, home = project(tmp_path)
    assert cogn(proj, home, "add", f"{repo.url}@v1.0.0").returncode == 0
    (installed(proj) / "notes.txt").write_text("mine\n", encoding="utf-8")
    proc = cogn(proj, home, "remove", "summarizer")
    assert proc.returncode == 1 and "has local changes" in proc.stdout
    assert (installed(proj) / "notes.txt").exists() and "summarizer" in lock_of(proj)["modules"]
    assert cogn(proj, home, "remove", "summarizer", "--force").returncode == 0
    assert not installed(proj).exists()


def test_remove_says_when_a_folder_was_not_installed_by_add(tmp_path: Path) -> None:
    proj, home = project(tmp_path)
    installed(proj, "handmade").mkdir(parents=True)
    proc = cogn(proj, home, "remove", "handmade")
    assert proc.returncode == 2 and "was not installed by cogn add" in proc.stdout
    assert installed(proj, "handmade").is_dir()


def test_the_name_is_the_manifests_when_it_can_be_a_folder_name(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo", tmp_path / "home")
    repo.put("pkg/folder-name", clean_v22("declared-name"))
    repo.put("other/tool", clean_v22("../escape"))
    repo.commit()
    proj, home = project(tmp_path)
    assert cogn(proj, home, "add", repo.url, "--module", "pkg/folder-name").returncode == 0
    assert (installed(proj, "declared-name") / "module.yaml").is_file()
    proc = cogn(proj, home, "add", repo.url, "--module", "other/tool")
    assert (installed(proj, "tool") / "module.yaml").is_file(), proc.stdout  # not ../escape: the folder's name
    assert not (proj / ".cognitive" / "escape").exists()
