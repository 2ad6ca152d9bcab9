"""What the headless commands import (issue 16's import budget, issue 14's eval start-up): the modules, not the time.

Each command runs in a fresh interpreter under `python -X importtime`, which names every module it
imports. A one-module validate of a module without YAML syntax, or with plain block YAML only, imports no
PyYAML, no HTTP client, no provider SDK and no TUI; a replay run imports no HTTP client and no SDK. (How long the imports take is
measured in bench/bench_startup.py, never asserted here.)
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml
from cli_json import envelope

MODULES = Path(__file__).resolve().parents[1] / "modules"
# rich: colour only; pygls and lsprotocol: `cogn lsp` only
NEVER_HEADLESS = {"httpx", "anthropic", "textual", "rich", "mcp", "starlette", "uvicorn", "pygls", "lsprotocol"}


def imported(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    env = {k: v for k, v in os.environ.items() if k not in ("COGNITIVE_MODULES_PATH", "FORCE_COLOR")}
    env.update(HOME=str(tmp_path / "home"), COGTUI_DATA_DIR=str(tmp_path / "data"), NO_COLOR="1")
    env.update(PYTHONIOENCODING="utf-8", COGTUI_REPLAY_INTERVAL="0", COGTUI_CONFIG_FILE=str(tmp_path / "config.yaml"))
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "cogtui.cli", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    names = {
        line.rsplit("|", 1)[1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }
    assert "cogtui.cli" in names, proc.stderr[-2000:]  # the listing was read
    ours = {name for name in names if name.startswith("cogtui.")}
    return proc, {name.split(".")[0] for name in names} | (names & NEVER_FOR_VALIDATE) | ours


# Start-up costs a validate does without (BENCHMARKS.md, issue 16): e-mail parsing (jsonschema-rs's build date,
# schema_engine.import_rust_engine), threads, the
# response-schema converter and the price table (imported when a provider dialect or a price is involved),
# the media rules (loaded when a document holds media).
NEVER_FOR_VALIDATE = {
    "email.utils",
    "threading",
    "cogtui.core.module.schema_dialects",
    "cogtui.core.settings.prices",
    "cogtui.core.rules.media_rules",
    "xml.etree.ElementTree",  # the CI formats' JUnit writer (cli/ci_formats.py), loaded only for --format junit
    "cogtui.cli.ci_formats",
    "cogtui.core.assist.checked",  # `--files` (pre-commit) only
}


def yaml_free_module(tmp_path: Path) -> Path:
    """code-reviewer with its manifest written as JSON (JSON is YAML's flow style): no YAML syntax anywhere."""
    folder = tmp_path / "modules" / "code-reviewer"
    shutil.copytree(MODULES / "code-reviewer", folder)
    manifest = yaml.safe_load((folder / "module.yaml").read_text(encoding="utf-8"))
    (folder / "module.yaml").write_text(json.dumps(manifest, indent=2, ensure_ascii=False), encoding="utf-8")
    assert sorted(p.name for p in folder.rglob("*") if p.suffix in (".yaml", ".yml", ".md")) == [
        "module.yaml",
        "prompt.md",
    ]
    return folder


def test_validating_a_module_without_yaml_imports_no_yaml_http_sdk_or_tui(tmp_path: Path) -> None:
    folder = yaml_free_module(tmp_path)
    proc, packages = imported(tmp_path, "validate", str(folder))
    assert proc.returncode == 0 and "✓ valid" in proc.stdout, proc.stdout + proc.stderr[-2000:]
    assert packages & ({"yaml"} | NEVER_HEADLESS) == set()
    assert packages & NEVER_FOR_VALIDATE == set()
    assert "cogtui.core.module.discovery" not in packages  # a module given by its path: no search path scanned


def test_validating_a_module_by_name_scans_the_search_path(tmp_path: Path) -> None:
    folder = yaml_free_module(tmp_path)
    proc, packages = imported(tmp_path, "--path", str(folder.parent), "validate", folder.name)
    assert proc.returncode == 0 and "✓ valid" in proc.stdout, proc.stdout + proc.stderr[-2000:]
    assert "cogtui.core.module.discovery" in packages


def test_validating_the_bundled_modules_imports_no_yaml_either(tmp_path: Path) -> None:
    """The bundled manifests and frontmatter are plain block YAML, read by core/files/yaml_block.py (D120)."""
    proc, packages = imported(tmp_path, "validate", "--all", "--path", str(MODULES))
    assert proc.returncode == 0 and re.search(r"(\d+) modules: \1 valid", proc.stdout), proc.stdout
    assert packages & ({"yaml"} | NEVER_HEADLESS | NEVER_FOR_VALIDATE) == set()


def test_validating_a_manifest_beyond_plain_yaml_imports_yaml_and_still_no_http_sdk_or_tui(tmp_path: Path) -> None:
    folder = tmp_path / "modules" / "code-reviewer"
    shutil.copytree(MODULES / "code-reviewer", folder)
    manifest = folder / "module.yaml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace("\nversion: ", "\nversion: &v ", 1), encoding="utf-8")  # an anchor
    proc, packages = imported(tmp_path, "validate", str(folder))
    assert proc.returncode == 0 and "✓ valid" in proc.stdout, proc.stdout
    assert "yaml" in packages and packages & NEVER_HEADLESS == set()


def test_a_replay_run_imports_no_http_client_or_sdk(tmp_path: Path) -> None:
    inp = MODULES / "code-reviewer" / "tests" / "case1.input.json"
    args = (
        "run",
        str(MODULES / "code-reviewer"),
        "--provider",
        "replay",
        "--no-history",
        "--json",
        "--input",
        str(inp),
    )
    proc, packages = imported(tmp_path, *args)
    assert proc.returncode == 0 and envelope(proc.stdout)["ok"] is True, proc.stdout + proc.stderr[-2000:]
    assert packages & NEVER_HEADLESS == set()


# An eval imports what it was asked for only (issue 14): no XML library or run store without --junit,
# --baseline or a history; with the replay provider, no HTTP client or SDK; no diff library while every case
# passes; no uuid (and its platform probe) for session ids.
EVAL_ASKED_FOR_ONLY = {"xml", "sqlite3", "httpx", "anthropic", "click", "textual", "difflib", "uuid", "platform"}


def test_an_eval_imports_only_what_it_was_asked_for(tmp_path: Path) -> None:
    eval_args = ("--path", str(MODULES), "eval", "code-reviewer", "--provider", "replay")
    proc, plain = imported(tmp_path, *eval_args, "--no-history")
    assert proc.returncode == 0 and "cogtui.core.eval.engine" in plain, proc.stdout + proc.stderr[-2000:]
    assert plain & EVAL_ASKED_FOR_ONLY == set()
    assert "cogtui.core.eval.junit" not in plain and "cogtui.core.eval.baseline" not in plain
    proc, asked = imported(tmp_path, *eval_args, "--junit", str(tmp_path / "junit.xml"))
    assert proc.returncode == 0, proc.stdout + proc.stderr[-2000:]
    assert {"xml", "sqlite3", "cogtui.core.eval.junit"} <= asked
    assert (tmp_path / "junit.xml").read_text(encoding="utf-8").startswith("<?xml")
