"""Multimodal input rules (SPEC-v2.5 §4.1-4.2, §11.1) that need no I/O.

The runtime adds fetching and file reading on top of these; the checker uses
them as they are, so both judge a MediaInput the same way.
"""

from __future__ import annotations

import base64
import binascii
import re
from pathlib import PurePosixPath
from typing import Any

from cogtui.core.module.schema_types import excerpt
from cogtui.core.records import record
from cogtui.core.rules.media_duration import DURATION_LIMITS, duration_seconds
from cogtui.core.rules.media_walk import find_output_media

MB = 1024 * 1024

ALLOWED: dict[str, tuple[str, ...]] = {
    "image": ("image/jpeg", "image/png", "image/webp", "image/gif"),
    "audio": ("audio/mpeg", "audio/wav", "audio/ogg", "audio/webm"),
    "video": ("video/mp4", "video/webm", "video/quicktime"),
    "document": ("application/pdf",),
}
SIZE_LIMITS: dict[str, int] = {"image": 20 * MB, "audio": 25 * MB, "video": 100 * MB, "document": 50 * MB}

EXTENSIONS: dict[str, str] = {
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".png": "image/png",
    ".webp": "image/webp",
    ".gif": "image/gif",
    ".mp3": "audio/mpeg",
    ".wav": "audio/wav",
    ".ogg": "audio/ogg",
    ".weba": "audio/webm",
    ".mp4": "video/mp4",
    ".webm": "video/webm",
    ".mov": "video/quicktime",
    ".pdf": "application/pdf",
}
# Common aliases normalised before the allow-list check.
_ALIASES = {"image/jpg": "image/jpeg", "audio/mp3": "audio/mpeg", "audio/x-wav": "audio/wav", "audio/wave": "audio/wav"}

# Matched against the data with whitespace already removed: the earlier form
# `^[A-Za-z0-9+/\s]*={0,2}\s*$` backtracked quadratically on long whitespace runs.
_B64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")


def normalize_mime(mime: str) -> str:
    mime = mime.split(";", 1)[0].strip().lower()
    return _ALIASES.get(mime, mime)


def category_of(mime: str) -> str | None:
    mime = normalize_mime(mime)
    return next((cat for cat, types in ALLOWED.items() if mime in types), None)


def mime_from_path(path: str) -> str | None:
    return EXTENSIONS.get(PurePosixPath(path.replace("\\", "/")).suffix.lower())


def sniff(head: bytes) -> str | None:
    """The MIME type the first bytes announce, or None when unrecognised."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if head[:4] == b"RIFF" and head[8:12] == b"WAVE":
        return "audio/wav"
    if head.startswith(b"OggS"):
        return "audio/ogg"
    if head.startswith(b"ID3") or (len(head) > 1 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0):
        return "audio/mpeg"
    if head.startswith(b"%PDF-"):
        return "application/pdf"
    if head[4:8] == b"ftyp":
        return "video/quicktime" if head[8:10] == b"qt" else "video/mp4"
    if head.startswith(b"\x1a\x45\xdf\xa3"):
        return "video/webm"  # also audio/webm: matched by category below
    return None


def magic_matches(declared: str, head: bytes) -> bool:
    found = sniff(head)
    if found is None:
        return False
    declared = normalize_mime(declared)
    if found == declared:
        return True
    # Containers shared across categories.
    if found == "video/webm" and declared == "audio/webm":
        return True
    return found in ("video/mp4", "video/quicktime") and declared in ("video/mp4", "video/quicktime")


@record
class ResolvedMedia:
    """A MediaInput read into memory, checked, ready for a provider."""

    mime: str
    data: bytes
    source: str  # the path or URL, for display
    path: tuple[str | int, ...] = ()  # where it sits in the input
    fetched: bool = True  # False: a URL an offline provider (replay) never fetches, so `data` is empty (RUN-20)

    @property
    def category(self) -> str | None:
        return category_of(self.mime)

    def b64(self) -> str:
        return base64.b64encode(self.data).decode("ascii")

    def describe(self) -> str:
        if not self.fetched:
            return f"{self.category or 'media'} {self.source} ({self.mime}, not fetched: offline provider)"
        size = len(self.data)
        shown = f"{size / MB:.1f} MB" if size >= MB else f"{size / 1024:.1f} KB"
        return f"{self.category or 'media'} {self.source} ({self.mime}, {shown})"


@record
class MediaProblem:
    """A media reference that breaks a rule: its E-code, where it is, and why."""

    code: str  # E1001, E1002, E1010, E1011, E1012, E1013
    path: tuple[str | int, ...]
    message: str
    suggestion: str = ""


def decode_base64(data: str) -> bytes | None:
    """The bytes, or None when `data` is not base64 of something: empty data decodes to no media (RUN-19)."""
    if not isinstance(data, str):
        return None
    compact = "".join(data.split())
    if not compact or not _B64.fullmatch(compact):
        return None
    try:
        return base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        return None


def over_duration(mime: str, data: bytes) -> str | None:
    """Why audio or video plays longer than SPEC-v2.5 §4.1.1 allows, or None (also when it cannot be told, RUN-18)."""
    cat = category_of(mime)
    limit = DURATION_LIMITS.get(cat or "")
    if limit is None:
        return None
    seconds = duration_seconds(normalize_mime(mime), data)
    if seconds is None or seconds <= limit:
        return None
    return f"{cat} plays {seconds / 60:.1f} minutes, over the {limit / 60:g} minutes limit"


def check_media(
    ref: dict[str, Any], path: tuple[str | int, ...], accepted: tuple[str, ...] | None = None
) -> list[MediaProblem]:
    """Static checks of one MediaInput. `accepted` is the module's modalities.input, when declared."""
    problems: list[MediaProblem] = []
    kind = ref.get("type")
    declared = ref.get("media_type")
    if declared is not None and not isinstance(declared, str):
        return [MediaProblem("E1003", (*path, "media_type"), "media_type must be a string")]
    mime: str | None = normalize_mime(declared) if declared else None

    if kind == "url":
        url = ref.get("url")
        if not isinstance(url, str) or not url:
            problems.append(MediaProblem("E1002", (*path, "url"), "a url MediaInput needs a url"))
        elif not re.match(r"^https?://", url, re.I):
            problems.append(
                MediaProblem(
                    "E1012",
                    (*path, "url"),
                    f"only http(s) URLs can be fetched, not {url.split(':', 1)[0]}:",
                    "Use an https:// URL, or pass the file by path.",
                )
            )
    elif kind == "base64":
        if mime is None:
            problems.append(
                MediaProblem(
                    "E1002",
                    (*path, "media_type"),
                    "base64 media needs a media_type",
                    'Add e.g. "media_type": "image/png".',
                )
            )
        raw = decode_base64(ref.get("data"))  # type: ignore[arg-type]
        if raw is None:
            empty = isinstance(ref.get("data"), str) and not ref["data"].strip()
            problems.append(
                MediaProblem("E1013", (*path, "data"), "data is empty" if empty else "data is not valid base64")
            )
        elif mime is not None:
            cat = category_of(mime)
            if cat is not None and len(raw) > SIZE_LIMITS[cat]:
                problems.append(
                    MediaProblem(
                        "E1011",
                        (*path, "data"),
                        f"{cat} is {len(raw) / MB:.1f} MB, over the {SIZE_LIMITS[cat] // MB} MB limit",
                    )
                )
            too_long = over_duration(mime, raw)
            if too_long:
                problems.append(MediaProblem("E1011", (*path, "data"), too_long))
            if cat is not None and not magic_matches(mime, raw[:64]):
                found = sniff(raw[:64])
                problems.append(
                    MediaProblem(
                        "E1010", (*path, "data"), f"content is {found or 'not a recognised format'}, not {mime}"
                    )
                )
    elif kind == "file":
        fpath = ref.get("path")
        if not isinstance(fpath, str) or not fpath:
            problems.append(MediaProblem("E1002", (*path, "path"), "a file MediaInput needs a path"))
        elif mime is None:
            mime = mime_from_path(fpath)
            if mime is None:
                problems.append(
                    MediaProblem(
                        "E1010",
                        (*path, "path"),
                        f"cannot tell the media type of {fpath} from its extension",
                        "Use one of: " + ", ".join(sorted(EXTENSIONS)),
                    )
                )
    if mime is not None:
        cat = category_of(mime)
        if cat is None:
            problems.append(
                MediaProblem(
                    "E1010",
                    (*path, "media_type"),
                    f"{mime} is not an accepted media type",
                    "Accepted: " + ", ".join(t for ts in ALLOWED.values() for t in ts),
                )
            )
        elif accepted is not None and cat not in accepted:
            problems.append(
                MediaProblem(
                    "E1010", path, f"the module does not accept {cat} input (modalities.input: {', '.join(accepted)})"
                )
            )
    return problems


# ------------------------------------------------------------ generated media (SPEC-v2.5 §4.1.2, §4.3)

OUTPUT_ALLOWED = ("image/png", "image/jpeg", "image/webp", "audio/mpeg", "audio/wav", "video/mp4")


def check_output_media(data: Any, path: tuple[str | int, ...]) -> list[MediaProblem]:
    """Generated media: a type of the §4.1.2 table (E1010) and, inline, base64 that decodes (E1013) (ENV-16)."""
    problems: list[MediaProblem] = []
    for where, ref in find_output_media(data, path):
        declared = ref.get("media_type")
        mime = normalize_mime(declared) if isinstance(declared, str) else None
        if mime not in OUTPUT_ALLOWED:
            problems.append(
                MediaProblem(
                    "E1010",
                    (*where, "media_type"),
                    f"generated media of type {excerpt(declared)} is not in the output table",
                    "Generated media may be " + ", ".join(OUTPUT_ALLOWED) + " (SPEC-v2.5 §4.1.2).",
                )
            )
        if ref.get("type") == "base64" and decode_base64(ref.get("data")) is None:  # type: ignore[arg-type]
            problems.append(MediaProblem("E1013", (*where, "data"), "generated base64 media does not decode"))
    return problems
