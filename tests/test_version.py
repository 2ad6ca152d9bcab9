"""One version: the package's metadata (pyproject.toml), what `cogn --version`, MCP and OpenAPI show
(`cogtui.__version__`), and the latest release of CHANGELOG.md say the same."""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

from cli_inprocess import run_cli

import cogtui

ROOT = Path(__file__).resolve().parents[1]


def test_the_version_is_one_everywhere() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert cogtui.__version__ == declared
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\]", (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"), re.M)
    assert releases and releases[0] == declared, f"CHANGELOG.md's latest release is {releases[:1]}, not {declared}"
    shown = run_cli(["--version"], cwd=ROOT, env=dict(os.environ))
    assert (shown.returncode, shown.stdout.strip()) == (0, f"cogn {declared}"), shown.stdout + shown.stderr
