"""The repository's pre-commit hooks (.pre-commit-hooks.yaml, docs/ci.md), run by pre-commit itself (`pre-commit
try-repo`, from the dev extra) in a temporary git repository holding a broken and a fixed module: the hooks fail
on the broken one, naming it and its code, leave the fixed one alone, and pass once it is fixed too."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
INSTALL_TIMEOUT = 900  # seconds: pre-commit installs cogtui and its dependencies into the hooks' environment once


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        timeout=120,
    )


def try_repo(repo: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COGNITIVE_MODULES_PATH", "VIRTUAL_ENV", "PYTHONPATH")}
    env.update(PRE_COMMIT_HOME=str(home / "pre-commit"), COGTUI_DATA_DIR=str(home / "data"), NO_COLOR="1")
    env.update(COGTUI_CONFIG_FILE=str(home / "config.yaml"), COGTUI_REPLAY_INTERVAL="0")
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "--all-files", "--verbose"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT,
        check=False,
    )


def test_the_hooks_are_the_documented_ones() -> None:
    hooks = {h["id"]: h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}
    assert set(hooks) == {"cogn-validate", "cogn-test"}
    assert hooks["cogn-validate"]["entry"].endswith("--files")  # pre-commit appends the changed files
    assert "--provider replay" in hooks["cogn-test"]["entry"]  # offline, no key
    assert all(h["require_serial"] for h in hooks.values())  # one process: each module checked once
    docs = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    assert "id: cogn-validate" in docs and "id: cogn-test" in docs and "args: [--strict]" in docs


def test_pre_commit_try_repo_fails_on_the_broken_module_and_passes_once_it_is_fixed(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "modules" / "code-reviewer", repo / "modules" / "code-reviewer")
    broken = shutil.copytree(ROOT / "modules" / "release-notes", repo / "modules" / "release-notes")
    manifest = broken / "module.yaml"
    good_text = manifest.read_text(encoding="utf-8")
    tier = next(line for line in good_text.splitlines() if line.startswith("tier:"))
    manifest.write_text(good_text.replace(tier, "tier: fast"), encoding="utf-8")
    git(repo, "init", "-q")
    git(repo, "add", "-A")

    failed = try_repo(repo, tmp_path)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    out = failed.stdout
    assert "cogn validate (changed modules)" in out and "Failed" in out
    assert "release-notes" in out and "M003" in out and "tier 'fast'" in out
    assert "code-reviewer (v2.2) ✓ valid" in out  # the fixed module is judged valid, not failed

    manifest.write_text(good_text, encoding="utf-8")
    git(repo, "add", "-A")
    passed = try_repo(repo, tmp_path)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert passed.stdout.count("Passed") == 2  # cogn-validate and cogn-test
    assert "cases:" in passed.stdout and "failed" in passed.stdout  # cogn test's summary: every case ran


def test_strict_goes_before_the_files(tmp_path: Path) -> None:
    """pre-commit runs `entry args files`: `cogn validate --files --strict FILE...` must take them in that order."""
    module = shutil.copytree(ROOT / "modules" / "code-reviewer", tmp_path / "code-reviewer")
    env = {k: v for k, v in os.environ.items() if k != "COGNITIVE_MODULES_PATH"}
    env.update(COGTUI_DATA_DIR=str(tmp_path / "data"), COGTUI_CONFIG_FILE=str(tmp_path / "c.yaml"), NO_COLOR="1")
    files = [str(module / "module.yaml"), str(module / "schema.json"), str(tmp_path / "README.md")]
    proc = subprocess.run(
        [sys.executable, "-m", "cogtui.cli", "validate", "--files", "--strict", *files],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("code-reviewer (v2.2) ✓ valid") == 1  # one module, once, for its two files
