"""How long an audio or video file plays, read from its container's own header (SPEC-v2.5 §4.1.1 limits).

Audio may last at most 10 minutes and video 5 (SPEC-v2.5 §4.1.1). The duration
is read without decoding: WAV's byte rate and data size, MP4/QuickTime's `mvhd`
box, Matroska/WebM's Segment Info, Ogg's last granule position (Vorbis, Opus),
MP3's Xing/Info frame count or, for constant bitrate, its size. A file whose
duration cannot be told is not refused for it (RUN-18); every reader is bounded by
the bytes it is given and never raises.
"""

from __future__ import annotations

import struct
from collections.abc import Callable

DURATION_LIMITS: dict[str, float] = {"audio": 10 * 60.0, "video": 5 * 60.0}  # seconds, SPEC-v2.5 §4.1.1

_MAX_BOXES = 10_000  # boxes/elements/chunks walked per file: a crafted file cannot make a reader spin


def duration_seconds(mime: str, data: bytes) -> float | None:
    """Seconds of playback the container declares, or None when it cannot be told."""
    reader = _READERS.get(mime)
    if reader is None:
        return None
    try:
        seconds = reader(data)
    except (struct.error, ValueError, IndexError, OverflowError, ZeroDivisionError):
        return None
    return seconds if seconds is not None and 0 <= seconds < float("inf") else None


# ------------------------------------------------------------ WAV


def _wav(data: bytes) -> float | None:
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        return None
    pos, byte_rate = 12, 0
    for _ in range(_MAX_BOXES):
        if pos + 8 > len(data):
            return None
        cid, size = data[pos : pos + 4], struct.unpack_from("<I", data, pos + 4)[0]
        body = pos + 8
        if cid == b"fmt " and size >= 12:
            byte_rate = struct.unpack_from("<I", data, body + 8)[0]
        elif cid == b"data":
            available = min(size, len(data) - body)  # a header may claim more than the file holds
            return available / byte_rate if byte_rate else None
        pos = body + size + (size & 1)
    return None


# ------------------------------------------------------------ MP4 / QuickTime


def _boxes(data: bytes, start: int, end: int) -> list[tuple[bytes, int, int]]:
    """(type, body start, body end) of the ISO-BMFF boxes in data[start:end]."""
    out: list[tuple[bytes, int, int]] = []
    pos = start
    while pos + 8 <= end and len(out) < _MAX_BOXES:
        size, kind = struct.unpack_from(">I4s", data, pos)
        header = 8
        if size == 1:
            size, header = struct.unpack_from(">Q", data, pos + 8)[0], 16
        elif size == 0:
            size = end - pos
        if size < header:
            break
        out.append((kind, pos + header, min(pos + size, end)))
        pos += size
    return out


def _mp4(data: bytes) -> float | None:
    for kind, start, end in _boxes(data, 0, len(data)):
        if kind != b"moov":
            continue
        for sub, body, _ in _boxes(data, start, end):
            if sub == b"mvhd":
                if data[body] == 1:
                    timescale, duration = struct.unpack_from(">IQ", data, body + 20)
                else:
                    timescale, duration = struct.unpack_from(">II", data, body + 12)
                return duration / timescale if timescale else None
    return None


# ------------------------------------------------------------ Matroska / WebM

_SEGMENT, _INFO, _SCALE, _DURATION = 0x18538067, 0x1549A966, 0x2AD7B1, 0x4489


def _vint(data: bytes, pos: int, keep_marker: bool) -> tuple[int, int]:
    """An EBML variable-length integer at pos: (value, length). Sizes drop the marker bit, IDs keep it."""
    first = data[pos]
    length = next((i + 1 for i in range(8) if first & (0x80 >> i)), 0)
    if length == 0:
        raise ValueError("bad EBML length")
    value = first if keep_marker else first & (0xFF >> length)
    for b in data[pos + 1 : pos + length]:
        value = (value << 8) | b
    if len(data) < pos + length:
        raise ValueError("truncated")
    return value, length


def _elements(data: bytes, start: int, end: int) -> list[tuple[int, int, int]]:
    out: list[tuple[int, int, int]] = []
    pos = start
    while pos < end and len(out) < _MAX_BOXES:
        eid, n = _vint(data, pos, True)
        size, m = _vint(data, pos + n, False)
        body = pos + n + m
        unknown = size == (1 << (7 * m)) - 1  # all ones: "unknown size", runs to the end
        stop = end if unknown else min(body + size, end)
        out.append((eid, body, stop))
        if unknown:
            break
        pos = stop
    return out


def _webm(data: bytes) -> float | None:
    for eid, start, end in _elements(data, 0, len(data)):
        if eid != _SEGMENT:
            continue
        for sub, body, stop in _elements(data, start, end):
            if sub != _INFO:
                continue
            scale, duration = 1_000_000, None
            for field, fbody, fstop in _elements(data, body, stop):
                raw = data[fbody:fstop]
                if field == _SCALE and raw:
                    scale = int.from_bytes(raw, "big")
                elif field == _DURATION and len(raw) in (4, 8):
                    duration = struct.unpack(">f" if len(raw) == 4 else ">d", raw)[0]
            return duration * scale / 1e9 if duration is not None else None
    return None


# ------------------------------------------------------------ Ogg (Vorbis, Opus)


def _ogg(data: bytes) -> float | None:
    if not data.startswith(b"OggS"):
        return None
    head = data[:512]
    if b"OpusHead" in head:
        rate = 48_000  # Opus granule positions always count 48 kHz samples
    elif (i := head.find(b"\x01vorbis")) >= 0:
        rate = struct.unpack_from("<I", head, i + 12)[0]
    else:
        return None
    last = data.rfind(b"OggS")
    granule = struct.unpack_from("<q", data, last + 6)[0]
    return granule / rate if rate and granule >= 0 else None


# ------------------------------------------------------------ MP3

_BITRATES = {  # kbit/s by (MPEG-1?, index), Layer III
    True: (0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320),
    False: (0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160),
}
_RATES = {3: (44_100, 48_000, 32_000), 2: (22_050, 24_000, 16_000), 0: (11_025, 12_000, 8_000)}


def _mp3(data: bytes) -> float | None:
    pos = 0
    if data[:3] == b"ID3" and len(data) >= 10:
        pos = 10 + ((data[6] & 0x7F) << 21 | (data[7] & 0x7F) << 14 | (data[8] & 0x7F) << 7 | (data[9] & 0x7F))
    if pos + 4 > len(data) or data[pos] != 0xFF or data[pos + 1] & 0xE0 != 0xE0:
        return None
    b1, b2 = data[pos + 1], data[pos + 2]
    version, layer = (b1 >> 3) & 3, (b1 >> 1) & 3
    if version == 1 or layer != 1 or (b2 >> 4) in (0, 15) or (b2 >> 2) & 3 == 3:
        return None  # reserved values, or not Layer III
    mpeg1 = version == 3
    rate = _RATES[version][(b2 >> 2) & 3]
    samples = 1152 if mpeg1 else 576
    frame = data[pos : pos + 200]
    for tag in (b"Xing", b"Info"):
        i = frame.find(tag)
        if i >= 0 and struct.unpack_from(">I", frame, i + 4)[0] & 1:
            frames: int = struct.unpack_from(">I", frame, i + 8)[0]
            return frames * samples / rate
    bitrate = _BITRATES[mpeg1][b2 >> 4] * 1000
    return (len(data) - pos) * 8 / bitrate


_READERS: dict[str, Callable[[bytes], float | None]] = {
    "audio/wav": _wav,
    "audio/mpeg": _mp3,
    "audio/ogg": _ogg,
    "audio/webm": _webm,
    "video/webm": _webm,
    "video/mp4": _mp4,
    "video/quicktime": _mp4,
}
