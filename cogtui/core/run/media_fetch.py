"""Turning MediaInput references into checked bytes (SPEC-v2.5 §4.2, §11.1).

media_rules.py holds the static rules; this module adds the I/O: decoding
base64 and reading local files through the confined file layer (inside the
module folder or a configured media root). URLs are fetched by media_url.py
without becoming an SSRF proxy (address policy in media_address.py).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from cogtui.core.files.confined import ConfinementError, ParseFailure, read_confined
from cogtui.core.module.model import Module
from cogtui.core.rules import media_rules as media
from cogtui.core.rules.media_address import FetchPolicy, address_class, redact_url
from cogtui.core.rules.media_rules import ResolvedMedia
from cogtui.core.rules.media_walk import find_media
from cogtui.core.run.media_common import MediaError, MediaPath, _limit, _size, _verify

if TYPE_CHECKING:
    import httpx  # imported by media_url.py, only when an input holds a URL: a run without one needs no HTTP client

__all__ = ["FetchPolicy", "MediaError", "address_class", "redact_url", "resolve_all", "resolve_media"]


def _accepted(module: Module) -> tuple[str, ...] | None:
    # Only a declared modalities.input restricts categories (see media.check_media).
    declared = isinstance(module.modalities, dict) and "input" in module.modalities
    return module.input_modalities if declared else None


# ------------------------------------------------------------ entry points


async def resolve_media(
    ref: dict[str, Any],
    path: MediaPath,
    module: Module,
    *,
    policy: FetchPolicy | None = None,
    client: httpx.AsyncClient | None = None,
    accepted: tuple[str, ...] | None = None,
    roots: tuple[Path, ...] = (),
    fetch_urls: bool = True,
) -> ResolvedMedia:
    """Read one MediaInput into memory, checked. `accepted` defaults to the module's declared modalities.input.

    With `fetch_urls` False (an offline provider: replay), a URL is checked and described but never fetched (RUN-20).
    """
    if accepted is None:
        accepted = _accepted(module)
    problems = media.check_media(ref, path, accepted)
    if problems:
        p = problems[0]
        raise MediaError(p.code, p.message, p.path, p.suggestion)
    kind = ref["type"]
    if kind == "base64":
        mime = media.normalize_mime(ref["media_type"])
        data = media.decode_base64(ref["data"])
        assert data is not None  # check_media reports undecodable data as E1013
        _verify(mime, data, (*path, "data"), "base64 data")
        return ResolvedMedia(mime, data, "base64", path)
    if kind == "file":
        return await _from_file(ref, path, module, roots)
    if not fetch_urls:
        return _unfetched_url(ref, path, module)
    from cogtui.core.run.media_url import _from_url

    return await _from_url(ref, path, module, policy or FetchPolicy(), client, accepted)


async def resolve_all(
    input_value: Any,
    module: Module,
    *,
    policy: FetchPolicy | None = None,
    client: httpx.AsyncClient | None = None,
    roots: tuple[Path, ...] = (),
    fetch_urls: bool = True,
) -> list[ResolvedMedia]:
    """Every MediaInput in an input document, in document order; the first failure is raised."""
    refs = list(find_media(input_value))
    own = fetch_urls and client is None and any(ref.get("type") == "url" for _, ref in refs)
    if own:
        from cogtui.core.run.media_url import _new_client

        client = _new_client(policy or FetchPolicy())
    try:
        accepted = _accepted(module)
        return [
            await resolve_media(
                ref, path, module, policy=policy, client=client, accepted=accepted, roots=roots, fetch_urls=fetch_urls
            )
            for path, ref in refs
        ]
    finally:
        if own and client is not None:
            await client.aclose()


def _unfetched_url(ref: dict[str, Any], path: MediaPath, module: Module) -> ResolvedMedia:
    """A URL for an offline provider: the module's network policy still holds (a real run would be refused the
    same way), but nothing is fetched; the type is the declared one, or the URL's extension's (RUN-20)."""
    raw: str = ref["url"]
    shown = redact_url(raw)
    from cogtui.core.run.media_url import check_network_allowed

    check_network_allowed(module, shown, (*path, "url"))
    declared = ref.get("media_type")
    mime = media.normalize_mime(declared) if isinstance(declared, str) and declared else None
    mime = mime or media.mime_from_path(urlsplit(raw).path) or "application/octet-stream"
    return ResolvedMedia(mime, b"", shown, path, fetched=False)


# ------------------------------------------------------------ files


_REFUSED = {"F001": "E4007", "F003": "E1011"}  # other refusals (FIFO, loop, missing) are E1012


async def _from_file(
    ref: dict[str, Any], path: MediaPath, module: Module, roots: tuple[Path, ...] = ()
) -> ResolvedMedia:
    """A local file, read through the confined layer: inside the module folder or a configured media root."""
    given: str = ref["path"]
    where = (*path, "path")
    mime = media.normalize_mime(ref["media_type"]) if ref.get("media_type") else media.mime_from_path(given)
    assert mime is not None  # check_media rejects a path whose type cannot be told
    root = module.path
    cat, limit = _limit(mime)
    try:
        # Judged after resolving symlinks, before existence, so probing outside the folder learns nothing.
        data = await asyncio.to_thread(read_confined, root / given, root, limit, roots)
    except ConfinementError as exc:
        code = _REFUSED.get(exc.code, "E1012")
        if code == "E4007":
            raise MediaError(
                code,
                f"{given} is outside the module folder",
                where,
                "Media files must be inside the module folder or a media root (media_roots in config.yaml).",
            ) from None
        if code == "E1011":
            raise MediaError(
                code, f"{given} is {_size(exc.size or 0)}, over the {_size(limit)} limit for {cat}", where
            ) from None
        raise MediaError(code, f"file {given} cannot be read: {exc.diagnostic.message}", where) from None
    except ParseFailure as exc:
        raise MediaError(
            "E1012",
            f"file {given} cannot be read: {exc.diagnostic.message}",
            where,
            f"Relative paths are read from the module folder {root}.",
        ) from None
    _verify(mime, data, where, given)
    return ResolvedMedia(mime, data, given, path)
