"""What every media source shares: the error, size limits and the content check."""

from __future__ import annotations

from cogtui.core.rules import media_rules as media

MediaPath = tuple[str | int, ...]


class MediaError(Exception):
    """A MediaInput that cannot be used; `code` is an error code of error-codes.md."""

    def __init__(self, code: str, message: str, path: MediaPath = (), suggestion: str = "") -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.path = path
        self.suggestion = suggestion


def _size(n: int) -> str:
    return f"{n / media.MB:.1f} MB" if n >= media.MB else f"{n} bytes"


def _limit(mime: str | None) -> tuple[str, int]:
    """The category and its size limit; read at call time so tests can shrink SIZE_LIMITS."""
    cat = media.category_of(mime) if mime else None
    return (cat, media.SIZE_LIMITS[cat]) if cat else ("media", max(media.SIZE_LIMITS.values()))


def _verify(mime: str, data: bytes, where: MediaPath, shown: str) -> None:
    """Size and duration within the category limits (E1011) and content matching the declared type (E1010)."""
    cat, limit = _limit(mime)
    if len(data) > limit:
        raise MediaError("E1011", f"{shown} is {_size(len(data))}, over the {_size(limit)} limit for {cat}", where)
    too_long = media.over_duration(mime, data)
    if too_long:
        raise MediaError("E1011", f"{shown}: {too_long}", where, "Cut the recording, or send a shorter excerpt.")
    if not media.magic_matches(mime, data[:64]):
        found = media.sniff(data[:64])
        raise MediaError(
            "E1010",
            f"{shown} is {found or 'not a recognised format'}, not {mime}",
            where,
            "Fix media_type, or convert the file to the declared format.",
        )
