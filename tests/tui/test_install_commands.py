"""README's install commands work as written: each line of its Install section runs, through a shell, against a
fresh `git clone` of this checkout (its folder for `.`, its `file://` URL as `$REPO`), into places of its own
(HOME, PIPX_HOME, UV_TOOL_DIR, a fresh venv); the `cogn` it installed then shows the clone's version,
validates a bundled module and runs README's quick start.

pipx and uv come with the dev extra (`make test` installs them); a tool that is missing fails the test. The
`pip` a line runs is this checkout's, installing into the fresh venv (`pip --python`, as the wheel test does),
so every line meets a current pip. Like the wheel test, the installs reach PyPI for the dependencies; they
share the user's pip and uv caches, so a repeat downloads little.
"""

from __future__ import annotations

import functools
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import platformdirs
import pytest
from test_wheel_install import INSTALL_TIMEOUT, REPO, clean_env

pytestmark = [pytest.mark.wheel]

TOOLS = ("pipx install", "uv tool install", "pip install")  # what an install line may start with
HERE_BIN = Path(sys.executable).parent  # this checkout's venv: pipx, uv and pip are the dev extra's


def section(title: str) -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def shell_lines(title: str) -> list[str]:
    """The commands of a README section's `sh` blocks: one a line, comments dropped."""
    lines: list[str] = []
    for block in re.findall(r"```sh\n(.*?)```", section(title), re.S):
        for line in block.splitlines():
            command = line.split(" #", 1)[0].strip()
            if command and not command.startswith("#"):
                lines.append(command)
    return lines


INSTALLS = shell_lines("Install")


@dataclass(frozen=True)
class Line:
    """One install line: the tool, what it installs, and the extras it names."""

    tool: str
    target: str

    @classmethod
    def of(cls, line: str) -> Line:
        tool = next((t for t in TOOLS if line.startswith(t + " ")), None)
        assert tool is not None, f"README's install line {line!r} does not start with one of {TOOLS}"
        return cls(tool, shlex.split(line)[-1])

    @property
    def from_clone(self) -> bool:
        return self.target == "." or self.target.startswith(".[")

    @property
    def from_git_url(self) -> bool:
        return self.target.endswith("git+$REPO")

    @property
    def extras(self) -> list[str]:
        found = re.search(r"\[([\w,-]+)\]", self.target)
        return found.group(1).split(",") if found else []


def test_the_readme_installs_with_each_tool_from_a_clone_and_from_a_git_url() -> None:
    lines = [Line.of(line) for line in INSTALLS]
    for line in lines:
        assert line.from_clone or line.from_git_url, f"{line.target!r}: neither the clone (.) nor git+$REPO"
    for tool in TOOLS:
        assert any(x.tool == tool and x.from_clone for x in lines), f"README has no `{tool} .` from a clone"
        assert any(x.tool == tool and x.from_git_url for x in lines), f"README has no `{tool} git+$REPO`"
    extras = {e for x in lines for e in x.extras}
    declared = set(
        tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    )
    assert extras <= declared - {"dev"}, f"README names extras pyproject.toml does not declare: {extras - declared}"


def needed(name: str, where: Path | None = HERE_BIN) -> str:
    found = shutil.which(name, path=str(where) if where else None)
    if found is None:
        pytest.fail(f"{name} is not installed{f' in {where}' if where else ''}: the dev extra brings it (`make dev`)")
    return found


@functools.cache
def caches() -> dict[str, str]:
    """The user's own pip and uv caches (the tests' HOME is a fresh one): what makes a repeat cheap."""
    uv_cache = subprocess.run([needed("uv"), "cache", "dir"], capture_output=True, text=True, check=True).stdout
    pip_cache = os.environ.get("PIP_CACHE_DIR") or platformdirs.user_cache_dir("pip")
    return {"UV_CACHE_DIR": uv_cache.strip(), "PIP_CACHE_DIR": pip_cache}


def distributions(python: Path, env: dict[str, str], cwd: Path) -> set[str]:
    code = "import importlib.metadata as m; print('\\n'.join(d.metadata['Name'] for d in m.distributions()))"
    listed = subprocess.run([str(python), "-c", code], cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return {re.sub(r"[-_.]+", "-", name).lower() for name in listed.stdout.split()}


def requirement_names(requirements: list[str]) -> set[str]:
    """The distribution names of requirements (`psycopg[binary]>=3.2` -> `psycopg`), normalised as pip does."""
    return {re.sub(r"[-_.]+", "-", re.split(r"[\s\[<>=!~;@]", r, maxsplit=1)[0]).lower() for r in requirements}


@pytest.mark.parametrize("command", INSTALLS)
def test_a_readme_install_command_installs_a_working_cogn(command: str, tmp_path: Path) -> None:
    line = Line.of(command)
    git = needed("git", None)
    clone = tmp_path / "clone"
    subprocess.run([git, "clone", "--quiet", str(REPO), str(clone)], check=True, timeout=120)
    project = tomllib.loads((clone / "pyproject.toml").read_text(encoding="utf-8"))["project"]

    env = clean_env(tmp_path) | caches()
    env |= {"REPO": clone.as_uri(), "PIP_NO_COMPILE": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    tools = tmp_path / "tools"  # on PATH first: the tool the line names, and nothing else of this checkout
    tools.mkdir()
    installed = tmp_path / "installed"
    if line.tool == "pipx install":
        (tools / "pipx").symlink_to(needed("pipx"))
        env |= {"PIPX_HOME": str(tmp_path / "pipx"), "PIPX_BIN_DIR": str(installed / "bin")}
        env |= {"PIPX_MAN_DIR": str(tmp_path / "man"), "PIPX_DEFAULT_PYTHON": sys.executable}
        python = tmp_path / "pipx" / "venvs" / "cogtui" / "bin" / "python"
    elif line.tool == "uv tool install":
        (tools / "uv").symlink_to(needed("uv"))
        env |= {"UV_TOOL_DIR": str(tmp_path / "uv-tools"), "UV_TOOL_BIN_DIR": str(installed / "bin")}
        env |= {"UV_PYTHON": sys.executable, "UV_PYTHON_DOWNLOADS": "never", "UV_NO_PROGRESS": "1"}
        python = tmp_path / "uv-tools" / "cogtui" / "bin" / "python"
    else:  # pip, into the virtual environment the user has active
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(installed)], check=True, timeout=120)
        shim = tools / "pip"
        shim.write_text(f'#!/bin/sh\nexec "{needed("pip")}" --python "{installed / "bin" / "python"}" "$@"\n')
        shim.chmod(0o755)
        env["VIRTUAL_ENV"] = str(installed)
        python = installed / "bin" / "python"
    outer_path = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and Path(p) != HERE_BIN]
    env["PATH"] = os.pathsep.join([str(tools), str(installed / "bin"), *outer_path])

    elsewhere = tmp_path / "elsewhere"  # a git URL needs no clone: the line runs outside it
    elsewhere.mkdir()
    ran = subprocess.run(
        ["/bin/sh", "-c", command],
        cwd=clone if line.from_clone else elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT,
    )
    assert ran.returncode == 0, f"`{command}` failed:\n{ran.stdout}\n{ran.stderr}"

    def cogn(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(installed / "bin" / "cogn"), *args], cwd=clone, env=env, capture_output=True, text=True, timeout=120
        )

    shown = cogn("--version")
    assert (shown.returncode, shown.stdout.strip()) == (0, f"cogn {project['version']}"), shown.stdout + shown.stderr
    where = subprocess.run(
        [str(python), "-c", "import cogtui; print(cogtui.__file__)"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
    )
    assert where.returncode == 0 and Path(where.stdout.strip()).is_relative_to(python.parents[1]), (
        where.stdout + where.stderr
    )
    validated = cogn("validate", str(clone / "modules" / "code-reviewer"))
    assert validated.returncode == 0 and "✓ valid" in validated.stdout, validated.stdout + validated.stderr

    # The extras the line names are installed, and the others are not.
    have = distributions(python, env, elsewhere)  # outside the clone: `python -c` imports from its folder
    for extra, requirements in project["optional-dependencies"].items():
        if extra == "dev":
            continue
        names = requirement_names(requirements) - requirement_names(project["dependencies"])
        if extra in line.extras:
            assert names <= have, f"`{command}` names {extra} but {names - have} are not installed"
        elif not any(names & requirement_names(project["optional-dependencies"][e]) for e in line.extras):
            assert not names & have, f"`{command}` does not name {extra}, yet {names & have} are installed"

    # README's quick start, in the clone, with the cogn just installed.
    quick = [q for q in shell_lines("Quick start") if q.startswith("cogn ")]
    assert quick, "README's quick start has no cogn command"
    for step in quick:
        done = subprocess.run(["/bin/sh", "-c", step], cwd=clone, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"quick start `{step}` failed after `{command}`:\n{done.stdout}\n{done.stderr}"
