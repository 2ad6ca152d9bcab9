"""The core and the headless CLI never import Textual or the provider SDKs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from modkit import GOOD_EXPECTED, clean_v22, make_module

REPO = Path(__file__).resolve().parents[1]
CORE = REPO / "cogtui" / "core"
FORBIDDEN = ("textual", "anthropic", "httpx", "psycopg")
_IMPORT_TEXTUAL = re.compile(r"^\s*(from|import)\s+textual\b", re.M)


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "COGNITIVE_MODULES_PATH"}
    env.update(HOME=str(home), NO_COLOR="1")
    return env


def _run_python(code: str, cwd: Path) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=60, check=False, env=_env(cwd)
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _loaded(modules: list[str], name: str) -> bool:
    return any(m == name or m.startswith(name + ".") for m in modules)


def test_no_core_file_imports_textual() -> None:
    files = sorted(CORE.rglob("*.py"))
    assert len(files) > 10
    offenders = [str(f.relative_to(REPO)) for f in files if _IMPORT_TEXTUAL.search(f.read_text(encoding="utf-8"))]
    assert offenders == []


def test_importing_the_core_loads_no_ui_or_sdk(tmp_path: Path) -> None:
    code = (
        "import json, sys\n"
        "import cogtui.core.workspace, cogtui.core.rules.document_checker, cogtui.core.rules.validate_module\n"
        "import cogtui.cli.cmd_validate, cogtui.cli.cmd_check, cogtui.cli.cmd_list\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    modules = _run_python(code, tmp_path)
    assert "cogtui.core.rules.validate_module" in modules  # the probe really imported the core
    for name in FORBIDDEN:
        assert not _loaded(modules, name), name


def test_running_the_commands_loads_no_ui_or_sdk(tmp_path: Path) -> None:
    mod = make_module(tmp_path, clean_v22())
    envelope = tmp_path / "env.json"
    envelope.write_text(json.dumps(GOOD_EXPECTED))
    code = (
        "import contextlib, io, json, sys\n"
        "from cogtui.cli import main\n"
        "codes = []\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    codes.append(main(['validate', {str(mod)!r}]))\n"
        f"    codes.append(main(['validate', '--json', {str(mod)!r}]))\n"
        f"    codes.append(main(['--path', {str(tmp_path)!r}, 'list']))\n"
        f"    codes.append(main(['check', '--module', {str(mod)!r}, {str(envelope)!r}]))\n"
        "assert codes == [0, 0, 0, 0], codes\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    modules = _run_python(code, tmp_path)
    assert "cogtui.core.rules.document_checker" in modules and "cogtui.cli.cmd_validate" in modules
    for name in FORBIDDEN:
        assert not _loaded(modules, name), name


def test_cogn_process_imports(tmp_path: Path) -> None:
    """`python -X importtime -m cogtui.cli validate` reports every import on stderr."""
    mod = make_module(tmp_path, clean_v22())
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "cogtui.cli", "validate", str(mod)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=_env(tmp_path),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    imported = [line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")]
    assert "cogtui.core.rules.validate_module" in imported
    for name in FORBIDDEN:
        assert not _loaded(imported, name), name
