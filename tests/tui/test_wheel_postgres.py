"""PostgreSQL support is the extra `cogtui[postgres]`: the wheel installed without it brings no psycopg, and a
`postgresql://` history then stops `cogn run` before anything runs (exit 2, the extra named, nothing written);
installed with it, the same command records into a real PostgreSQL server."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from test_wheel_install import INSTALL_TIMEOUT, REPO, build_wheel, clean_env

pytestmark = [pytest.mark.wheel]

DRIVER = {"psycopg", "psycopg-binary", "psycopg-pool", "psycopg-c"}


def test_postgresql_support_is_an_extra(tmp_path: Path, pg_server: Any) -> None:
    wheel = build_wheel(tmp_path)
    metadata = next(n for n in zipfile.ZipFile(wheel).namelist() if n.endswith(".dist-info/METADATA"))
    requires = [
        line for line in zipfile.ZipFile(wheel).read(metadata).decode().splitlines() if line.startswith("Requires-Dist")
    ]
    driver_lines = [line for line in requires if "psycopg" in line]
    assert driver_lines and all('extra == "postgres"' in line for line in driver_lines), requires

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    env = clean_env(tmp_path)
    pip = [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "--disable-pip-version-check"]

    def install(requirement: str) -> None:
        subprocess.run(
            [*pip, "install", "--quiet", "--no-compile", requirement], check=True, timeout=INSTALL_TIMEOUT, env=env
        )

    def installed() -> set[str]:
        listed = subprocess.run([*pip, "list", "--format", "json"], check=True, capture_output=True, text=True, env=env)
        return {p["name"].lower() for p in json.loads(listed.stdout)}

    install(str(wheel))
    assert "cogtui" in installed() and not installed() & DRIVER, installed() & DRIVER

    url = pg_server.new_database()
    env["COGTUI_HISTORY_URL"] = url
    work = tmp_path / "work"
    work.mkdir()
    inp = str(REPO / "modules" / "code-reviewer" / "tests" / "case1.input.json")
    output = work / "out.json"

    def cogn(*args: str) -> subprocess.CompletedProcess[str]:
        argv = [str(venv / "bin" / "cogn"), "--path", str(REPO / "modules"), *args]
        return subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, timeout=120)

    refused = cogn("run", "code-reviewer", "--input", inp, "--output", str(output))
    assert refused.returncode == 2 and refused.stdout == "", refused.stdout + refused.stderr
    assert "pip install 'cogtui[postgres]'" in refused.stderr and "Traceback" not in refused.stderr
    assert not output.exists() and not (tmp_path / "data").exists()  # nothing written: no output, no outbox
    listing = cogn("history")
    assert listing.returncode == 2 and "cogtui[postgres]" in listing.stderr, listing.stderr

    install(f"{wheel}[postgres]")
    assert {"psycopg", "psycopg-pool"} <= installed()
    recorded = cogn("run", "code-reviewer", "--input", inp, "--json")
    assert recorded.returncode == 0 and recorded.stderr == "", recorded.stderr
    listing = cogn("history", "--json")
    assert listing.returncode == 0 and len(json.loads(listing.stdout)["items"]) == 1, listing.stderr
    pg_server.drop_databases([url])
