"""The v2.5 chunk stream from RunSession.events() (SPEC-v2.5 §3.2; STREAM-1, STREAM-7) and its sync twin.

Every example module is streamed through the replay provider; provider
streams go through the real clients. Cancellation is checked from the
server's side: the HTTP connection must close when the consumer goes away.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from llmserver import disconnect_after, text
from rtkit import (
    MODULES,
    PROTOCOLS,
    assert_failure,
    collect,
    copy_module,
    example,
    golden,
    model_answer,
    options,
    provider,
    replay,
    resolver_for,
    set_keys,
)

from cogtui.core.module.loader import load_module
from cogtui.core.rules.chunk_rules import check_stream, chunk_kind
from cogtui.core.run.manifest_policy import RUNTIME_META
from cogtui.core.run.runner import RunSession, run_module


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    set_keys(monkeypatch)


def cases() -> list[tuple[str, str]]:
    out = []
    for root in sorted(p for p in MODULES.iterdir() if p.is_dir()):
        module = example(root.name)
        out += [(root.name, t.name) for t in module.tests] or [(root.name, "example")]
    return out


def case_input(name: str, case: str) -> Any:
    if case == "example":
        return json.loads((MODULES / name / "examples/input.json").read_text(encoding="utf-8"))
    return golden(name, case)[0]


def fields_of(envelope: dict[str, Any]) -> dict[str, Any]:
    """meta.* and data.* leaves one level down: the fields a stream reports."""
    return {f"{part}.{k}": v for part in ("meta", "data") for k, v in (envelope.get(part) or {}).items()}


def assert_stream_shape(chunks: list[dict[str, Any]], module: Any, degraded: bool = False) -> None:
    assert check_stream(chunks, module) == [], [v.message for v in check_stream(chunks, module)]
    first = chunks[0]
    assert (
        set(first) == {"ok", "streaming", "session_id", "meta"} and first["ok"] is True and first["streaming"] is True
    )
    assert first["session_id"].startswith("sess_")
    seqs = [c["chunk"]["seq"] for c in chunks if "chunk" in c]
    assert seqs == list(range(1, len(seqs) + 1))
    kinds = [chunk_kind(c) for c in chunks]
    assert kinds.count("final") + kinds.count("error") == 1 and kinds[-1] in ("final", "error")
    if degraded:
        assert not seqs
        assert chunks[1]["progress"]["stage"] == "degraded"
        return
    assert "degraded" not in [c.get("progress", {}).get("stage") for c in chunks]
    final = chunks[-1]
    if kinds[-1] != "final":
        return
    assert set(final) == {"final", "meta", "data", "usage"}
    joined: dict[str, str] = {}  # a field's text: a string snapshot resets it, deltas extend it
    snapshots: dict[str, Any] = {}
    for c in chunks:
        inner = c.get("chunk")
        if inner and inner["type"] == "delta":
            joined[inner["field"]] = joined.get(inner["field"], "") + inner["delta"]
        elif inner:
            snapshots[inner["field"]] = inner["data"]
            joined.pop(inner["field"], None)
            if isinstance(inner["data"], str):
                joined[inner["field"]] = inner["data"]
    env = {"meta": final["meta"], "data": final["data"]}
    # A v0/v1/v2.1 answer is a bare payload: its meta is the runtime's wrap, never streamed.
    reported = fields_of(env) if module.format.has_envelope_contract else fields_of({"data": env["data"]})
    for fld, value in reported.items():
        if fld.split(".")[0] == "meta" and fld.split(".")[1] in RUNTIME_META:
            continue  # the runtime's own meta, written after the answer
        if isinstance(value, str):
            assert joined.get(fld, "") == value, fld  # joined deltas equal the final string
        else:
            assert fld in snapshots and snapshots[fld] == value, fld  # non-strings arrive as snapshots


@pytest.mark.parametrize(("name", "case"), cases())
async def test_every_example_module_streams_by_the_rules(name: str, case: str) -> None:
    module = example(name)
    chunks, result, _ = await collect(
        module, case_input(name, case), options(replay(), stream_requested=True, resolver=resolver_for(MODULES))
    )
    assert_stream_shape(chunks, module, degraded=module.contract.response_mode.value == "sync")
    rebuilt = rebuild(chunks[-1])
    assert rebuilt == result.envelope  # the sync envelope is the terminal chunk's


def rebuild(terminal: dict[str, Any]) -> dict[str, Any]:
    if terminal.get("final"):
        return {"ok": True, "meta": terminal["meta"], "data": terminal["data"]}
    env = {"ok": False, "meta": terminal["meta"], "error": terminal["error"]}
    if "partial_data" in terminal:
        env["partial_data"] = terminal["partial_data"]
    return env


@pytest.mark.parametrize(
    ("name", "case"),
    [
        ("code-reviewer", "case1"),
        ("code-reviewer", "case3"),
        ("incident-narrator", "case1"),
        ("json-patch-generator", "case1"),
    ],
)
async def test_sync_result_equals_the_streamed_one(name: str, case: str) -> None:
    module = example(name)
    seen: list[dict[str, Any]] = []
    sync = await run_module(
        module, case_input(name, case), options(replay()), on_event=lambda ev: seen.append(ev.chunk)
    )
    streamed = await run_module(module, case_input(name, case), options(replay(), stream_requested=True))
    assert rebuild(seen[-1]) == sync.envelope

    def stable(env: dict[str, Any]) -> dict[str, Any]:
        # warnings differ legitimately: streaming a sync module is degraded, and says so (STREAM-7)
        return {
            **env,
            "meta": {k: v for k, v in env["meta"].items() if k not in ("trace_id", "latency_ms", "warnings")},
        }

    assert stable(sync.envelope) == stable(streamed.envelope)


async def test_sync_module_degrades_when_asked_to_stream() -> None:
    module = example("json-patch-generator")
    assert module.contract.response_mode.value == "sync"
    chunks, result, _ = await collect(
        module, golden("json-patch-generator")[0], options(replay(), stream_requested=True)
    )
    assert_stream_shape(chunks, module, degraded=True)
    assert [chunk_kind(c) for c in chunks] == ["meta", "progress", "final"]
    assert any("degraded" in w for w in result.warnings)
    quiet, _, _ = await collect(module, golden("json-patch-generator")[0], options(replay()))
    assert not any(c.get("progress", {}).get("stage") == "degraded" for c in quiet)  # only when a stream was asked for


@pytest.mark.parametrize("proto", PROTOCOLS)
async def test_provider_stream_in_tiny_pieces(llm_server: Any, proto: str) -> None:
    module = example("incident-narrator")
    inp, expected = golden("incident-narrator")
    llm_server.enqueue(
        text("```json\n" + json.dumps(model_answer(expected), ensure_ascii=True) + "\n```", chunk_size=3)
    )
    chunks, result, _ = await collect(module, inp, options(provider(proto, llm_server), stream_requested=True))
    assert result.ok, result.envelope
    assert_stream_shape(chunks, module)
    pieces = [c["chunk"]["delta"] for c in chunks if c.get("chunk", {}).get("field") == "data.rationale"]
    assert "".join(pieces) == expected["data"]["rationale"]
    # response.buffer_size: 512 gathers the 3-character pieces into chunks of at least 512 bytes
    assert len(pieces) >= 2 and all(len(p.encode("utf-8")) >= 512 for p in pieces[:-1])


@pytest.mark.parametrize("proto", PROTOCOLS)
async def test_repairs_are_reconciled_in_the_stream(llm_server: Any, proto: str) -> None:
    """A streamed field the repair pass changes gets a snapshot, so the stream still adds up."""
    module = example("code-reviewer")
    inp, expected = golden("code-reviewer")
    answer = model_answer(expected)
    answer["meta"]["explain"] = "E" * 300
    answer["data"]["verdict"] = " Request Changes "
    llm_server.enqueue(json.dumps(answer))
    chunks, result, _ = await collect(module, inp, options(provider(proto, llm_server)))
    assert result.ok and result.envelope["meta"]["explain"] == "E" * 280
    assert_stream_shape(chunks, module)
    snaps = {c["chunk"]["field"]: c["chunk"]["data"] for c in chunks if c.get("chunk", {}).get("type") == "snapshot"}
    assert snaps["meta.explain"] == "E" * 280 and snaps["data.verdict"] == "request_changes"


@pytest.mark.parametrize("proto", PROTOCOLS)
async def test_cancelling_the_consumer_closes_the_request(llm_server: Any, proto: str) -> None:
    module = example("code-reviewer")
    inp, expected = golden("code-reviewer")
    answer = model_answer(expected)
    answer["data"] = {"rationale": expected["data"]["rationale"], **answer["data"]}
    llm_server.enqueue(text(json.dumps(answer), chunk_size=20, delay=0.05))  # ~15 s if left running
    session = RunSession(module, inp, options(provider(proto, llm_server)))
    got_delta = asyncio.Event()
    chunks: list[dict[str, Any]] = []

    async def consume() -> None:
        async for ev in session.events():
            chunks.append(ev.chunk)
            if "chunk" in ev.chunk and ev.chunk["chunk"]["field"] == "data.rationale":
                got_delta.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(got_delta.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert session.result is not None and session.result.outcome == "interrupted"
    env = session.result.envelope
    assert env["error"]["code"] == "E2010"
    assert expected["data"]["rationale"].startswith(env["partial_data"]["rationale"])
    assert not any(chunk_kind(c) in ("final", "error") for c in chunks)  # the consumer went away first
    deadline = time.monotonic() + 5
    while llm_server.open_connections and time.monotonic() < deadline:  # the handler ends once its client hung up
        await asyncio.sleep(0.02)
    assert not llm_server.open_connections, "the provider's HTTP request was left open after cancellation"


@pytest.mark.parametrize("proto", PROTOCOLS)
async def test_a_degraded_stream_that_breaks_keeps_partial_data(tmp_path: Path, llm_server: Any, proto: str) -> None:
    """A sync-only module asked to stream sends no field chunks (STREAM-7), but a break keeps what arrived."""
    folder = copy_module(tmp_path, "json-patch-generator")  # exec: sync only; partial data allowed here
    manifest = folder / "module.yaml"
    manifest.write_text(manifest.read_text().replace("partial_allowed: false", "partial_allowed: true"))
    module = load_module(folder)
    assert module.contract.response_mode.value == "sync" and module.failure["partial_allowed"] is True
    inp, expected = golden("json-patch-generator")
    body = json.dumps(model_answer(expected))
    cut = body.index('"rationale"') + len('"rationale": "') + 12
    partials = []
    for stream_requested in (True, False):
        llm_server.enqueue(disconnect_after(body, cut))
        chunks, result, _ = await collect(
            module, inp, options(provider(proto, llm_server), stream_requested=stream_requested)
        )
        err = assert_failure(result.envelope, "E2010")
        assert err and chunks[-1]["partial_data"] == result.envelope["partial_data"]
        partials.append(result.envelope["partial_data"])
    degraded, plain = partials
    assert degraded == plain
    assert degraded["patch"] == expected["data"]["patch"] and expected["data"]["rationale"].startswith(
        degraded["rationale"]
    )
    assert degraded["rationale"]
