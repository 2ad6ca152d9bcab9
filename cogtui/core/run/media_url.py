"""URL media without becoming an SSRF proxy (split from media_fetch.py).

The host is resolved here, every address checked, and the request connects to
the checked address (Host header and TLS SNI carry the real name), so a DNS
answer that changes between check and connect (rebinding) cannot steer it to
an internal address. Redirects are followed by hand, each one re-checked.
"""

from __future__ import annotations

import asyncio
import base64
import socket
from typing import Any

import httpx

from cogtui.core.module.model import Module
from cogtui.core.rules import media_rules as media
from cogtui.core.rules.media_address import FetchPolicy, IPAddress, _ip, redact_url
from cogtui.core.rules.media_rules import ResolvedMedia
from cogtui.core.run.media_common import MediaError, MediaPath, _limit, _size, _verify
from cogtui.core.run.providers.shared_client import tls_context

# ------------------------------------------------------------ URLs

_REDIRECTS = frozenset({301, 302, 303, 307, 308})
# Content-Types that say nothing about the content: fall through to the extension.
_GENERIC = frozenset({"", "application/octet-stream", "binary/octet-stream", "application/binary"})
_ACCEPT = ", ".join(t for ts in media.ALLOWED.values() for t in ts) + ", */*;q=0.1"


def _new_client(policy: FetchPolicy) -> httpx.AsyncClient:
    # trust_env=False: no proxy from the environment and no .netrc credentials sent to arbitrary hosts.
    # No keep-alive: a pooled TLS connection keyed by IP must not serve a second name it was not verified for.
    return httpx.AsyncClient(
        follow_redirects=False,
        trust_env=False,
        verify=tls_context(trust_env=False),
        timeout=policy.timeout,
        limits=httpx.Limits(max_keepalive_connections=0),
    )


def _parse(url: str, where: MediaPath, shown: str) -> httpx.URL:
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, ValueError, TypeError):
        raise MediaError("E1012", f"{shown} is not a valid URL", where) from None
    if parsed.scheme not in ("http", "https"):
        raise MediaError(
            "E1012", f"only http(s) URLs are fetched, not {parsed.scheme or 'a relative'} URL {shown}", where
        )
    if not parsed.raw_host:
        raise MediaError("E1012", f"{shown} has no host", where)
    return parsed


async def _checked_address(url: httpx.URL, policy: FetchPolicy, where: MediaPath) -> IPAddress:
    """The address to connect to: every address the host resolves to must pass the policy."""
    host = url.raw_host.decode("ascii").lower().rstrip(".")
    if host in policy.blocked_hostnames:
        raise MediaError(
            "E1012", f"{host} is a cloud metadata (link-local/metadata) host; fetching it is blocked", where
        )
    literal = _ip(host)
    if literal is not None:
        addresses = [literal]
    else:
        port = url.port or (443 if url.scheme == "https" else 80)
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (socket.gaierror, UnicodeError) as exc:
            raise MediaError(
                "E1012", f"cannot resolve host {host}: {getattr(exc, 'strerror', None) or exc}", where
            ) from None
        addresses = list(dict.fromkeys(ip for info in infos if (ip := _ip(str(info[4][0]))) is not None))
        if not addresses:
            raise MediaError("E1012", f"host {host} has no usable address", where)
    for ip in addresses:
        label = policy.blocked(ip)
        if label is not None:
            what = f"{ip} is" if literal is not None else f"{host} resolves to {ip},"
            raise MediaError(
                "E1012",
                f"{what} a {label} address; media is only fetched from public addresses",
                where,
                "Use a publicly reachable URL, or pass the file by path.",
            )
    return addresses[0]


def _bracketed(host: str) -> str:
    """An IPv6 literal in brackets, as a URL or Host header needs it."""
    return f"[{host}]" if ":" in host else host


def _request(client: httpx.AsyncClient, url: httpx.URL, ip: IPAddress, auth: str | None) -> httpx.Request:
    """A GET to the checked IP itself, with the real name in Host and (for https) in SNI/certificate checks."""
    port = url.port or (443 if url.scheme == "https" else 80)
    host = url.raw_host.decode("ascii")

    pinned = f"{url.scheme}://{_bracketed(str(ip))}:{port}{url.raw_path.decode('ascii')}"
    headers = {
        "Host": _bracketed(host) + (f":{url.port}" if url.port else ""),
        "Accept": _ACCEPT,
        "Accept-Encoding": "identity",
    }  # identity: the size limit counts real bytes
    if auth:
        headers["Authorization"] = auth
    # httpcore hands sni_hostname to ssl as server_hostname, which also drives certificate hostname checks.
    extensions = {"sni_hostname": host} if url.scheme == "https" and _ip(host) is None else {}
    return client.build_request("GET", pinned, headers=headers, extensions=extensions)


def check_network_allowed(module: Module, shown: str, where: MediaPath) -> None:
    """E4007 when the module's policies deny network access (so its URL media are never fetched)."""
    if not module.policy_allows("network"):
        raise MediaError(
            "E4007",
            f"module {module.name} does not allow network access, so {shown} is not fetched",
            where,
            "Set `policies: {network: allow}` in module.yaml, or pass the file by path (type: file).",
        )


async def _from_url(
    ref: dict[str, Any],
    path: MediaPath,
    module: Module,
    policy: FetchPolicy,
    client: httpx.AsyncClient | None,
    accepted: tuple[str, ...] | None,
) -> ResolvedMedia:
    raw: str = ref["url"]
    shown = redact_url(raw)
    where = (*path, "url")
    check_network_allowed(module, shown, where)
    own = client is None
    http = client if client is not None else _new_client(policy)
    try:
        async with asyncio.timeout(policy.timeout):
            return await _fetch(http, raw, ref, path, policy, shown, accepted)
    except TimeoutError:
        raise MediaError("E1012", f"fetching {shown} took longer than {policy.timeout:g} s", where) from None
    except httpx.HTTPError as exc:
        detail = str(exc) if isinstance(exc, httpx.TransportError) and str(exc) else type(exc).__name__
        raise MediaError("E1012", f"could not fetch {shown}: {detail}", where) from None
    finally:
        if own:
            await http.aclose()


async def _fetch(
    client: httpx.AsyncClient,
    raw: str,
    ref: dict[str, Any],
    path: MediaPath,
    policy: FetchPolicy,
    shown: str,
    accepted: tuple[str, ...] | None,
) -> ResolvedMedia:
    where = (*path, "url")
    url = _parse(raw, where, shown)
    first = url
    # Credentials in the URL go to the origin they were written for, never to a redirect target elsewhere.
    auth = None
    if url.username or url.password:
        auth = "Basic " + base64.b64encode(f"{url.username}:{url.password}".encode()).decode("ascii")
    origin = (url.scheme, url.raw_host, url.port)
    for _hop in range(policy.max_redirects + 1):
        ip = await _checked_address(url, policy, where)
        same_origin = (url.scheme, url.raw_host, url.port) == origin
        request = _request(client, url, ip, auth if same_origin else None)
        try:
            response = await client.send(request, stream=True, follow_redirects=False)
        except httpx.InvalidURL:  # httpx pre-builds the next request and trips on a host-less Location (data:...)
            raise MediaError("E1012", f"{shown} redirected to a URL that cannot be followed", where) from None
        try:
            if response.status_code in _REDIRECTS:
                location = response.headers.get("location")
                if not location:
                    raise MediaError(
                        "E1012", f"{shown} redirected (HTTP {response.status_code}) without a Location", where
                    )
                # Joined against the named URL, not the pinned IP, and re-resolved next round.
                try:
                    target = str(url.join(location))
                except (httpx.InvalidURL, ValueError, TypeError):
                    raise MediaError("E1012", f"{shown} redirected to an invalid URL", where) from None
                url = _parse(target, where, redact_url(target))
                continue
            if not 200 <= response.status_code < 300:
                raise MediaError(
                    "E1012",
                    f"{shown} answered HTTP {response.status_code}",
                    where,
                    "Check the URL; it must be publicly accessible or carry its access token.",
                )
            return await _read_body(response, url, first, ref, path, shown, accepted)
        finally:
            await response.aclose()
    raise MediaError("E1012", f"{shown} redirected more than {policy.max_redirects} times", where)


async def _read_body(
    response: httpx.Response,
    url: httpx.URL,
    first: httpx.URL,
    ref: dict[str, Any],
    path: MediaPath,
    shown: str,
    accepted: tuple[str, ...] | None,
) -> ResolvedMedia:
    where = (*path, "url")
    # media_type: the ref's, else a meaningful Content-Type, else the extension; sniffed only as a last resort.
    mime = media.normalize_mime(ref["media_type"]) if ref.get("media_type") else None
    if mime is None:
        ctype = media.normalize_mime(response.headers.get("content-type", ""))
        mime = ctype if ctype not in _GENERIC else media.mime_from_path(url.path) or media.mime_from_path(first.path)
    if mime is not None:  # before the body: a text/html answer is refused without downloading it
        _check_type(mime, accepted, where, shown)
    # Unknown category ("media"): the largest limit bounds the download; _verify applies the real one after sniffing.
    cat, limit = _limit(mime)
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise MediaError("E1011", f"{shown} is {_size(int(declared))}, over the {_size(limit)} limit for {cat}", where)
    chunks: list[bytes] = []
    total = 0
    async for chunk in response.aiter_bytes():
        total += len(chunk)
        if total > limit:  # stop reading at once; the rest is never downloaded
            raise MediaError("E1011", f"{shown} is over the {_size(limit)} limit for {cat}", where)
        chunks.append(chunk)
    data = b"".join(chunks)
    if mime is None:
        mime = media.sniff(data[:64])
        if mime is None:
            raise MediaError(
                "E1010", f"cannot tell the media type of {shown}", where, 'Add "media_type" to the MediaInput.'
            )
        _check_type(mime, accepted, where, shown)
    _verify(mime, data, where, shown)
    return ResolvedMedia(mime, data, shown, path)


def _check_type(mime: str, accepted: tuple[str, ...] | None, where: MediaPath, shown: str) -> None:
    """A type learnt from the response gets the checks check_media gives a declared one."""
    cat = media.category_of(mime)
    if cat is None:
        raise MediaError(
            "E1010",
            f"{shown} is {mime}, not an accepted media type",
            where,
            "Accepted: " + ", ".join(t for ts in media.ALLOWED.values() for t in ts),
        )
    if accepted is not None and cat not in accepted:
        raise MediaError(
            "E1010", f"the module does not accept {cat} input (modalities.input: {', '.join(accepted)})", where
        )
