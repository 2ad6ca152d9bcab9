"""Provider selection, the run history, `cogn history|insights|capabilities --json`, as real processes."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from cli_json import document, envelope
from rtkit import ANTHROPIC_KEY, MODULES, OPENAI_KEY, cli_env, cogn, golden, model_answer

from cogtui.core.history.store import History, canonical_json

REVIEW = str(MODULES / "code-reviewer" / "tests")


def run_json(tmp_path: Path, *args: str, env: dict[str, str] | None = None, code: int = 0) -> dict[str, Any]:
    proc = cogn(tmp_path, "run", *args, "--json", env=env)
    assert proc.returncode == code, proc.stdout + proc.stderr
    return envelope(proc.stdout)


# ---------------------------------------------------------------- provider selection


def test_provider_precedence(tmp_path: Path, llm_server: Any) -> None:
    """--provider > COGNITIVE_PROVIDER > config `provider:` > replay, seen in meta.model, the request and history."""
    answer = json.dumps(model_answer(golden("code-reviewer")[1]))
    llm_server.enqueue(answer, answer, answer, answer)
    inp = f"{REVIEW}/case1.input.json"
    keys = {"ANTHROPIC_API_KEY": ANTHROPIC_KEY, "OPENAI_API_KEY": OPENAI_KEY}

    # Nothing configured: replay, and no request.
    assert (
        run_json(tmp_path, "code-reviewer", "--input", inp, env=cli_env(tmp_path, **keys))["meta"]["model"] == "replay"
    )
    assert llm_server.requests == []

    # The config file picks openai (its base_url and model come from the file too).
    config = tmp_path / "config.yaml"
    config.write_text(
        f"provider: openai\nproviders:\n  openai:\n    base_url: {llm_server.openai_base_url}\n    model: cfg-model\n",
        encoding="utf-8",
    )
    env = cli_env(tmp_path, ANTHROPIC_BASE_URL=llm_server.base_url, **keys)
    assert run_json(tmp_path, "code-reviewer", "--input", inp, env=env)["meta"]["model"] == "cfg-model"
    assert (llm_server.last_request.protocol, llm_server.last_request.model) == ("openai", "cfg-model")

    # COGNITIVE_PROVIDER beats the file; COGNITIVE_MODEL names the model.
    env_over = {**env, "COGNITIVE_PROVIDER": "anthropic", "COGNITIVE_MODEL": "env-model"}
    assert run_json(tmp_path, "code-reviewer", "--input", inp, env=env_over)["meta"]["model"] == "env-model"
    assert (llm_server.last_request.protocol, llm_server.last_request.model) == ("anthropic", "env-model")

    # --provider beats both; COGNITIVE_MODEL names an anthropic model, so openai keeps its configured one.
    assert (
        run_json(tmp_path, "code-reviewer", "--input", inp, "--provider", "openai", env=env_over)["meta"]["model"]
        == "cfg-model"
    )
    assert (llm_server.last_request.protocol, llm_server.last_request.model) == ("openai", "cfg-model")
    assert (
        run_json(
            tmp_path, "code-reviewer", "--input", inp, "--provider", "openai", "--model", "flag-model", env=env_over
        )["meta"]["model"]
        == "flag-model"
    )
    assert (llm_server.last_request.protocol, llm_server.last_request.model) == ("openai", "flag-model")
    assert (
        run_json(tmp_path, "code-reviewer", "--input", inp, "--provider", "replay", env=env_over)["meta"]["model"]
        == "replay"
    )
    assert len(llm_server.requests) == 4

    proc = cogn(tmp_path, "history", "--json", env=env)
    runs = document(proc.stdout, "history")["items"]
    assert [(r["provider"], r["model"]) for r in runs] == [
        ("replay", "replay"),
        ("openai", "flag-model"),
        ("openai", "cfg-model"),
        ("anthropic", "env-model"),
        ("openai", "cfg-model"),
        ("replay", "replay"),
    ]
    assert ANTHROPIC_KEY not in proc.stdout and OPENAI_KEY not in proc.stdout


# ---------------------------------------------------------------- history and insights


RUN_KEYS = {
    "id",
    "module",
    "module_version",
    "format",
    "provider",
    "model",
    "input_hash",
    "started_at",
    "ttfc_ms",
    "total_ms",
    "usage",
    "outcome",
    "error_code",
    "envelope",
}
INSIGHT_KEYS = {"suggested_mapping", "count", "modules", "examples", "first_seen", "last_seen"}
ENUM_KEYS = {"module", "field", "value", "count", "reasons"}


def test_history_records_each_run_whole(tmp_path: Path) -> None:
    printed = []
    for case, code in (("case1", 0), ("case2", 0), ("case2", 0), ("case3", 1)):
        printed.append(
            run_json(
                tmp_path, "code-reviewer", "--input", f"{REVIEW}/{case}.input.json", "--args", f"args-{case}", code=code
            )
        )
    proc = cogn(tmp_path, "history", "--json")
    assert proc.returncode == 0
    runs = document(proc.stdout, "history")["items"]
    assert len(runs) == 4 and all(set(r) == RUN_KEYS for r in runs)
    runs.reverse()  # newest first on output
    for run, env, case in zip(runs, printed, ("case1", "case2", "case2", "case3"), strict=True):
        inp = json.loads(Path(f"{REVIEW}/{case}.input.json").read_text(encoding="utf-8"))
        assert run["envelope"] == env  # the whole envelope, as printed
        assert run["input_hash"] == hashlib.sha256(canonical_json(inp).encode()).hexdigest()
        assert (run["module"], run["module_version"], run["format"]) == ("code-reviewer", "2.2.1", "v2.2")
        assert (run["provider"], run["model"]) == ("replay", "replay")
        assert run["total_ms"] >= run["ttfc_ms"] >= 0
        assert (
            set(run["usage"])
            == {"input_tokens", "output_tokens", "total_tokens", "cache_read_tokens", "cache_write_tokens"}
            and run["usage"]["output_tokens"] > 0
        )
        assert run["started_at"].endswith("+00:00")
    assert [r["outcome"] for r in runs] == ["ok", "ok", "ok", "error"]
    assert [r["error_code"] for r in runs] == [None, None, None, "E2006"]
    assert runs[1]["input_hash"] == runs[2]["input_hash"] != runs[0]["input_hash"]

    with History(tmp_path / "data" / "history.sqlite3") as h:
        records = list(reversed(h.runs()))
    assert [r.args for r in records] == ["args-case1", "args-case2", "args-case2", "args-case3"]
    assert records[0].input == json.loads(Path(f"{REVIEW}/case1.input.json").read_text(encoding="utf-8"))
    assert all(r.session_id == "sess_" + r.envelope["meta"]["trace_id"] for r in records)

    limited = document(cogn(tmp_path, "history", "code-reviewer", "--limit", "2", "--json").stdout, "history")["items"]
    assert [r["id"] for r in limited] == [r["id"] for r in reversed(runs)][:2]
    none_yet = document(cogn(tmp_path, "history", "product-ideas", "--json").stdout, "history")
    assert none_yet["items"] == [] and none_yet["summary"] == {
        "runs": 0,
        "module": "product-ideas",
        "limit": 50,
        "waiting": 0,
    }
    text = cogn(tmp_path, "history").stdout
    assert "code-reviewer" in text and "E2006" in text
    assert cogn(tmp_path, "history", "product-ideas").stdout.strip() == "No runs of product-ideas recorded."

    proc = cogn(tmp_path, "insights", "--json")
    doc = document(proc.stdout, "insights")
    agg = {
        "insights": [{k: v for k, v in i.items() if k != "kind"} for i in doc["items"] if i["kind"] == "insight"],
        "custom_enums": [
            {k: v for k, v in c.items() if k != "kind"} for c in doc["items"] if c["kind"] == "custom_enum"
        ],
        "excluded": doc["summary"]["excluded"],
    }
    assert doc["summary"]["insights"] == len(agg["insights"]) and doc["summary"]["custom_enums"] == len(
        agg["custom_enums"]
    )
    assert agg["excluded"] == {"runs": 0, "insights": 0, "custom_enums": 0}  # case3 failed with nothing to leave out
    assert all(set(i) == INSIGHT_KEYS for i in agg["insights"])
    assert all(set(c) == ENUM_KEYS for c in agg["custom_enums"])
    by_mapping = {i["suggested_mapping"]: i for i in agg["insights"]}
    hooks = by_mapping["issues[].category.react_hooks"]
    assert hooks["count"] == 2 and hooks["modules"] == ["code-reviewer"]
    assert hooks["examples"][0]["text"].startswith("Two of four issues are React-specific")
    assert hooks["first_seen"] <= hooks["last_seen"]
    assert by_mapping["data.assumptions"]["count"] == 1
    assert sum(i["count"] for i in agg["insights"]) == 1 + 3 + 3
    assert agg["insights"][0]["count"] == 2  # most frequent first
    enums = {(c["module"], c["field"], c["value"]): c for c in agg["custom_enums"]}
    react = enums[("code-reviewer", "issues[].category", "react_hooks")]
    reason = golden("code-reviewer", "case2")[1]["data"]["issues"][0]["category"]["reason"]
    assert react["count"] == 2 and react["reasons"] == [reason]
    assert enums[("code-reviewer", "issues[].category", "api_compatibility")]["count"] == 2
    assert len(enums) == 2

    only = document(cogn(tmp_path, "insights", "--module", "product-ideas", "--json").stdout, "insights")
    assert only["items"] == [] and only["summary"]["excluded"] == agg["excluded"]
    named = document(cogn(tmp_path, "insights", "code-reviewer", "--json").stdout, "insights")  # NAME, as for history
    assert named["items"] == doc["items"] and named["summary"] == {**doc["summary"], "module": "code-reviewer"}
    none = cogn(tmp_path, "insights", "product-ideas").stdout
    assert "No insights recorded in product-ideas's runs" in none
    both = cogn(tmp_path, "insights", "code-reviewer", "--module", "product-ideas")
    assert both.returncode == 2 and "give one" in both.stderr
    assert "react_hooks" in cogn(tmp_path, "insights").stdout


def test_no_history_flag(tmp_path: Path) -> None:
    run_json(tmp_path, "code-reviewer", "--input", f"{REVIEW}/case1.input.json", "--no-history")
    assert document(cogn(tmp_path, "history", "--json").stdout, "history")["items"] == []


# ---------------------------------------------------------------- capabilities (SPEC-v2.5 §8.1)


def assert_capability_doc(doc: dict[str, Any]) -> None:
    assert isinstance(doc["runtime"], str) and doc["runtime"] and isinstance(doc["version"], str)
    caps = doc["capabilities"]
    assert isinstance(caps["streaming"], bool)
    assert set(caps["multimodal"]) == {"input", "output"}
    assert set(caps["multimodal"]["input"]) <= {"image", "audio", "video", "document"}
    assert isinstance(caps["multimodal"]["output"], list)
    assert isinstance(caps["max_media_size_mb"], (int, float)) and caps["max_media_size_mb"] > 0
    assert {"sse", "ndjson"} <= set(caps["supported_transports"])


def test_capabilities(tmp_path: Path) -> None:
    proc = cogn(tmp_path, "capabilities")
    assert proc.returncode == 0
    docs = json.loads(proc.stdout)["providers"]
    assert [d["provider"] for d in docs] == ["anthropic", "openai", "replay"]
    for doc in docs:
        assert_capability_doc(doc)
    by_name = {d["provider"]: d["capabilities"] for d in docs}
    assert by_name["anthropic"]["multimodal"]["input"] == ["image", "document"]
    assert by_name["openai"]["multimodal"]["input"] == ["image"]
    assert by_name["replay"]["streaming"] is True
    # A text-only OpenAI-compatible model (vision: false in the config) declares no media input.
    (tmp_path / "config.yaml").write_text("providers:\n  openai: {vision: false}\n", encoding="utf-8")
    one = json.loads(cogn(tmp_path, "capabilities", "--provider", "openai").stdout)
    assert_capability_doc(one)
    assert one["provider"] == "openai" and one["capabilities"]["multimodal"]["input"] == []


def test_trimmed_insights_are_said_in_the_envelope_and_in_history(tmp_path: Path, llm_server: Any) -> None:
    """Issue 10 §5 overflow: an exploration module over max_items keeps the first 20 insights (ENV-7), and
    says so in the envelope's meta.warnings and in the recorded run (decision and exec: E3004, elsewhere)."""
    _, expected = golden("product-ideas")
    answer = model_answer(expected)
    items = [{"text": f"idea {i}", "suggested_mapping": "data.ideas"} for i in range(25)]
    answer["data"]["extensions"] = {"insights": items}
    llm_server.enqueue(json.dumps(answer))
    env = cli_env(tmp_path, ANTHROPIC_BASE_URL=llm_server.base_url, ANTHROPIC_API_KEY=ANTHROPIC_KEY)
    case = str(MODULES / "product-ideas" / "tests" / "case1.input.json")
    envelope = run_json(tmp_path, "product-ideas", "--input", case, "--provider", "anthropic", env=env)
    assert envelope["data"]["extensions"]["insights"] == items[:20]
    said = [w for w in envelope["meta"]["warnings"] if "insights trimmed" in w]
    assert said == ["25 insights trimmed to overflow.max_items = 20"]
    with History(tmp_path / "data" / "history.sqlite3") as history:
        (run,) = history.runs("product-ideas")
        assert run.envelope["meta"]["warnings"] == envelope["meta"]["warnings"]
        aggregate = history.insights("product-ideas")
    assert aggregate["insights"][0]["count"] == 20  # what was kept is what history counts
    listed = document(cogn(tmp_path, "history", "--json", env=env).stdout, "history")["items"]
    assert said[0] in listed[0]["envelope"]["meta"]["warnings"]
