"""The wheel works anywhere: built from the sources, installed in a fresh venv outside the checkout, used from there.

Catches what an editable install hides: package data left out of the wheel
(themes, stylesheets), code that reads files beside the checkout, and
development tools shipped in the package. Needs pip to reach PyPI for the
dependencies (the pip cache makes repeats cheap) and tmux, as the e2e test.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml
from test_e2e_tmux import Tmux, label, wait_for

from cogtui.core.run.providers.registry import secret_variables

pytestmark = [pytest.mark.wheel, pytest.mark.e2e]

REPO = Path(__file__).resolve().parents[2]
INSTALL_TIMEOUT = 900  # seconds: a cold pip cache downloads every dependency
UNSET: tuple[str, ...] = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "COLUMNS", "LINES", "COGNITIVE_MODULES_PATH")
UNSET += ("COGNITIVE_PROVIDER", "COGNITIVE_MODEL", *secret_variables())  # and every provider's key


def build_wheel(tmp_path: Path) -> Path:
    """A wheel built from a copy of the sources, so nothing from the checkout (build/, egg-info) leaks in or out."""
    src = tmp_path / "src"
    shutil.copytree(REPO / "cogtui", src / "cogtui", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, src / name)
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(dist), str(src)],
        check=True,
        timeout=INSTALL_TIMEOUT,
    )
    (wheel,) = dist.glob("cogtui-*.whl")
    return wheel


def clean_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in UNSET}
    env.update(
        HOME=str(tmp_path / "home"),
        XDG_CONFIG_HOME=str(tmp_path / "xdg-config"),
        COGTUI_CONFIG_FILE=str(tmp_path / "config.yaml"),
        COGTUI_DATA_DIR=str(tmp_path / "data"),
        COGTUI_CACHE_DIR=str(tmp_path / "cache"),
    )
    (tmp_path / "home").mkdir(exist_ok=True)
    return env


def rgb(hex_colour: str) -> str:
    value = hex_colour.lstrip("#")
    return ";".join(str(int(value[i : i + 2], 16)) for i in (0, 2, 4))


def test_the_wheel_installed_elsewhere_validates_tests_and_starts_with_its_theme(tmp_path: Path) -> None:
    tmux_binary = shutil.which("tmux")
    if tmux_binary is None:
        pytest.fail("tmux is not installed: this test needs it (`apt-get install tmux`; .ci/run installs it)")
    wheel = build_wheel(tmp_path)
    names = set(zipfile.ZipFile(wheel).namelist())
    judge = "cogtui/builtin/cogtui-judge/"
    shipped_files: tuple[str, ...] = (
        "cogtui/themes/cogtui-dark.yaml",
        "cogtui/themes/cogtui-light.yaml",
        "cogtui/tui/styles/app.tcss",
    )
    shipped_files += tuple(judge + f for f in ("module.yaml", "prompt.md", "schema.json", "tests/pass.input.json"))
    for shipped in shipped_files:
        assert shipped in names, f"{shipped} is missing from {wheel.name}"
    assert not any(n.startswith(("tools/", "tests/", "bench/")) or n.endswith("screenshots.py") for n in names)

    # A fresh venv without pip of its own (ensurepip is most of a venv's creation time): this checkout's pip
    # installs into it (`pip --python`), dependencies resolved from the index as for any user. No byte-compiling
    # of every installed file: the commands below compile what they import, as a user's first run does.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    bin_dir = venv / "bin"
    env = clean_env(tmp_path)
    pip = [sys.executable, "-m", "pip", "--python", str(bin_dir / "python"), "--disable-pip-version-check"]
    subprocess.run(
        [*pip, "install", "--quiet", "--no-compile", str(wheel)], check=True, timeout=INSTALL_TIMEOUT, env=env
    )
    work = tmp_path / "work"  # outside the checkout: nothing resolves against the repository
    shutil.copytree(REPO / "modules" / "code-reviewer", work / "modules" / "code-reviewer")
    shutil.copytree(REPO / "modules" / "product-ideas", work / "modules" / "product-ideas")  # its goldens: $judge

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(bin_dir / "cogn"), *args], cwd=work, env=env, capture_output=True, text=True, timeout=120
        )

    where = subprocess.run(
        [str(bin_dir / "python"), "-c", "import cogtui; print(cogtui.__file__)"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(where).is_relative_to(venv), f"cogtui was imported from {where}, not the fresh venv"

    validated = cli("validate", "modules/code-reviewer")
    assert validated.returncode == 0 and "✓ valid" in validated.stdout, validated.stdout + validated.stderr
    tested = cli("test", "--provider", "replay", "--json", "modules/code-reviewer")
    assert tested.returncode == 0, tested.stdout + tested.stderr
    report = json.loads(tested.stdout)
    assert (report["format"], report["command"]) == (1, "test")
    assert report["summary"]["passed"] == 3 and report["summary"]["failed"] == 0
    # The judge is package data: a $judge golden is scored by it from the installed package (replay judges offline).
    judged = cli("test", "--provider", "replay", "--judge-provider", "replay", "--json", "modules/product-ideas")
    cases = json.loads(judged.stdout)["modules"][0]["cases"]
    assert judged.returncode == 0 and [c["judge"]["score"] for c in cases] == [0.9, 0.9], judged.stdout[-2000:]

    # The default theme's own colours, read from the installed package: on screen only if it loaded.
    (theme_file,) = venv.glob("lib/python*/site-packages/cogtui/themes/cogtui-dark.yaml")
    theme = yaml.safe_load(theme_file.read_text(encoding="utf-8"))
    tmux = Tmux(tmux_binary, tmp_path)
    command = ["env", *(f"-u{name}" for name in UNSET)]
    command += [f"{k}={env[k]}" for k in ("HOME", "XDG_CONFIG_HOME", "COGTUI_CONFIG_FILE", "COGTUI_DATA_DIR")]
    command += [f"COGTUI_CACHE_DIR={env['COGTUI_CACHE_DIR']}", "TERM=xterm-256color", "COLORTERM=truecolor"]
    command += [str(bin_dir / "cogtui"), "--path", str(work / "modules")]
    try:
        tmux.start(command, cwd=work)
        wait_for(tmux, lambda s: bool(label("✓", "code-reviewer").search(s)), "code-reviewer, validated")
        # The theme loaded from the installed package: its own colours are on screen (a theme that was not found
        # leaves Textual's default colours, whatever notice says so).
        styled = tmux("capture-pane", "-e", "-p", "-t", tmux.session).stdout
        assert f"48;2;{rgb(theme['background'])}m" in styled, "the screen is not drawn on cogtui-dark's background"
        assert f"2;{rgb(theme['primary'])}m" in styled, "cogtui-dark's primary colour is nowhere on screen"
        tmux.keys("q")
        wait_for(tmux, lambda s: tmux.pane("#{pane_dead}") == "1" or "cogtui" not in s, "cogtui to exit")
    finally:
        tmux.kill()
