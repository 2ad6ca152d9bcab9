"""`cogtui doctor` (CLI-5): config problems, the theme for this terminal and why, keymap problems, search path
shadowing; exit status 1 when something needs fixing, 0 when not (shadowing alone is reported, not a problem)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

MODULES = Path(__file__).resolve().parents[1] / "modules"


def doctor(tmp_path: Path, config: str | None, *args: str, term: dict[str, str] | None = None) -> tuple[int, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("COGNITIVE_MODULES_PATH", "TERM", "COLORTERM", "TEXTUAL_COLOR_SYSTEM", "FORCE_COLOR", "NO_COLOR")
    }
    path = tmp_path / "config.yaml"
    if config is not None:
        path.write_text(config, encoding="utf-8")
    (tmp_path / "home").mkdir(exist_ok=True)
    env.update(
        HOME=str(tmp_path / "home"),
        COGTUI_CONFIG_FILE=str(path),
        XDG_CONFIG_HOME=str(tmp_path / "xdg"),
        COGTUI_DATA_DIR=str(tmp_path / "data"),
        PYTHONIOENCODING="utf-8",
        **(term or {}),
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from cogtui.cli import main; sys.exit(main(prog='cogtui'))",
            *args,
            "doctor",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, proc.stdout


def test_a_clean_setup_exits_0_and_says_which_theme_and_why(tmp_path: Path) -> None:
    code, out = doctor(tmp_path, "theme: cogtui-light\n", term={"TERM": "xterm-256color", "COLORTERM": "truecolor"})
    assert code == 0, out
    assert "terminal colour depth: truecolor" in out
    assert "cogtui would start with cogtui-light (config.yaml's theme)" in out
    assert out.rstrip().endswith("no problems")


def test_problems_are_listed_where_they_are_and_exit_1(tmp_path: Path) -> None:
    config = "theme: no-such-theme\nwatch: maybe\nkeymap:\n  browser.run: i\n  browser.flter: f\n"
    code, out = doctor(tmp_path, config, term={"TERM": "xterm"})
    assert code == 1
    where = tmp_path / "config.yaml"
    assert f"✗ {where}:2:8: watch must be true or false" in out
    assert "terminal colour depth: 16 (TERM=xterm)" in out and "start with cogtui-ansi" in out
    assert "✗ config.yaml's theme 'no-such-theme' is not available" in out
    assert f"✗ {where}:4:3: keymap.browser.run: 'i' is also the key of browser.insights" in out
    assert f"✗ {where}:5:3: keymap.browser.flter: no key binding has this id; did you mean 'browser.filter'?" in out
    assert out.rstrip().endswith("4 problems")


def test_shadowing_on_the_search_path_is_reported_but_not_a_problem(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    for root in (first, second):
        shutil.copytree(MODULES / "code-reviewer", root / "code-reviewer")
    code, out = doctor(tmp_path, None, "--path", str(first), "--path", str(second), term={"COLORTERM": "truecolor"})
    assert code == 0, out
    assert f"path: {first}" in out and f"path: {second}" in out
    assert f"⚠ code-reviewer: {second / 'code-reviewer'} is shadowed by {first / 'code-reviewer'}" in out


def test_provider_settings_a_run_would_not_use_are_problems(tmp_path: Path) -> None:
    """`provider: gpt` made every `cogn run` fail with a usage error while doctor said "no problems"."""
    config = "provider: gpt\nproviders:\n  openai: {model: 5, vision: 'yes'}\n  claude: {}\n  replay: {interval: 0.1}\n"
    code, out = doctor(tmp_path, config, term={"COLORTERM": "truecolor"})
    assert code == 1
    assert "✗ provider 'gpt' is not a provider; choose one of anthropic, openai, replay" in out
    assert "✗ providers.openai.model must be text, not 5" in out
    assert "✗ providers.openai.vision must be true or false, not 'yes'" in out
    assert "✗ providers.claude: not a provider; choose one of anthropic, openai, replay" in out
    assert "providers.replay" not in out  # a setting replay reads, of the right type
    assert out.rstrip().endswith("4 problems")


def test_a_missing_path_root_is_a_problem(tmp_path: Path) -> None:
    code, out = doctor(tmp_path, None, "--path", str(tmp_path / "typo"), term={"COLORTERM": "truecolor"})
    assert code == 1
    assert f"✗ search path entry does not exist: {tmp_path / 'typo'}" in out


def test_a_broken_user_theme_is_a_located_problem_with_its_whole_reason(tmp_path: Path) -> None:
    """A theme with a repeated key loaded with the last value silently; a syntax error showed half its reason (TUI-18)."""
    themes = tmp_path / "xdg" / "cogtui" / "themes"
    themes.mkdir(parents=True)
    (themes / "twice.yaml").write_text("name: twice\nprimary: '#336699'\nprimary: '#ff0000'\n", encoding="utf-8")
    (themes / "broken.yaml").write_text("name: broken\nprimary: [not, closed\n", encoding="utf-8")
    code, out = doctor(tmp_path, None, term={"COLORTERM": "truecolor"})
    assert code == 1
    twice, broken = themes / "twice.yaml", themes / "broken.yaml"
    assert f"✗ theme skipped: {twice}:3:1: key primary appears twice in this mapping (first at line 2) [P008]" in out
    assert f"✗ theme skipped: {broken}:2:10: YAML syntax error: the [ that starts here is never closed [P001]" in out
    assert out.rstrip().endswith("2 problems")
