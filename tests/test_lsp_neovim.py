"""A real editor: Neovim from Debian's packages, headless, with `cogn lsp` attached as an author would attach it
(docs/editors.md), opening a reference-like module, breaking its schema and fixing it, reading vim.diagnostic.get()
at each step (tests/editors/nvim_check.lua). Neovim missing fails the test (`.ci/run` installs it), never skips it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tests" / "editors" / "nvim_check.lua"
SETUP = ROOT / "editors" / "neovim" / "cogn.lua"  # what docs/editors.md tells authors to use
REFERENCE_LIKE = ROOT / "tests" / "realworld" / "sql-guard"


def test_neovim_shows_the_diagnostics_of_a_broken_schema_and_clears_them_once_fixed(tmp_path: Path) -> None:
    nvim = shutil.which("nvim")
    assert nvim is not None, "Neovim (nvim) is not installed: apt-get install neovim (.ci/run does)"
    module = tmp_path / "work" / REFERENCE_LIKE.name
    shutil.copytree(REFERENCE_LIKE, module)
    out = tmp_path / "steps.json"
    env = {k: v for k, v in os.environ.items() if k not in ("COGNITIVE_MODULES_PATH", "COGTUI_DOCS_URL")}
    env.update(
        HOME=str(tmp_path / "home"),
        XDG_CONFIG_HOME=str(tmp_path / "xdg"),
        XDG_STATE_HOME=str(tmp_path / "xdg-state"),
        XDG_DATA_HOME=str(tmp_path / "xdg-data"),
        COGTUI_DATA_DIR=str(tmp_path / "data"),
        COGTUI_CONFIG_FILE=str(tmp_path / "config.yaml"),
        COGTUI_NVIM_OUT=str(out),
        COGTUI_NVIM_FILE=str(module / "schema.json"),
        COGTUI_NVIM_PYTHON=sys.executable,
        COGTUI_NVIM_SETUP=str(SETUP),
    )
    proc = subprocess.run(
        [nvim, "--headless", "--clean", "-n", "-i", "NONE", "-c", f"luafile {SCRIPT}"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert out.is_file(), f"Neovim wrote nothing (exit {proc.returncode}): {proc.stderr[-2000:]}"
    result = json.loads(out.read_text(encoding="utf-8"))
    steps = {step["name"]: step["diagnostics"] for step in result["steps"]}
    assert result["ok"], result["steps"]
    # the valid module's notes (no error among them), then the one S001 the edit brings, then the notes again
    assert all(d["severity"] > 1 for d in steps["opened"])
    (broken,) = [d for d in steps["broken"] if d["code"] == "S001"]
    assert [d for d in steps["broken"] if d["code"] != "S001"] == steps["opened"]
    assert broken["code"] == "S001" and broken["source"] == "cogn" and broken["severity"] == 1
    assert '"strng" is not a JSON Schema type; did you mean "string"?' in broken["message"]
    line = (module / "schema.json").read_text(encoding="utf-8").split("\n")[broken["lnum"]]
    edited = line.replace('"string"', '"strng"', 1)  # the buffer's line (the edit is never saved)
    assert edited[broken["col"] : broken["end_col"]] == '"strng"'  # the range covers the value
    assert steps["fixed"] == steps["opened"]
