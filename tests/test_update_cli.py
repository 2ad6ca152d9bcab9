"""`cogn update`: the newest release tag (or the branch's head), the diff shown before anything is written,
--yes, the question on a terminal, exit 3 when changes are shown and not written (SHARE-4, SHARE-8)."""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from gitkit import GitRepo, cogn, project, tree
from modkit import PROMPT_V22, clean_v22

MODULE = "modules/summarizer"


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    repo = GitRepo(tmp_path / "repo", tmp_path / "home")
    repo.put(MODULE, clean_v22("summarizer"))
    repo.commit("first")
    repo.tag("v1.0.0")
    return repo


def release(repo: GitRepo, tag: str, line: str) -> None:
    repo.put(MODULE, {"prompt.md": PROMPT_V22 + f"\n{line}\n", "notes.txt": f"{tag}\n"})
    repo.commit(tag)
    repo.tag(tag)


def installed(proj: Path) -> Path:
    return proj / ".cognitive" / "modules" / "summarizer"


def entry(proj: Path) -> dict[str, str]:
    return json.loads((proj / "cognitive.lock").read_text(encoding="utf-8"))["modules"]["summarizer"]


@pytest.fixture
def at_v1(tmp_path: Path, repo: GitRepo) -> tuple[Path, Path]:
    proj, home = project(tmp_path)
    assert cogn(proj, home, "add", repo.url).returncode == 0
    assert entry(proj)["ref"] == "v1.0.0"
    return proj, home


def test_off_a_terminal_without_yes_it_shows_the_diff_and_writes_nothing(
    repo: GitRepo, at_v1: tuple[Path, Path]
) -> None:
    proj, home = at_v1
    release(repo, "v1.1.0", "Be brief.")
    before, lock_before = tree(installed(proj)), (proj / "cognitive.lock").read_bytes()
    proc = cogn(proj, home, "update")
    assert proc.returncode == 3, proc.stdout + proc.stderr
    out = proc.stdout
    assert "summarizer: v1.0.0 at " in out and "-> v1.1.0 at " in out
    assert "modified prompt.md" in out and "    +Be brief." in out and "added notes.txt" in out
    assert "nothing was written: run `cogn update --yes`" in out
    assert tree(installed(proj)) == before and (proj / "cognitive.lock").read_bytes() == lock_before


def test_yes_writes_the_update_and_then_it_is_current(repo: GitRepo, at_v1: tuple[Path, Path]) -> None:
    proj, home = at_v1
    release(repo, "v1.1.0", "Be brief.")
    release(repo, "v1.2.0", "Be very brief.")
    proc = cogn(proj, home, "update", "--yes")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "updated 1 of 1 module" in proc.stdout
    assert tree(installed(proj)) == repo.files_at("v1.2.0", MODULE)
    assert (entry(proj)["ref"], entry(proj)["commit"]) == ("v1.2.0", repo.git("rev-parse", "v1.2.0"))
    again = cogn(proj, home, "update")
    assert again.returncode == 0 and "is up to date (v1.2.0 at" in again.stdout


def test_never_a_pre_release_an_older_tag_or_a_tag_that_is_not_a_version(
    repo: GitRepo, at_v1: tuple[Path, Path]
) -> None:
    proj, home = at_v1
    release(repo, "v2.0.0-beta.1", "beta")
    release(repo, "0.9.0", "older")
    release(repo, "nightly", "not a version")
    proc = cogn(proj, home, "update", "--yes")
    assert proc.returncode == 0 and "is up to date (v1.0.0 at" in proc.stdout
    assert entry(proj)["ref"] == "v1.0.0"


def test_a_branch_moves_to_its_head(tmp_path: Path, repo: GitRepo) -> None:
    proj, home = project(tmp_path)
    repo.git("checkout", "--quiet", "-b", "release/2")  # a branch name with a '/'
    assert cogn(proj, home, "add", f"{repo.url}@release/2").returncode == 0
    repo.put(MODULE, {"prompt.md": PROMPT_V22 + "\nOn the branch.\n"})
    head = repo.commit("on the branch")
    proc = cogn(proj, home, "update", "summarizer", "-y")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (entry(proj)["ref"], entry(proj)["follows"], entry(proj)["commit"]) == ("release/2", "branch", head)
    assert (installed(proj) / "prompt.md").read_text(encoding="utf-8").endswith("On the branch.\n")


def test_json_lists_the_changes_and_exit_3(repo: GitRepo, at_v1: tuple[Path, Path]) -> None:
    proj, home = at_v1
    release(repo, "v1.1.0", "Be brief.")
    proc = cogn(proj, home, "update", "--json")
    assert proc.returncode == 3
    out = json.loads(proc.stdout)
    assert (out["format"], out["command"], out["summary"]) == (1, "update", {"modules": 1, "pending": 1})
    [module] = out["modules"]
    assert module["status"] == "pending" and module["ref"] == "v1.1.0" and module["previous"]["ref"] == "v1.0.0"
    changes = {c["path"]: c for c in module["changes"]}
    assert set(changes) == {"prompt.md", "notes.txt"}
    assert changes["notes.txt"]["change"] == "added" and "+Be brief." in changes["prompt.md"]["diff"]
    written = json.loads(cogn(proj, home, "update", "--json", "--yes").stdout)
    assert written["modules"][0]["status"] == "updated" and written["summary"]["updated"] == 1


def test_an_update_that_does_not_validate_is_refused_with_located_diagnostics(
    repo: GitRepo, at_v1: tuple[Path, Path]
) -> None:
    proj, home = at_v1
    before = tree(installed(proj))
    repo.put(MODULE, {"schema.json": '{"input": {"type": "object"},\n "data": {"type": "nonsense"}}\n'})
    repo.commit("broken")
    repo.tag("v1.1.0")
    proc = cogn(proj, home, "update", "--yes")
    assert proc.returncode == 1
    assert "✗ summarizer does not validate (3 errors), so nothing was written" in proc.stdout
    assert f"{MODULE}/schema.json:" in proc.stdout  # located at its path in the repository
    assert tree(installed(proj)) == before and entry(proj)["ref"] == "v1.0.0"


def test_local_changes_are_not_replaced_unless_forced(repo: GitRepo, at_v1: tuple[Path, Path]) -> None:
    proj, home = at_v1
    release(repo, "v1.1.0", "Be brief.")
    (installed(proj) / "prompt.md").write_text("mine\n", encoding="utf-8")
    proc = cogn(proj, home, "update", "--yes")
    assert proc.returncode == 1 and "has local changes" in proc.stdout
    assert (installed(proj) / "prompt.md").read_text(encoding="utf-8") == "mine\n"
    assert cogn(proj, home, "update", "--yes", "--force").returncode == 0
    assert entry(proj)["ref"] == "v1.1.0"


def test_an_unknown_name_is_a_usage_error(at_v1: tuple[Path, Path]) -> None:
    proj, home = at_v1
    proc = cogn(proj, home, "update", "nosuch")
    assert proc.returncode == 2 and "nosuch is not in" in proc.stdout and "Installed here: summarizer" in proc.stdout


def on_a_terminal(proj: Path, home: Path, answer: bytes) -> tuple[int, str]:
    """`cogn update` with stdin and stdout on a pseudo-terminal, answering its question with `answer`."""
    import pty  # POSIX only, as the rest of the suite

    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("COGNITIVE_MODULES_PATH", "FORCE_COLOR")}
    env.update(HOME=str(home), NO_COLOR="1", PYTHONIOENCODING="utf-8")
    child = subprocess.Popen(
        [sys.executable, "-m", "cogtui.cli", "update"], cwd=proj, env=env, stdin=slave, stdout=slave, stderr=slave
    )
    os.close(slave)
    seen = b""
    answered = False
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], deadline - time.monotonic())
        if not ready:
            break
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the child closed the terminal: it ended
            break
        if not chunk:
            break
        seen += chunk
        if not answered and b"[y/N]" in seen:
            os.write(master, answer)
            answered = True
    os.close(master)
    return child.wait(timeout=60), seen.decode("utf-8", "replace")


@pytest.mark.parametrize(("answer", "code", "ref"), [(b"y\n", 0, "v1.1.0"), (b"n\n", 3, "v1.0.0")])
def test_on_a_terminal_it_asks(repo: GitRepo, at_v1: tuple[Path, Path], answer: bytes, code: int, ref: str) -> None:
    proj, home = at_v1
    release(repo, "v1.1.0", "Be brief.")
    status, seen = on_a_terminal(proj, home, answer)
    assert "+Be brief." in seen and "Write 1 update? [y/N]" in seen
    assert status == code, seen
    assert entry(proj)["ref"] == ref


def test_a_lock_entry_whose_source_is_refused_is_said_by_update_and_by_a_reinstall(at_v1: tuple[Path, Path]) -> None:
    """The lock is user input: a source `cogn add` would refuse (plain http) is refused from it too, naming it."""
    proj, home = at_v1
    lock = json.loads((proj / "cognitive.lock").read_text(encoding="utf-8"))
    lock["modules"]["summarizer"]["source"] = "http://example.com/x.git"
    (proj / "cognitive.lock").write_text(json.dumps(lock), encoding="utf-8")
    shutil.rmtree(installed(proj))  # so that `cogn add` alone has to fetch it again
    for command in ("update", "add"):
        proc = cogn(proj, home, command, "--json")
        assert proc.returncode == 2, proc.stdout + proc.stderr
        (refused,) = json.loads(proc.stdout)["modules"]
        assert refused["reason"] == "source" and refused["hint"] == "Use the https:// URL."
        assert refused["message"].startswith("cognitive.lock: http://example.com/x.git: plain http is refused")
    assert not installed(proj).exists()
