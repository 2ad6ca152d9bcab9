"""Property suite for issue 11: mangled module folders, envelopes, stream bytes and history rows.

For each: no exception escapes; every diagnostic code is in the catalogue and
every envelope error code is a documented one; and nothing outside the module
folder is opened (a tripwire file next to the folder; every os.open and open()
is watched while the core works). Example counts are modest (2-core machine).
"""

from __future__ import annotations

import asyncio
import builtins
import io
import json
import os
import sqlite3
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, example, given
from hypothesis import strategies as st
from hypothesis_profiles import property_settings
from modkit import GOOD_EXPECTED, GOOD_INPUT, clean_v22, make_module

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

import llmserver
from llmserver import RecordedRequest, Text
from rtkit import CountingReplay, options, provider, set_keys

from cogtui.core.diagnostics import CATALOGUE
from cogtui.core.files.confined import MAX_MODULE_FILE_BYTES
from cogtui.core.history.store import History, RunRecord
from cogtui.core.module.loader import load_module
from cogtui.core.rules.error_codes import ERROR_CODES
from cogtui.core.rules.validate_module import validate_module
from cogtui.core.run.runner import RunOptions, run_module

SETTINGS = property_settings(25, shared_fixtures=True)
TRIPWIRE = "TRIPWIRE-5d1e-outside-the-module"

# ---------------------------------------------------------------- the tripwire


@contextmanager
def watching_opens(forbidden: Path) -> Iterator[list[str]]:
    """Every path opened (os.open, open, io.open) while inside; the caller asserts `forbidden` is not one."""
    opened: list[str] = []
    real_os_open, real_open = os.open, builtins.open

    def note(path: Any) -> None:
        if isinstance(path, (str, bytes, os.PathLike)):
            opened.append(os.path.realpath(os.fsdecode(path)))

    def os_open(path: Any, *args: Any, **kwargs: Any) -> int:
        note(path)
        return real_os_open(path, *args, **kwargs)

    def py_open(file: Any, *args: Any, **kwargs: Any) -> Any:
        note(file)
        return real_open(file, *args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(os, "open", os_open)
        mp.setattr(builtins, "open", py_open)
        mp.setattr(io, "open", py_open)
        yield opened
    assert os.path.realpath(forbidden) not in opened, f"{forbidden} was opened"


# ---------------------------------------------------------------- hostile module folders

BOMB = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]\n" for i in range(1, 8)
)
DEEP = "[" * 50_000 + "]" * 50_000

# What a file of the module may be: its content (bytes), or a hostile kind of file.
KINDS = st.sampled_from(
    [
        "keep",
        "outside-link",
        "dev-zero-link",
        "fifo",
        "loop",
        "dangling",
        "directory",
        "sparse-huge",
        "bom-bad-utf8",
        "surrogate-json",
        "deep",
        "huge-number",
        "bomb",
        "escape",
        "random",
    ]
)
FILES = ["module.yaml", "prompt.md", "schema.json", "tests/a.input.json", "tests/a.expected.json"]


def plant(root: Path, rel: str, kind: str, tripwire: Path, noise: bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "keep":
        return
    if path.exists() or path.is_symlink():
        path.unlink()
    if kind == "outside-link":
        path.symlink_to(tripwire)
    elif kind == "dev-zero-link":
        path.symlink_to("/dev/zero")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "loop":
        path.symlink_to(path.with_name(path.name + ".loop"))
        path.with_name(path.name + ".loop").symlink_to(path)
    elif kind == "dangling":
        path.symlink_to(root / "no-such-file")
    elif kind == "directory":
        path.mkdir()
    elif kind == "sparse-huge":
        with open(path, "wb") as fh:
            fh.truncate(MAX_MODULE_FILE_BYTES + 1)
    elif kind == "bom-bad-utf8":
        path.write_bytes(b"\xef\xbb\xbf{\xff\xfe}")
    elif kind == "surrogate-json":
        path.write_text('{"name": "\\ud800", "rationale": "\\udfff"}')
    elif kind == "deep":
        path.write_text(DEEP)
    elif kind == "huge-number":
        path.write_text('{"n": ' + "9" * 5000 + "}")
    elif kind == "bomb":
        path.write_text(BOMB)
    elif kind == "escape":
        path.write_text('name: "\\e]0;pwned\\a"\n' if rel.endswith(".yaml") else "\x1b[2J\x1b]0;x\x07")
    else:
        path.write_bytes(noise)


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    set_keys(monkeypatch)


def documented(envelope: dict[str, Any]) -> bool:
    if envelope.get("ok") is True:
        return True
    code = (envelope.get("error") or {}).get("code")
    return code in ERROR_CODES or code == "PARSE_ERROR"


# A run reads these; a golden's files are read by its own case only (GOLD-4), so they never stop a run.
RUN_READS = ("module.yaml", "prompt.md", "schema.json")
GOLDEN = ("tests/a.input.json", "tests/a.expected.json")
REFUSED = {"outside-link": "F001", "dev-zero-link": "F001", "fifo": "F002", "loop": "F004", "sparse-huge": "F003"}
A_INPUT = {"text": "a"}  # the golden a's input, which the module accepts; the run asks with it
OFTEN_KEPT = st.one_of(st.just("keep"), KINDS)  # a file kept half the time: many runs reach the provider


@SETTINGS
@example(kinds=["keep"] * len(FILES), noise=b"").via("the module as written: the run reaches the provider")
@example(kinds=["keep", "keep", "random", "outside-link", "keep"], noise=b'{"ok":true,"data":{"rationale":"x"}}').via(
    "a golden input linked outside fails its own case (F001), and the run still succeeds (GOLD-4)"
)
@given(kinds=st.lists(OFTEN_KEPT, min_size=len(FILES), max_size=len(FILES)), noise=st.binary(max_size=200))
def test_hostile_module_folders_load_validate_and_run(kinds: list[str], noise: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        tripwire = base / "secret.txt"
        tripwire.write_text(TRIPWIRE)
        files = clean_v22()
        files["tests/a.input.json"] = A_INPUT
        files["tests/a.expected.json"] = GOOD_EXPECTED
        root = make_module(base, files)
        planted = dict(zip(FILES, kinds, strict=True))
        for rel, kind in planted.items():
            plant(root, rel, kind, tripwire, noise)
        provider = CountingReplay()
        with watching_opens(tripwire):
            module = load_module(root)
            diagnostics = validate_module(module)
            result = asyncio.run(run_module(module, A_INPUT, RunOptions(provider)))
        assert all(d.code in CATALOGUE for d in diagnostics)
        shown = (
            json.dumps([d.to_json() for d in diagnostics]) + module.prompt + json.dumps(result.envelope, default=str)
        )
        assert TRIPWIRE not in shown
        assert documented(result.envelope), result.envelope
        event("run reached the provider" if provider.requests else "run stopped before the provider")
        if all(planted[rel] == "keep" for rel in RUN_READS):  # whatever the goldens hold, the run asks
            assert provider.requests >= 1, result.envelope
        for rel in RUN_READS:
            if planted[rel] in REFUSED:  # the run stops before any request, saying why
                assert result.envelope["ok"] is False and result.envelope["error"]["code"].startswith("E4"), rel
                assert provider.requests == 0, rel
        located = {(d.code, Path(d.file).relative_to(root).as_posix()) for d in diagnostics if d.file}
        for rel in GOLDEN:
            if planted[rel] in REFUSED:  # said with its code at its file, never as missing
                assert (REFUSED[planted[rel]], rel) in located, (rel, planted[rel], located)


# ---------------------------------------------------------------- envelopes and stream bytes from a provider

JSONISH = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=20)),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
    max_leaves=20,
)
MODEL_TEXT = st.one_of(
    st.text(max_size=300),
    JSONISH.map(lambda v: json.dumps(v, default=str)),
    st.builds(
        lambda meta, data, extra: json.dumps({"ok": True, "meta": meta, "data": data}) + extra,
        JSONISH,
        JSONISH,
        st.sampled_from(["", "\x1b[2J", "\ud800", "9" * 5000, "{" * 3000]),
    ),
)


def sse_stream(chunks: list[bytes]) -> Any:
    def render(req: RecordedRequest) -> list[Any]:
        head, *_ = llmserver.openai_text(Text("", chunk_size=50), req, None)
        return [head, *chunks]

    return render


STREAM_CHUNK = st.one_of(
    st.binary(max_size=60),
    MODEL_TEXT.map(lambda t: b"data: " + json.dumps({"choices": [{"delta": {"content": t}}]}).encode() + b"\n\n"),
    st.sampled_from([b"data: [DONE]\n\n", b"data: {\n\n", b"\xff\xfe\n\n", b"data: " + b"[" * 5000 + b"\n\n"]),
)


@SETTINGS
@given(chunks=st.lists(STREAM_CHUNK, max_size=6))
def test_mangled_stream_bytes_end_in_a_documented_envelope(
    chunks: list[bytes], llm_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    render = sse_stream(chunks)
    monkeypatch.setattr(llmserver, "plan_steps", lambda reply, proto, req: render(req))
    llm_server.enqueue(*(["x"] * 4))  # the runner may retry or ask once more
    asked = len(llm_server.calls("openai"))
    with tempfile.TemporaryDirectory() as tmp:
        module = load_module(make_module(Path(tmp), clean_v22()))
        opts = options(provider("openai", llm_server), stream_timeout=2.0, deadline=10.0)
        result = asyncio.run(run_module(module, GOOD_INPUT, opts))  # an input the module accepts
    assert len(llm_server.calls("openai")) > asked, result.envelope  # the bytes were streamed to the runner
    assert documented(result.envelope), result.envelope
    json.dumps(result.envelope, ensure_ascii=True)  # serialisable for history and NDJSON


# ---------------------------------------------------------------- history rows

CELL = st.one_of(
    st.none(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False),
    st.text(max_size=30),
    st.binary(max_size=30),
    st.sampled_from(["{", '{"ok": true', "[" * 3000 + "]" * 3000, '{"ok": "\\ud800"}', "null", "9" * 5000]),
    JSONISH.map(lambda v: json.dumps(v, default=str)),
)
RUN_COLUMNS = ["module", "module_version", "module_format", "provider", "model", "input", "args", "envelope"]
RUN_COLUMNS += ["started_at", "ttfc_ms", "total_ms", "usage", "outcome", "session_id"]
NOT_NULL = {"module", "provider", "input", "envelope", "started_at", "outcome"}


def _readers(history: History) -> list[Callable[[], Any]]:
    return [
        lambda: history.runs(),
        lambda: history.runs("mod"),
        lambda: history.get(1),
        lambda: history.count(),
        lambda: history.modules(),
        lambda: history.insights(),
        lambda: history.insight_timeline(),
    ]


@SETTINGS
@given(
    runs=st.lists(st.fixed_dictionaries({c: CELL for c in RUN_COLUMNS}), min_size=1, max_size=4),
    insights=st.lists(st.tuples(CELL, CELL, CELL, CELL, CELL), max_size=4),
)
def test_corrupted_history_rows_never_crash_a_reader(runs: list[dict[str, Any]], insights: list[Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "history.sqlite3"
        with History(path) as history:
            good = RunRecord(
                "mod", "1.0.0", "v2.2", "replay", None, {"x": 1}, None, {"ok": True}, 1.0, None, None, None, "ok"
            )
            history.record(good)
        conn = sqlite3.connect(path)
        conn.execute("PRAGMA ignore_check_constraints = ON")
        for row in runs:
            row = {c: ("" if v is None and c in NOT_NULL else v) for c, v in row.items()}
            cols = ", ".join(row)
            conn.execute(
                f"INSERT INTO runs (input_hash, {cols}) VALUES ('h', {', '.join('?' * len(row))})", [*row.values()]
            )
        for mapping, text, evidence, module, ts in insights:
            conn.execute(
                "INSERT INTO insights (run_id, module, ts, suggested_mapping, text, evidence) VALUES (1, ?, ?, ?, ?, ?)",
                [module if module is not None else "m", ts if ts is not None else 0, mapping, text or "t", evidence],
            )
        conn.commit()
        conn.close()
        with History(path) as history:
            for read in _readers(history):
                json.dumps(read(), default=str)
            listed = history.runs()
            assert any(r.module == "mod" and r.envelope == {"ok": True} for r in listed)  # the good row survives
            assert len(listed) + len(history.skipped) >= 1
