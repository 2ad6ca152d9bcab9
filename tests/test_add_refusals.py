"""What `cogn add` refuses, and that a refusal leaves nothing behind: symlinks, submodules, shadowing, no module
or several, refs and commits that do not exist, what is not git, modules that do not validate, too many files;
credentials never shown; git hooks never run (SHARE-2, SHARE-3, SHARE-5, SHARE-7)."""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path

import pytest
from gitkit import GitRepo, cogn, project
from modkit import clean_v22, make_module


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    return GitRepo(tmp_path / "repo", tmp_path / "home")


def nothing_installed(proj: Path) -> bool:
    root = proj / ".cognitive" / "modules"
    return not (proj / "cognitive.lock").exists() and (not root.exists() or list(root.iterdir()) == [])


def test_a_symlink_out_of_the_module_is_refused(tmp_path: Path, repo: GitRepo) -> None:
    repo.put("summarizer", clean_v22("summarizer"))
    repo.put("", {"secret.txt": "do not install me\n"})
    os.symlink("../secret.txt", repo.path / "summarizer" / "context.md")
    repo.commit()
    proj, home = project(tmp_path)
    proc = cogn(proj, home, "add", repo.url)
    assert proc.returncode == 1
    assert "summarizer/context.md is a symlink" in proc.stdout and "plain files" in proc.stdout
    assert nothing_installed(proj)


def test_a_symlink_inside_the_module_is_refused_too(tmp_path: Path, repo: GitRepo) -> None:
    """SHARE-5: any symlink, wherever it points, so what is installed and hashed is only plain files."""
    repo.put("summarizer", clean_v22("summarizer"))
    os.symlink("prompt.md", repo.path / "summarizer" / "alias.md")
    repo.commit()
    proj, home = project(tmp_path)
    proc = cogn(proj, home, "add", repo.url, "--json")
    assert proc.returncode == 1
    [module] = json.loads(proc.stdout)["modules"]
    assert (module["status"], module["reason"]) == ("refused", "symlink")
    assert nothing_installed(proj)


def test_a_module_folder_that_is_a_symlink_is_refused(tmp_path: Path, repo: GitRepo) -> None:
    repo.put("real", clean_v22("real"))
    os.symlink("real", repo.path / "linked")
    repo.commit()
    proj, home = project(tmp_path)
    proc = cogn(proj, home, "add", repo.url, "--module", "linked")
    assert proc.returncode == 1 and "--module linked is a symlink" in proc.stdout
    assert nothing_installed(proj)


def test_a_submodule_in_the_module_is_refused_and_one_elsewhere_is_never_fetched(tmp_path: Path, repo: GitRepo) -> None:
    repo.put("summarizer", clean_v22("summarizer"))
    repo.gitlink("summarizer/vendor")
    repo.commit(add=False)
    proj, home = project(tmp_path)
    proc = cogn(proj, home, "add", repo.url)
    assert proc.returncode == 1 and "summarizer/vendor is a git submodule" in proc.stdout
    assert nothing_installed(proj)

    repo.git("rm", "--quiet", "--cached", "summarizer/vendor")
    repo.gitlink("third_party/lib")  # its URL leads nowhere: fetching it would fail the install
    repo.commit("the submodule outside the module", add=False)
    proc = cogn(proj, home, "add", repo.url)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize(
    ("level", "said"), [("path", "would be shadowed by"), ("user", "would shadow")], ids=["before", "after"]
)
def test_a_name_another_module_has_on_the_search_path_needs_force(
    tmp_path: Path, repo: GitRepo, level: str, said: str
) -> None:
    repo.put("", clean_v22("summarizer"))
    repo.commit()
    proj, home = project(tmp_path)
    other = make_module(
        tmp_path / "mods" if level == "path" else home / ".cognitive" / "modules", clean_v22("summarizer"), "summarizer"
    )
    args = ["--path", str(other.parent)] if level == "path" else []
    proc = cogn(proj, home, *args, "add", repo.url)
    assert proc.returncode == 1 and f"summarizer {said} {other} ({level} level)" in proc.stdout
    assert "--force" in proc.stdout and nothing_installed(proj)
    forced = cogn(proj, home, *args, "add", repo.url, "--force")
    assert forced.returncode == 0 and (proj / ".cognitive" / "modules" / "summarizer" / "module.yaml").is_file()
    assert other.is_dir()  # the other module is left as it was


def test_a_folder_add_did_not_install_is_not_replaced_without_force(tmp_path: Path, repo: GitRepo) -> None:
    repo.put("", clean_v22("summarizer"))
    repo.commit()
    proj, home = project(tmp_path)
    mine = make_module(proj / ".cognitive" / "modules", clean_v22("summarizer"), "summarizer")
    (mine / "mine.txt").write_text("mine\n", encoding="utf-8")
    proc = cogn(proj, home, "add", repo.url)
    assert proc.returncode == 1 and "exists and was not installed by cogn add" in proc.stdout
    assert (mine / "mine.txt").exists() and not (proj / "cognitive.lock").exists()


def test_the_same_name_from_another_source_needs_force(tmp_path: Path, repo: GitRepo) -> None:
    repo.put("", clean_v22("summarizer"))
    repo.commit()
    twin = GitRepo(tmp_path / "twin", tmp_path / "home")
    twin.put("", clean_v22("summarizer"))
    twin.commit()
    proj, home = project(tmp_path)
    assert cogn(proj, home, "add", repo.url).returncode == 0
    proc = cogn(proj, home, "add", twin.url)
    assert proc.returncode == 1 and f"summarizer is already installed from {repo.url}" in proc.stdout


def test_no_module_and_several_modules(tmp_path: Path, repo: GitRepo) -> None:
    repo.put("", {"README.md": "nothing here\n"})
    repo.commit()
    proj, home = project(tmp_path)
    proc = cogn(proj, home, "add", repo.url)
    assert proc.returncode == 1 and "holds no module" in proc.stdout

    repo.put("modules/a", clean_v22("a"))
    repo.put("modules/b", clean_v22("b"))
    repo.put(".hidden/c", clean_v22("c"))  # hidden folders are never modules (as discovery says)
    repo.commit("two modules")
    proc = cogn(proj, home, "add", repo.url)
    assert proc.returncode == 1 and "holds 2 modules: modules/a, modules/b" in proc.stdout
    assert "--module modules/a" in proc.stdout and nothing_installed(proj)
    assert cogn(proj, home, "add", repo.url, "--module", "b").returncode == 0  # by name
    assert cogn(proj, home, "add", repo.url, "-m", "modules/a").returncode == 0  # by path
    missing = cogn(proj, home, "add", repo.url, "--module", "modules/z")
    assert missing.returncode == 1 and "has no folder modules/z" in missing.stdout
    assert "Its modules: modules/a, modules/b" in missing.stdout


def test_a_ref_or_commit_that_does_not_exist(tmp_path: Path, repo: GitRepo) -> None:
    repo.put("", clean_v22("summarizer"))
    repo.commit()
    repo.tag("v1.0.0")
    proj, home = project(tmp_path)
    proc = cogn(proj, home, "add", f"{repo.url}@v9.9.9")
    assert proc.returncode == 1 and "has no tag or branch v9.9.9" in proc.stdout
    assert "tags: v1.0.0; branches: main" in proc.stdout
    proc = cogn(proj, home, "add", f"{repo.url}#deadbeef")
    assert proc.returncode == 1 and "has no commit deadbeef" in proc.stdout
    proc = cogn(proj, home, "add", f"{repo.url}#nothex")
    assert proc.returncode == 2 and "#nothex is not a commit" in proc.stdout
    assert nothing_installed(proj)


def test_what_is_not_git(tmp_path: Path, repo: GitRepo) -> None:
    repo.put("modules/summarizer", clean_v22("summarizer"))
    repo.commit()
    proj, home = project(tmp_path)
    plain = make_module(tmp_path, clean_v22("plain"), "plain")
    proc = cogn(proj, home, "add", str(plain))
    assert proc.returncode == 1 and "cannot read it as a git repository" in proc.stdout
    assert "It is a plain folder: make it a git repository" in proc.stdout
    inside = cogn(proj, home, "add", str(repo.path / "modules" / "summarizer"))
    assert inside.returncode == 1
    assert f"cogn add {repo.path} --module modules/summarizer" in inside.stdout
    for url, said in [
        ("http://example.invalid/repo.git", "plain http is refused"),
        ("git://example.invalid/repo.git", "the git:// protocol is refused"),
        (f"ext::sh -c touch% {tmp_path}/pwned", "remote helper"),
        ("ftp://example.invalid/repo.git", "is not a git URL cogn add uses (ftp://)"),
        ("no such thing here", "neither a git URL nor a folder"),
    ]:
        proc = cogn(proj, home, "add", url)
        assert proc.returncode == 2, url
        assert said in proc.stdout, (url, proc.stdout)
    assert nothing_installed(proj) and not (tmp_path / "pwned").exists()


def test_credentials_in_a_url_are_never_shown(tmp_path: Path) -> None:
    """A refused connection on the loopback (port 9, nothing listens): every message, text and JSON, shows
    the URL with *** for its credentials."""
    proj, home = project(tmp_path)
    no_proxy = {k: "" for k in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")}
    for args in (["add"], ["add", "--json"]):
        proc = cogn(proj, home, *args, "https://user:s3cretTOKEN@127.0.0.1:9/team/repo.git@v1", extra_env=no_proxy)
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert "s3cretTOKEN" not in proc.stdout + proc.stderr
        assert "https://***@127.0.0.1:9/team/repo.git" in proc.stdout


def test_a_module_that_does_not_validate_is_refused_with_its_diagnostics(tmp_path: Path, repo: GitRepo) -> None:
    files = clean_v22("summarizer")
    files["module.yaml"] = "name: summarizer\nversion: 1.0\n  tier: [\n"
    repo.put("pkg/summarizer", files)
    repo.commit()
    proj, home = project(tmp_path)
    proc = cogn(proj, home, "add", repo.url, "--json")
    assert proc.returncode == 1
    [module] = json.loads(proc.stdout)["modules"]
    assert (module["status"], module["reason"]) == ("refused", "invalid")
    located = [d for d in module["diagnostics"] if d["severity"] == "error"]
    assert located and all(d["file"].startswith("pkg/summarizer/") for d in located)
    assert any(d["file"] == "pkg/summarizer/module.yaml" and d["line"] == 3 for d in located)
    assert nothing_installed(proj)


def test_too_many_files_are_refused(tmp_path: Path, repo: GitRepo) -> None:
    files = clean_v22("summarizer")
    files.update({f"data/{n:04}.txt": f"{n}\n" for n in range(1001)})
    repo.put("", files)
    repo.commit()
    proj, home = project(tmp_path)
    proc = cogn(proj, home, "add", repo.url)
    assert proc.returncode == 1 and "more than 1000 files" in proc.stdout
    assert nothing_installed(proj)


def test_no_git_hook_runs(tmp_path: Path, repo: GitRepo) -> None:
    """A hooks folder in the user's git configuration, with a hook git runs when a fetch updates refs (an
    abbreviated commit makes cogn add fetch every branch and tag): it must not run."""
    repo.put("", clean_v22("summarizer"))
    commit = repo.commit()
    proj, home = project(tmp_path)
    hooks, ran = tmp_path / "hooks", tmp_path / "hook-ran"
    hooks.mkdir()
    for hook in ("reference-transaction", "post-checkout", "post-merge"):
        (hooks / hook).write_text(f"#!/bin/sh\necho {hook} >> {ran}\n", encoding="utf-8")
        (hooks / hook).chmod(0o755)
    (home / ".gitconfig").write_text(f"[core]\n\thooksPath = {hooks}\n", encoding="utf-8")
    proc = cogn(proj, home, "add", f"{repo.url}#{commit[:10]}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not ran.exists()
    repo.git("update-ref", "refs/heads/check", commit)  # the same hook does run for git itself
    assert ran.exists()


def test_another_command_at_work_in_the_folder(tmp_path: Path, repo: GitRepo) -> None:
    repo.put("", clean_v22("summarizer"))
    repo.commit()
    proj, home = project(tmp_path)
    root = proj / ".cognitive" / "modules"
    root.mkdir(parents=True)
    fd = os.open(root, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        proc = cogn(proj, home, "add", repo.url)
    finally:
        os.close(fd)
    assert proc.returncode == 2 and "another cogn add, update or remove is working in" in proc.stderr
    assert cogn(proj, home, "add", repo.url).returncode == 0
