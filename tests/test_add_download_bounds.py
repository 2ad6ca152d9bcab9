"""What `cogn add` and `cogn update` fetch is bounded (SHARE-9): the bytes a remote sends (a module's repository holding
a large file elsewhere, at the commit or only in its history), and the paths of a commit's tree. Past a limit the
fetch is stopped, the message names the limit, and nothing is left: no module, no lock entry, no scratch
repository; an installed module stays as it was. Local git repositories (file URLs), the real git binary."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from gitkit import GitRepo, cogn, project, tree
from modkit import clean_v22

from cogtui.core.sharing.install import Installer, place_for
from cogtui.core.sharing.repo_tree import Limits

BIG = 3 << 20  # bytes of a file that does not compress: past a 1 MiB download limit however git packs it


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    return GitRepo(tmp_path / "repo", tmp_path / "home")


def with_big_file(repo: GitRepo) -> None:
    repo.put("summarizer", clean_v22("summarizer"))
    (repo.path / "assets").mkdir()
    (repo.path / "assets" / "video.bin").write_bytes(os.urandom(BIG))
    repo.commit()


def add(proj: Path, home: Path, *args: str) -> tuple[int, dict[str, object], Path]:
    """`cogn add ARGS --json` as a process whose temporary folder is the test's own."""
    scratch = proj.parent / "tmp"
    scratch.mkdir(exist_ok=True)
    proc = cogn(proj, home, "add", *args, "--json", process=True, extra_env={"TMPDIR": str(scratch)})
    assert "Traceback" not in proc.stderr, proc.stderr
    [module] = json.loads(proc.stdout)["modules"]
    return proc.returncode, module, scratch


def nothing_left(proj: Path, scratch: Path) -> None:
    root = proj / ".cognitive" / "modules"
    assert not (proj / "cognitive.lock").exists() and (not root.exists() or list(root.iterdir()) == [])
    assert list(scratch.iterdir()) == []  # the scratch repository, partial pack and all, is gone


def test_a_repository_larger_than_the_limit_is_stopped_and_named(tmp_path: Path, repo: GitRepo) -> None:
    with_big_file(repo)
    proj, home = project(tmp_path)
    code, module, scratch = add(proj, home, repo.url, "--max-download", "1")
    assert code == 1 and (module["status"], module["reason"]) == ("refused", "too-large"), module
    message = str(module["message"])
    assert "sent more than 1.0 MiB" in message and "the most cogn add downloads for a module" in message
    assert "--max-download" in str(module["hint"])
    nothing_left(proj, scratch)
    code, module, _ = add(proj, home, repo.url)  # the default limit takes it: the module alone is installed
    assert code == 0 and module["status"] == "installed", module
    assert sorted(p.name for p in (proj / ".cognitive" / "modules").iterdir()) == ["summarizer"]


def test_a_large_file_in_the_history_stops_the_full_fetch_too(tmp_path: Path, repo: GitRepo) -> None:
    """An abbreviated commit is looked for in every branch and tag's history, where the large file still is."""
    with_big_file(repo)
    repo.put("assets", {"video.bin": None})
    head = repo.commit("the video goes")
    proj, home = project(tmp_path)
    code, module, scratch = add(proj, home, f"{repo.url}#{head[:10]}", "--max-download", "1")
    assert code == 1 and module["reason"] == "too-large" and "sent more than 1.0 MiB" in str(module["message"])
    nothing_left(proj, scratch)


def test_too_many_paths_in_the_commit_are_refused(tmp_path: Path, repo: GitRepo) -> None:
    repo.put("summarizer", clean_v22("summarizer"))
    repo.put("data", {f"row{i}.txt": f"{i}\n" for i in range(60)})
    repo.commit()
    place = place_for("project", cwd=tmp_path, home=tmp_path / "home")
    with Installer(place, limits=Limits(repo_entries=50)) as installer:
        outcome = installer.add(repo.url)
    assert (outcome.status, outcome.reason) == ("refused", "too-large")
    assert "holds more than 50 files, the most cogn add reads to find a module" in outcome.message
    assert list(place.root.iterdir()) == [] and not place.lock_path.exists()


def test_an_update_past_the_limit_leaves_the_installed_module_as_it_was(tmp_path: Path, repo: GitRepo) -> None:
    repo.put("summarizer", clean_v22("summarizer"))
    repo.commit()
    proj, home = project(tmp_path)
    assert add(proj, home, f"{repo.url}@main")[0] == 0
    installed = proj / ".cognitive" / "modules" / "summarizer"
    before, lock = tree(installed), (proj / "cognitive.lock").read_bytes()
    repo.put("summarizer", {"prompt.md": "changed\n"})
    (repo.path / "video.bin").write_bytes(os.urandom(BIG))
    repo.commit()
    proc = cogn(proj, home, "update", "--yes", "--max-download", "1", "--json", process=True)
    [module] = json.loads(proc.stdout)["modules"]
    assert proc.returncode == 1 and module["reason"] == "too-large", proc.stdout + proc.stderr
    assert tree(installed) == before and (proj / "cognitive.lock").read_bytes() == lock


def test_the_limit_is_a_whole_number_of_mebibytes(tmp_path: Path) -> None:
    proj, home = project(tmp_path)
    proc = cogn(proj, home, "add", "owner/repo", "--max-download", "0")
    assert proc.returncode == 2 and "give a whole number of mebibytes, 1 or more" in proc.stderr
