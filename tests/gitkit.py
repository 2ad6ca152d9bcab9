"""Local git repositories for the `cogn add` tests, made with the real `git` binary in a temporary folder.

`GitRepo(path)` makes a repository with `main` as its branch; `put` writes files (a module's, from
modkit's dumps), `commit` commits everything, `tag` tags. The environment keeps the developer's git
configuration out (HOME is the test's, system config ignored) and gives commits a fixed author.
`project(tmp_path)` is a project folder and a HOME of its own; `cogn(...)` runs the CLI there.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

from modkit import FileContent, dump, run_cogn

if shutil.which("git") is None:  # fail, naming the tool, as every test that needs a missing tool does
    raise RuntimeError("the cogn add tests need the git binary on PATH")


def git_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        HOME=str(home),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="Test",
        GIT_AUTHOR_EMAIL="test@example.invalid",
        GIT_COMMITTER_NAME="Test",
        GIT_COMMITTER_EMAIL="test@example.invalid",
    )
    return env


class GitRepo:
    def __init__(self, path: Path, home: Path) -> None:
        self.path = path
        self.home = home
        home.mkdir(parents=True, exist_ok=True)
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "--quiet", "--initial-branch=main")

    @property
    def url(self) -> str:
        return self.path.as_uri()

    def git(self, *args: str) -> str:
        done = subprocess.run(
            ["git", *args], cwd=self.path, env=git_env(self.home), capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    def put(self, folder: str, files: dict[str, FileContent]) -> None:
        """Files under `folder` of the work tree ("" for its root); None deletes one."""
        for rel, value in files.items():
            target = self.path / folder / rel
            if value is None:
                target.unlink()
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(dump(rel, value))

    def commit(self, message: str = "change", add: bool = True) -> str:
        """Everything in the work tree committed (`add`), or only what the index holds."""
        if add:
            self.git("add", "--all")
        self.git("commit", "--quiet", "--allow-empty", "-m", message)
        return self.head()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD")

    def files_at(self, ref: str, folder: str) -> dict[str, bytes]:
        """The files of `folder` at `ref`, from a checkout made for the test beside the repository."""
        copy = self.path.parent / f"checkout-{ref}"
        if not copy.exists():
            shutil.copytree(self.path, copy)
            done = subprocess.run(["git", "checkout", "--quiet", ref], cwd=copy, env=git_env(self.home), check=False)
            assert done.returncode == 0
        return tree(copy / folder)

    def tag(self, name: str, annotated: bool = False) -> None:
        self.git("tag", *(["-a", "-m", name] if annotated else []), name)

    def gitlink(self, path: str, commit: str = "1" * 40) -> None:
        """A submodule entry at `path` (in the index only, with a .gitmodules pointing nowhere): the work tree's
        files are added first, and the commit that follows must not add again (`commit(add=False)`), which would
        take the entry out, its folder being absent."""
        (self.path / ".gitmodules").write_text(
            f'[submodule "{path}"]\n\tpath = {path}\n\turl = /nonexistent/submodule.git\n', encoding="utf-8"
        )
        self.git("add", "--all")
        self.git("update-index", "--add", "--cacheinfo", f"160000,{commit},{path}")


def project(tmp_path: Path) -> tuple[Path, Path]:
    """A project folder and a HOME of its own."""
    proj, home = tmp_path / "project", tmp_path / "home"
    proj.mkdir()
    home.mkdir(exist_ok=True)
    return proj, home


def cogn(proj: Path, home: Path, *args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return run_cogn(list(args), cwd=proj, home=home, **kwargs)


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` by its relative path."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
