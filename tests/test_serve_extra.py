"""`cogn serve` and `cogn mcp` without the `serve` extra, as real processes: the interpreter is made unable to import
a package by a `sitecustomize` on PYTHONPATH (a finder that answers "no module named ..." for it, as a missing
install does), so the command's own check is what meets it. Exit 2, the extra named with what to install, and no
traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from servekit import MODULES, serve_env

HIDE = """
import importlib.abc
import os
import sys

HIDDEN = set(filter(None, os.environ.get("COGTUI_TEST_HIDDEN", "").split(",")))
BROKEN = set(filter(None, os.environ.get("COGTUI_TEST_BROKEN", "").split(",")))


class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        top = name.split(".")[0]
        if top in HIDDEN:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        if top in BROKEN:  # installed, but half: importing it fails inside
            raise ImportError(f"cannot import name 'Thing' from {top!r}", name=top)
        return None


sys.meta_path.insert(0, Hide())
"""


def without(tmp_path: Path, *args: str, hidden: str = "", broken: str = "") -> subprocess.CompletedProcess[str]:
    shim = tmp_path / "shim"
    shim.mkdir(exist_ok=True)
    (shim / "sitecustomize.py").write_text(HIDE, encoding="utf-8")
    env = serve_env(tmp_path, COGTUI_TEST_HIDDEN=hidden, COGTUI_TEST_BROKEN=broken)
    env["PYTHONPATH"] = os.pathsep.join([str(shim), *filter(None, [env.get("PYTHONPATH")])])
    argv = [sys.executable, "-m", "cogtui.cli", "--path", str(MODULES), *args]
    return subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize(
    ("command", "hidden"), [("serve", "starlette"), ("serve", "uvicorn"), ("mcp", "mcp"), ("mcp", "uvicorn")]
)
def test_a_missing_package_of_the_extra_is_named_with_the_extra(tmp_path: Path, command: str, hidden: str) -> None:
    proc = without(tmp_path, command, "--port", "0", hidden=hidden)
    assert proc.returncode == 2, proc.stderr
    assert f"cogn {command} needs the serve extra (mcp, starlette, uvicorn): {hidden} cannot be imported" in proc.stderr
    assert "pip install 'cogtui[serve]'" in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_a_half_installed_package_is_said_as_the_extra_too(tmp_path: Path) -> None:
    """mcp is there but fails as it is imported (a partial upgrade): the same message, with Python's words."""
    proc = without(tmp_path, "mcp", broken="mcp")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert "cogn mcp needs the serve extra" in proc.stderr and "cannot import name 'Thing'" in proc.stderr


def test_the_shim_hides_nothing_else(tmp_path: Path) -> None:
    """The same interpreter and shim, hiding a package `cogn list` never imports: the command works."""
    proc = without(tmp_path, "list", hidden="starlette")
    assert proc.returncode == 0 and "code-reviewer" in proc.stdout, proc.stderr
