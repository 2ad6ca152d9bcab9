"""SPEC-v2.5 §4 media limits beyond size: audio/video duration, empty base64, the output MIME table, output base64.

Input: audio plays at most 10 minutes and video 5 (§4.1.1), told from the container's own header
(WAV, MP4/QuickTime, WebM, Ogg, MP3), E1011 over it (RUN-18); base64 that decodes to nothing is E1013
(§4.2.2: `data` MUST be valid base64 of the media, RUN-19). Output: generated media (a MediaOutput object
in `data`) must have a type of the §4.1.2 table, else E1010, and base64 that does not decode is E1013
(ENV-16), in `cogn check` and in a run alike.
"""

from __future__ import annotations

import base64
import json
import struct
import sys
from pathlib import Path
from typing import Any

import pytest
from modkit import clean_v22, make_module, run_cogn

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from modkit import mapping_in
from rtkit import assert_failure, options, provider, set_keys

from cogtui.core.module.loader import load_module
from cogtui.core.module.model import Module
from cogtui.core.rules import media_rules as media
from cogtui.core.rules.document_checker import check_document
from cogtui.core.rules.media_duration import DURATION_LIMITS, duration_seconds
from cogtui.core.run.media_fetch import MediaError, resolve_media
from cogtui.core.run.runner import run_module

# ---------------------------------------------------------------- files of a given length


def wav(seconds: float, rate: int = 1000) -> bytes:
    """8-bit mono PCM: `rate` bytes a second, so an 11-minute file is 660 KB at 1 kHz."""
    body = b"\x80" * int(seconds * rate)
    fmt = struct.pack("<HHIIHH", 1, 1, rate, rate, 1, 8)
    chunks = b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(body)) + body
    return b"RIFF" + struct.pack("<I", 4 + len(chunks)) + b"WAVE" + chunks


def box(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", 8 + len(body)) + kind + body


def mp4(seconds: float, version: int = 0) -> bytes:
    if version == 1:
        mvhd = bytes([1, 0, 0, 0]) + bytes(16) + struct.pack(">IQ", 1000, int(seconds * 1000)) + bytes(80)
    else:
        mvhd = bytes(4) + bytes(8) + struct.pack(">II", 1000, int(seconds * 1000)) + bytes(80)
    return box(b"ftyp", b"isom\x00\x00\x02\x00isommp41") + box(b"moov", box(b"mvhd", mvhd)) + box(b"mdat", b"\x00" * 64)


def ebml(eid: int, body: bytes) -> bytes:
    ident = eid.to_bytes((eid.bit_length() + 7) // 8, "big")
    return ident + bytes([0x01]) + len(body).to_bytes(7, "big") + body  # 8-byte size


def webm(seconds: float) -> bytes:
    info = ebml(0x2AD7B1, (1_000_000).to_bytes(3, "big")) + ebml(0x4489, struct.pack(">d", seconds * 1000))
    return ebml(0x1A45DFA3, ebml(0x4282, b"webm")) + ebml(0x18538067, ebml(0x1549A966, info))


def ogg_opus(seconds: float) -> bytes:
    def page(granule: int, body: bytes) -> bytes:
        return b"OggS\x00\x00" + struct.pack("<q", granule) + bytes(12) + bytes([1, len(body)]) + body

    return page(0, b"OpusHead\x01\x02" + bytes(9)) + page(int(seconds * 48_000), b"\x00" * 10)


def mp3_cbr(seconds: float) -> bytes:
    """MPEG-1 Layer III at 32 kbit/s, 44.1 kHz: the header repeated to the size that plays `seconds`."""
    header = bytes([0xFF, 0xFB, 0x10, 0xC4])
    size = int(seconds * 32_000 / 8)
    return (header + b"\x00" * 100) * (size // 104 + 1)


LONG_AUDIO = DURATION_LIMITS["audio"] + 30
LONG_VIDEO = DURATION_LIMITS["video"] + 30


@pytest.mark.parametrize(
    ("mime", "make", "limit"),
    [
        ("audio/wav", wav, "audio"),
        ("audio/mpeg", mp3_cbr, "audio"),
        ("audio/ogg", ogg_opus, "audio"),
        ("audio/webm", webm, "audio"),
        ("video/mp4", mp4, "video"),
        ("video/quicktime", lambda s: mp4(s, version=1), "video"),
        ("video/webm", webm, "video"),
    ],
)
def test_durations_are_read_from_the_container(mime: str, make: Any, limit: str) -> None:
    short, long = make(12.0), make(DURATION_LIMITS[limit] + 30)
    assert duration_seconds(mime, short) == pytest.approx(12.0, rel=0.02)
    assert duration_seconds(mime, long) == pytest.approx(DURATION_LIMITS[limit] + 30, rel=0.02)
    ref = {"type": "base64", "media_type": mime, "data": base64.b64encode(long).decode()}
    problems = media.check_media(ref, ("clip",))
    assert [p.code for p in problems] == ["E1011"] and "minutes" in problems[0].message
    ok = {"type": "base64", "media_type": mime, "data": base64.b64encode(short).decode()}
    assert media.check_media(ok, ("clip",)) == []


@pytest.mark.parametrize("junk", [b"", b"RIFF", b"\x00" * 40, b"OggS" + b"\xff" * 30, b"\x1a\x45\xdf\xa3\xff\xff"])
@pytest.mark.parametrize("mime", ["audio/wav", "audio/mpeg", "audio/ogg", "video/mp4", "video/webm"])
def test_an_unreadable_header_is_no_duration_and_no_crash(mime: str, junk: bytes) -> None:
    assert duration_seconds(mime, junk) is None


def module_for(tmp_path: Path, inputs: tuple[str, ...] = ("text", "audio", "video")) -> Module:
    files = clean_v22("clips")
    mapping_in(files, "module.yaml")["modalities"] = {"input": list(inputs), "output": ["text"]}
    return load_module(make_module(tmp_path, files, "clips"))


async def test_runtime_refuses_long_media_from_a_file_and_from_base64(tmp_path: Path) -> None:
    module = module_for(tmp_path)
    (module.path / "long.wav").write_bytes(wav(LONG_AUDIO))
    (module.path / "long.mp4").write_bytes(mp4(LONG_VIDEO))
    (module.path / "ok.wav").write_bytes(wav(30))
    for ref in (
        {"type": "file", "path": "long.wav"},
        {"type": "file", "path": "long.mp4"},
        {"type": "base64", "media_type": "audio/wav", "data": base64.b64encode(wav(LONG_AUDIO)).decode()},
    ):
        with pytest.raises(MediaError) as info:
            await resolve_media(ref, ("clip",), module)
        assert info.value.code == "E1011" and "limit" in info.value.message
    got = await resolve_media({"type": "file", "path": "ok.wav"}, ("clip",), module)
    assert got.mime == "audio/wav"


# ---------------------------------------------------------------- empty base64 (RUN-19)


async def test_empty_base64_is_a_decode_failure(tmp_path: Path) -> None:
    for data in ("", "   ", "\n"):
        ref = {"type": "base64", "media_type": "image/png", "data": data}
        assert [p.code for p in media.check_media(ref, ("img",))] == ["E1013"]
        with pytest.raises(MediaError) as info:
            await resolve_media(ref, ("img",), module_for(tmp_path / f"m{len(data)}", ("image",)))
        assert info.value.code == "E1013"


# ---------------------------------------------------------------- output media (ENV-16)

PNG_B64 = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 20).decode()


def envelope_with(media_out: dict[str, Any]) -> dict[str, Any]:
    return {
        "ok": True,
        "meta": {"confidence": 0.9, "risk": "low", "explain": "made a picture"},
        "data": {"rationale": "asked for one", "picture": media_out},
    }


@pytest.mark.parametrize(
    ("out", "code"),
    [
        ({"type": "base64", "media_type": "image/png", "data": PNG_B64}, None),
        ({"type": "url", "media_type": "audio/mpeg", "url": "https://cdn.example.com/a.mp3"}, None),
        ({"type": "url", "media_type": "video/mp4", "url": "https://cdn.example.com/v.mp4"}, None),
        ({"type": "base64", "media_type": "image/gif", "data": PNG_B64}, "E1010"),
        ({"type": "url", "media_type": "video/webm", "url": "https://cdn.example.com/v.webm"}, "E1010"),
        ({"type": "url", "media_type": "application/pdf", "url": "https://cdn.example.com/d.pdf"}, "E1010"),
        ({"type": "base64", "media_type": "image/png", "data": "@@not base64@@"}, "E1013"),
        ({"type": "base64", "media_type": "image/png", "data": ""}, "E1013"),
    ],
)
def test_output_media_follow_the_table(out: dict[str, Any], code: str | None) -> None:
    result = check_document(envelope_with(out), "envelope")
    codes = {v.code for v in result.violations}
    if code is None:
        assert not codes, result.violations
    else:
        assert code in codes and any(v.path[:2] == ("data", "picture") for v in result.violations)


async def test_a_run_whose_output_media_is_unusable_fails_with_the_media_code(
    tmp_path: Path, llm_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_keys(monkeypatch)
    module = module_for(tmp_path, ("text",))
    for out, code in [
        ({"type": "base64", "media_type": "image/png", "data": "%%%"}, "E1013"),
        ({"type": "url", "media_type": "image/bmp", "url": "https://cdn.example.com/a.bmp"}, "E1010"),
    ]:
        answer = envelope_with(out)
        answer["data"]["label"] = "bug"
        llm_server.enqueue(json.dumps(answer))
        result = await run_module(module, {"text": "draw"}, options(provider("anthropic", llm_server)))
        err = assert_failure(result.envelope, code)
        assert "data.picture" in err["message"] and result.envelope["partial_data"]["picture"] == out


def test_cogn_check_reports_output_media(tmp_path: Path) -> None:
    doc = tmp_path / "env.json"
    doc.write_text(json.dumps(envelope_with({"type": "url", "media_type": "image/tiff", "url": "https://x.io/a.tif"})))
    proc = run_cogn(["check", str(doc), "--json"], tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "E1010" in proc.stdout
