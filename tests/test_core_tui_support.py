"""Core pieces the TUI stands on: scaffolding, editor file snapshots, unsaved-buffer validation, the chunk assembler."""

from __future__ import annotations

import asyncio
import codecs
import shutil
from pathlib import Path

import pytest

from cogtui.core.authoring.scaffold import ScaffoldError, check_name, create_module
from cogtui.core.files.editor_snapshot import FileSnapshot, changed_on_disk, save_text
from cogtui.core.files.sourcemap import file_overlay
from cogtui.core.module.loader import load_module
from cogtui.core.module.tiers import TIERS
from cogtui.core.rules.validate_module import validate_module, validate_path
from cogtui.core.run.chunk_assembler import StreamAssembler
from cogtui.core.run.providers.replay.provider import ReplayProvider
from cogtui.core.run.runner import RunOptions, RunSession

MODULES = Path(__file__).resolve().parents[1] / "modules"


@pytest.mark.parametrize("tier", TIERS)
def test_scaffolded_module_passes_v22(tmp_path: Path, tier: str) -> None:
    path = create_module(tmp_path / "root", f"new-{tier}", tier)
    module, diagnostics = validate_path(path, v22=True)
    assert module.tier == tier and module.contract.tier.explicit
    assert [d for d in diagnostics if d.severity.value != "info"] == []
    assert module.tests and module.tests[0].declared


def test_scaffold_refuses_bad_names_and_existing_folders(tmp_path: Path) -> None:
    assert check_name("Bad Name", tmp_path) is not None
    assert check_name("../escape", tmp_path) is not None
    create_module(tmp_path, "taken", "decision")
    with pytest.raises(ScaffoldError, match="already exists"):
        create_module(tmp_path, "taken", "decision")
    with pytest.raises(ScaffoldError):
        create_module(tmp_path, "other", "sideways")
    assert not (tmp_path / "other").exists()


def test_snapshot_save_keeps_bom_and_crlf_and_detects_outside_changes(tmp_path: Path) -> None:
    path = tmp_path / "module.yaml"
    path.write_bytes(codecs.BOM_UTF8 + b"name: x\r\nversion: 1.0.0\r\n")
    snap = FileSnapshot.read(path)
    assert snap.text == "name: x\r\nversion: 1.0.0\r\n" and not changed_on_disk(snap)
    new = save_text(snap, snap.text.replace("x", "y"))
    assert path.read_bytes() == codecs.BOM_UTF8 + b"name: y\r\nversion: 1.0.0\r\n"
    assert not changed_on_disk(new)
    path.write_text("name: z\n", encoding="utf-8")  # another program
    assert changed_on_disk(new)
    assert [p.name for p in tmp_path.iterdir()] == ["module.yaml"]  # no temp files left behind


def test_missing_file_snapshot(tmp_path: Path) -> None:
    snap = FileSnapshot.read(tmp_path / "nope.json")
    assert not snap.exists and snap.text == ""
    (tmp_path / "nope.json").write_text("{}", encoding="utf-8")
    assert changed_on_disk(snap)


def test_overlay_validates_unsaved_buffers_without_touching_disk(tmp_path: Path) -> None:
    root = tmp_path / "code-reviewer"
    shutil.copytree(MODULES / "code-reviewer", root)
    manifest = root / "module.yaml"
    before = manifest.read_bytes()
    with file_overlay({manifest: manifest.read_text(encoding="utf-8").replace("tier: decision", "tier: bogus")}):
        codes = {d.code for d in validate_module(load_module(root))}
    assert "M003" in codes
    assert manifest.read_bytes() == before
    assert "M003" not in {d.code for d in validate_module(load_module(root))}


def test_assembler_rebuilds_the_final_envelope_from_replay_chunks() -> None:
    module = load_module(MODULES / "code-reviewer")
    test = module.tests[0]
    session = RunSession(module, test.input, RunOptions(ReplayProvider(interval=0), stream_requested=True))
    assembler = StreamAssembler()

    async def run() -> None:
        async for ev in session.events():
            assembler.feed(ev.chunk)

    asyncio.run(run())
    assert session.result is not None and session.result.ok
    assert assembler.envelope == {
        "ok": True,
        "meta": session.result.envelope["meta"],
        "data": session.result.envelope["data"],
    }
    assert assembler.text("data.rationale") == test.expected["data"]["rationale"]
    assert assembler.data() == test.expected["data"]


def test_assembler_snapshot_resets_a_streamed_field() -> None:
    a = StreamAssembler()
    a.feed({"ok": True, "streaming": True, "session_id": "s", "meta": {"confidence": None}})
    a.feed({"chunk": {"seq": 1, "type": "delta", "field": "data.rationale", "delta": "first try"}})
    changes = a.feed({"chunk": {"seq": 2, "type": "snapshot", "field": "data.rationale", "data": ""}})
    assert changes[0].reset and a.text("data.rationale") == ""
    a.feed({"chunk": {"seq": 3, "type": "delta", "field": "data.rationale", "delta": "second"}})
    assert a.data() == {"rationale": "second"}
    a.feed(
        {
            "ok": False,
            "streaming": True,
            "session_id": "s",
            "meta": {"confidence": 0.0, "risk": "high", "explain": "x"},
            "error": {"code": "E2010", "message": "cut"},
            "partial_data": {"rationale": "second"},
        }
    )
    assert a.envelope and a.envelope["ok"] is False and a.envelope["partial_data"] == {"rationale": "second"}
