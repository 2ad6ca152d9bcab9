"""Issue 10 §5: the v0.1 command line, `$ARGUMENTS` as an input property, and the stream checker's seq rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_json import envelope as printed_envelope
from modkit import run_cogn

from cogtui.core.module.loader import load_module
from cogtui.core.rules.chunk_rules import check_stream
from cogtui.core.run.arguments import fill_arguments

REALWORLD = Path(__file__).parent / "realworld"
UI_SPEC = REALWORLD / "ui-spec-generator"
ARGS = "健康产品官网 情绪压力保健食品"


# ---------------------------------------------------------------- v0.1 command line


def test_positional_input_and_output_file(tmp_path: Path) -> None:
    """`cogn run MODULE INPUT -o OUTPUT` (SPEC-v0.1): the envelope lands in OUTPUT."""
    inp = REALWORLD / "sql-guard" / "tests" / "select.input.json"
    out = tmp_path / "out" / "envelope.json"
    proc = run_cogn(
        ["run", str(REALWORLD / "sql-guard"), str(inp), "-o", str(out), "--provider", "replay", "--no-history"],
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    envelope = json.loads(out.read_text(encoding="utf-8"))
    assert envelope["ok"] is True and envelope["data"]["verdict"] == "allow"


def test_positional_input_and_input_flag_conflict(tmp_path: Path) -> None:
    inp = str(REALWORLD / "sql-guard" / "tests" / "select.input.json")
    proc = run_cogn(["run", str(REALWORLD / "sql-guard"), inp, "--input", inp, "--provider", "replay"], tmp_path)
    assert proc.returncode == 2 and "INPUT" in proc.stderr


@pytest.mark.parametrize("flags", [["--args", ARGS, "--subagent"], ["-a", ARGS, "-s"]])
def test_args_and_subagent_short_and_long(tmp_path: Path, flags: list[str]) -> None:
    """`cogn run ui-spec-generator -a "..." -s`: $ARGUMENTS is filled from --args, the input too."""
    proc = run_cogn(["run", str(UI_SPEC), *flags, "--provider", "replay", "--json", "--no-history"], tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    envelope = printed_envelope(proc.stdout)
    assert envelope["ok"] is True and envelope["data"]["pages"]


def test_arguments_property_is_filled_from_args() -> None:
    module = load_module(UI_SPEC)
    assert fill_arguments(module, {}, ARGS) == {"$ARGUMENTS": ARGS}
    assert fill_arguments(module, {"audience": "白领"}, ARGS) == {"audience": "白领", "$ARGUMENTS": ARGS}
    assert fill_arguments(module, {"$ARGUMENTS": "given"}, ARGS) == {"$ARGUMENTS": "given"}  # the input wins
    assert fill_arguments(module, {}, None) == {}
    other = load_module(REALWORLD / "sql-guard")  # declares no $ARGUMENTS: the input is left alone
    assert fill_arguments(other, {}, ARGS) == {}


# ---------------------------------------------------------------- the stream checker (SPEC-v2.5 §3.2.3)


def _stream(*seqs: int, risk: Any = "low") -> list[dict[str, Any]]:
    chunks: list[dict[str, Any]] = [
        {"ok": True, "streaming": True, "session_id": "sess_1", "meta": {"confidence": None, "risk": risk}}
    ]
    text = ""
    for n in seqs:
        part = f"p{n} "
        text += part
        chunks.append({"chunk": {"seq": n, "type": "delta", "field": "data.rationale", "delta": part}})
    chunks.append(
        {"final": True, "meta": {"confidence": 0.9, "risk": "low", "explain": "done"}, "data": {"rationale": text}}
    )
    return chunks


def _rules(chunks: list[dict[str, Any]]) -> list[str]:
    return [v.rule for v in check_stream(chunks)]


def test_seq_may_have_gaps() -> None:
    assert _rules(_stream(1, 2, 3)) == []
    assert _rules(_stream(1, 3, 7, 8)) == []


@pytest.mark.parametrize("seqs", [(2, 3), (1, 3, 2), (1, 1), (0, 1)])
def test_seq_starts_at_1_and_increases(seqs: tuple[int, ...]) -> None:
    assert any(r in ("stream.seq.order", "chunk.seq") for r in _rules(_stream(*seqs)))


@pytest.mark.parametrize("risk", [{"level": "medium", "source": "changes"}, {"custom": "legal", "reason": "GDPR"}])
def test_meta_risk_may_be_the_object_form(risk: dict[str, Any]) -> None:
    chunks = _stream(1, 2, risk=risk)
    chunks[-1]["meta"]["risk"] = risk
    assert _rules(chunks) == []
    chunks[-1]["meta"]["risk"] = {"why": "no level"}
    assert "meta.risk.enum" in _rules(chunks)
