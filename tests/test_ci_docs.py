"""docs/ci.md's GitHub Actions workflow and GitLab job, run as written: every `cogn` command of their steps (the
install step is what this checkout already did), from a repository root holding the bundled modules, then with one
module broken. The outputs are what CI reads: workflow commands, SARIF valid against the official schema, JUnit."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import jsonschema
import yaml

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
SARIF_SCHEMA = json.loads((ROOT / "tests" / "fixtures" / "sarif" / "sarif-schema-2.1.0.json").read_text("utf-8"))


def yaml_blocks() -> list[Any]:
    return [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", DOC, re.S)]


def commands() -> tuple[list[str], list[str]]:
    """(the workflow's `run:` commands, the GitLab job's script lines) that call cogn."""
    github, gitlab = yaml_blocks()[:2]
    runs = [step["run"] for job in github["jobs"].values() for step in job["steps"] if "run" in step]
    script = gitlab["modules"]["script"]
    return [r for r in runs if r.startswith("cogn ")], [s for s in script if s.startswith("cogn ")]


def run(repo: Path, command: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COGNITIVE_MODULES_PATH", "COGTUI_DOCS_URL")}
    env.update(HOME=str(repo.parent / "home"), COGTUI_DATA_DIR=str(repo.parent / "data"), NO_COLOR="1")
    env.update(COGTUI_CONFIG_FILE=str(repo.parent / "config.yaml"), COGTUI_REPLAY_INTERVAL="0")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"  # this checkout's cogn
    return subprocess.run(
        ["bash", "-c", command], cwd=repo, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def repository(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "modules", repo / "modules")
    return repo


def test_the_documented_blocks_are_a_workflow_and_a_job() -> None:
    github, gitlab = commands()
    assert len(github) == 3 and len(gitlab) == 2
    assert any("--format github" in c for c in github) and any("--format sarif" in c for c in github)
    assert all("--format junit" in c for c in gitlab)


def test_the_workflow_and_the_job_pass_on_valid_modules(tmp_path: Path) -> None:
    repo = repository(tmp_path)
    github, gitlab = commands()
    for command in github + gitlab:
        proc = run(repo, command)
        assert proc.returncode == 0, (command, proc.stdout[-2000:], proc.stderr[-2000:])
    sarif = json.loads((repo / "cogn.sarif").read_text(encoding="utf-8"))
    assert list(jsonschema.Draft4Validator(SARIF_SCHEMA).iter_errors(sarif)) == []
    for report in ("cogn-validate.xml", "cogn-test.xml"):
        root = ET.fromstring((repo / report).read_text(encoding="utf-8"))
        assert root.get("failures") == "0" and int(root.get("tests", "0")) > 0


def test_the_workflow_and_the_job_fail_on_a_broken_module_and_say_where(tmp_path: Path) -> None:
    repo = repository(tmp_path)
    manifest = repo / "modules" / "code-reviewer" / "module.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace("tier: decision", "tier: fast"), "utf-8")
    github, gitlab = commands()
    validate = run(repo, github[0])
    assert validate.returncode == 1
    assert "::error file=modules/code-reviewer/module.yaml,line=" in validate.stdout and "title=M003" in validate.stdout
    run(repo, github[2])  # `|| true`: the SARIF is written whatever validate found
    results = json.loads((repo / "cogn.sarif").read_text(encoding="utf-8"))["runs"][0]["results"]
    assert "M003" in {r["ruleId"] for r in results}
    assert run(repo, gitlab[0]).returncode == 1
    root = ET.fromstring((repo / "cogn-validate.xml").read_text(encoding="utf-8"))
    assert root.get("failures") == "1"
