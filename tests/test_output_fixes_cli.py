"""`cogn run --fix NAME`, `--strict` and config `output_fixes` as a real process (ENV-10, ENV-15).

An answer with confidence 1.7 fails as E3001 by default; the opt-in clamp fixes it
and says so in meta.warnings, which history keeps; --strict turns every fix off.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from cli_json import envelope
from rtkit import OPENAI_KEY, cli_env, cogn, golden, model_answer

from cogtui.core.history.store import History

REVIEW_IN, REVIEW_OUT = golden("code-reviewer")


def _run(tmp_path: Path, srv: Any, *extra: str) -> Any:
    answer = model_answer(REVIEW_OUT)
    answer["meta"]["confidence"] = 1.7
    srv.enqueue(json.dumps(answer))
    env = cli_env(tmp_path, OPENAI_BASE_URL=srv.openai_base_url, OPENAI_API_KEY=OPENAI_KEY)
    inp = tmp_path / "in.json"
    inp.write_text(json.dumps(REVIEW_IN), encoding="utf-8")
    return cogn(
        tmp_path, "run", "code-reviewer", "--input", str(inp), "--provider", "openai", "--json", *extra, env=env
    )


def test_no_fix_by_default(tmp_path: Path, llm_server: Any) -> None:
    proc = _run(tmp_path, llm_server)
    assert proc.returncode == 1 and envelope(proc.stdout)["error"]["code"] == "E3001"


def test_fix_flag_acts_and_is_recorded(tmp_path: Path, llm_server: Any) -> None:
    proc = _run(tmp_path, llm_server, "--fix", "confidence_clamp")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    env = envelope(proc.stdout)
    assert env["meta"]["confidence"] == 1.0
    assert any(w.startswith("confidence_clamp:") for w in env["meta"]["warnings"])
    assert "warning: confidence_clamp" in proc.stderr
    with History(tmp_path / "data" / "history.sqlite3") as h:
        assert h.runs()[0].envelope["meta"]["warnings"] == env["meta"]["warnings"]


def test_config_output_fixes_and_strict(tmp_path: Path, llm_server: Any) -> None:
    (tmp_path / "config.yaml").write_text("output_fixes: [confidence_clamp]\n", encoding="utf-8")
    assert _run(tmp_path, llm_server).returncode == 0
    proc = _run(tmp_path, llm_server, "--fix", "all", "--strict")
    assert proc.returncode == 1 and envelope(proc.stdout)["error"]["code"] == "E3001"


def test_unknown_fix_is_a_usage_error(tmp_path: Path) -> None:
    proc = cogn(tmp_path, "run", "code-reviewer", "--fix", "guess_harder")
    assert proc.returncode == 2 and "unknown output fix 'guess_harder'" in proc.stderr
