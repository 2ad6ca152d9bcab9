"""Turning MediaInput references into checked bytes (SPEC-v2.5 §4.2, §11.1).

media.py holds the static rules; this module adds the I/O: decoding base64,
reading local files without leaving the module folder, and fetching URLs
without becoming an SSRF proxy. The URL path resolves the host itself, checks
every address, and connects to the checked address (Host header and TLS SNI
carry the real name), so a DNS answer that changes between check and connect
(rebinding) cannot steer the request to an internal address.
"""

from __future__ import annotations

import asyncio
import base64
import ipaddress
import re
import socket
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from cogtui.core.module.model import Module
from cogtui.core.rules import media_rules as media
from cogtui.core.rules.media_rules import ResolvedMedia

MediaPath = tuple[str | int, ...]
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class MediaError(Exception):
    """A MediaInput that cannot be used; `code` is an error code of error-codes.md."""

    def __init__(self, code: str, message: str, path: MediaPath = (), suggestion: str = "") -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.path = path
        self.suggestion = suggestion


# ------------------------------------------------------------ address policy


def _nets(*rows: tuple[str, str]) -> tuple[tuple[Any, str], ...]:
    return tuple((ipaddress.ip_network(net), label) for net, label in rows)


# First match wins, so narrower blocks come before the ones containing them.
_V4_BLOCKS = _nets(
    ("0.0.0.0/8", "unspecified"),
    ("10.0.0.0/8", "private"),
    ("100.64.0.0/10", "CGNAT (shared)"),
    ("127.0.0.0/8", "loopback"),
    ("169.254.0.0/16", "link-local/metadata"),
    ("172.16.0.0/12", "private"),
    ("192.0.0.0/24", "reserved"),
    ("192.0.2.0/24", "reserved"),
    ("192.88.99.0/24", "reserved"),
    ("192.168.0.0/16", "private"),
    ("198.18.0.0/15", "reserved"),
    ("198.51.100.0/24", "reserved"),
    ("203.0.113.0/24", "reserved"),
    ("224.0.0.0/4", "multicast"),
    ("240.0.0.0/4", "reserved"),
)
_V6_BLOCKS = _nets(
    ("::/128", "unspecified"),
    ("::1/128", "loopback"),
    ("::/96", "reserved"),  # ::/96: IPv4-compatible
    ("64:ff9b:1::/48", "private"),
    ("100::/64", "reserved"),
    ("2001::/32", "reserved"),  # Teredo
    ("2001:db8::/32", "reserved"),
    ("fc00::/7", "private"),
    ("fe80::/10", "link-local/metadata"),
    ("fec0::/10", "private"),
    ("ff00::/8", "multicast"),
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
# AWS/GCP/Azure/OCI, AWS over IPv6, Alibaba (which sits inside CGNAT space).
_METADATA_IPS = frozenset(ipaddress.ip_address(a) for a in ("169.254.169.254", "fd00:ec2::254", "100.100.100.200"))


def address_class(ip: IPAddress) -> str | None:
    """Why `ip` must not be fetched from ("loopback", "private", ...), or None for a public address."""
    if ip in _METADATA_IPS:
        return "link-local/metadata"
    if isinstance(ip, ipaddress.IPv6Address):
        # Forms that carry an IPv4 address reach that address: judge the inner one.
        inner = ip.ipv4_mapped or ip.sixtofour
        if inner is None and ip in _NAT64:
            inner = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if inner is not None:
            return address_class(inner)
    for net, label in _V4_BLOCKS if ip.version == 4 else _V6_BLOCKS:
        if ip in net:
            return label
    # Whatever the stdlib knows beyond the tables above (it grows between releases).
    return None if ip.is_global else "reserved"


def _ip(text: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(text.split("%", 1)[0])  # drop an IPv6 zone id
    except ValueError:
        return None


@dataclass(frozen=True)
class FetchPolicy:
    """Which addresses URL media may come from. The default allows public addresses only."""

    allow_hosts: frozenset[str] = frozenset()  # exact IPs allowed despite the rules (tests, on-prem mirrors)
    timeout: float = 10.0  # seconds for the whole fetch, redirects included
    max_redirects: int = 5
    # Names blocked before any lookup, since a resolver may answer them with anything.
    blocked_hostnames: frozenset[str] = frozenset({"metadata.google.internal", "metadata.goog", "metadata"})
    _allowed: frozenset[IPAddress] = field(init=False, repr=False, compare=False, default=frozenset())

    def __post_init__(self) -> None:
        bad = [h for h in self.allow_hosts if _ip(h) is None]
        if bad:
            raise ValueError(f"allow_hosts takes IP addresses, not {bad[0]!r}")
        object.__setattr__(self, "_allowed", frozenset(_ip(h) for h in self.allow_hosts))

    def blocked(self, ip: IPAddress) -> str | None:
        return None if ip in self._allowed else address_class(ip)


# ------------------------------------------------------------ helpers

_SECRET_PARAM = re.compile(r"(^|&)([^=&]*(?:token|key|secret|sig|signature|pass|auth|credential)[^=&]*)=[^&]*", re.I)


def redact_url(url: str) -> str:
    """The URL with userinfo and credential-looking query values replaced by ***, for messages."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return re.sub(r"^([A-Za-z][\w+.-]*://)[^/?#]*@", r"\1***@", url)
    netloc = "***@" + parts.netloc.rsplit("@", 1)[1] if "@" in parts.netloc else parts.netloc
    query = _SECRET_PARAM.sub(r"\1\2=***", parts.query)
    # A URL nested in the query (a redirector's ?to=) may carry userinfo of its own.
    query = re.sub(r"//[^/?#&@\s]*@", "//***@", query)
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _size(n: int) -> str:
    return f"{n / media.MB:.1f} MB" if n >= media.MB else f"{n} bytes"


def _limit(mime: str | None) -> tuple[str, int]:
    """The category and its size limit; read at call time so tests can shrink SIZE_LIMITS."""
    cat = media.category_of(mime) if mime else None
    return (cat, media.SIZE_LIMITS[cat]) if cat else ("media", max(media.SIZE_LIMITS.values()))


def _verify(mime: str, data: bytes, where: MediaPath, shown: str) -> None:
    """Size within the category limit (E1011) and content matching the declared type (E1010)."""
    cat, limit = _limit(mime)
    if len(data) > limit:
        raise MediaError("E1011", f"{shown} is {_size(len(data))}, over the {_size(limit)} limit for {cat}", where)
    if not media.magic_matches(mime, data[:64]):
        found = media.sniff(data[:64])
        raise MediaError(
            "E1010",
            f"{shown} is {found or 'not a recognised format'}, not {mime}",
            where,
            "Fix media_type, or convert the file to the declared format.",
        )


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
) -> ResolvedMedia:
    """Read one MediaInput into memory, checked. `accepted` defaults to the module's declared modalities.input."""
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
        return await _from_file(ref, path, module)
    return await _from_url(ref, path, module, policy or FetchPolicy(), client, accepted)


async def resolve_all(
    input_value: Any, module: Module, *, policy: FetchPolicy | None = None, client: httpx.AsyncClient | None = None
) -> list[ResolvedMedia]:
    """Every MediaInput in an input document, in document order; the first failure is raised."""
    refs = list(media.find_media(input_value))
    own = client is None and any(ref.get("type") == "url" for _, ref in refs)
    if own:
        client = _new_client(policy or FetchPolicy())
    try:
        accepted = _accepted(module)
        return [
            await resolve_media(ref, path, module, policy=policy, client=client, accepted=accepted)
            for path, ref in refs
        ]
    finally:
        if own and client is not None:
            await client.aclose()


# ------------------------------------------------------------ files


def _read_at_most(path: Path, n: int) -> bytes:
    with path.open("rb") as fh:
        return fh.read(n)


async def _from_file(ref: dict[str, Any], path: MediaPath, module: Module) -> ResolvedMedia:
    given: str = ref["path"]
    where = (*path, "path")
    mime = media.normalize_mime(ref["media_type"]) if ref.get("media_type") else media.mime_from_path(given)
    assert mime is not None  # check_media rejects a path whose type cannot be told
    root = module.path.resolve()
    try:
        if Path(given).is_absolute():
            target = Path(given)  # the user named it; no folder restriction
        else:
            # Resolve symlinks too, so a link inside the folder cannot point out of it. Judged
            # before existence, so probing outside the folder learns nothing.
            target = (root / given).resolve()
            if not target.is_relative_to(root):
                raise MediaError(
                    "E4007",
                    f"{given} is outside the module folder",
                    where,
                    "Relative paths must stay inside the module folder; give an absolute path instead.",
                )
        st = target.stat()
    except FileNotFoundError:
        raise MediaError(
            "E1012", f"file {given} does not exist", where, f"Relative paths are read from the module folder {root}."
        ) from None
    except PermissionError:
        raise MediaError("E1012", f"file {given} is not readable (permission denied)", where) from None
    except (OSError, RuntimeError, ValueError) as exc:  # RuntimeError: symlink loop (3.11/3.12); ValueError: NUL
        raise MediaError("E1012", f"file {given} cannot be read: {exc}", where) from None
    if not stat.S_ISREG(st.st_mode):
        # /dev/zero, FIFOs and directories would block or never end.
        raise MediaError("E1012", f"{given} is not a regular file", where)
    cat, limit = _limit(mime)
    if st.st_size > limit:  # before reading, so an oversize file costs nothing
        raise MediaError("E1011", f"{given} is {_size(st.st_size)}, over the {_size(limit)} limit for {cat}", where)
    try:
        data = await asyncio.to_thread(_read_at_most, target, limit + 1)  # +1: a file that grew since stat
    except OSError as exc:
        raise MediaError("E1012", f"file {given} cannot be read: {exc.strerror or exc}", where) from None
    _verify(mime, data, where, given)
    return ResolvedMedia(mime, data, given, path)


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
    if not module.policy_allows("network"):
        raise MediaError(
            "E4007",
            f"module {module.name} does not allow network access, so {shown} is not fetched",
            where,
            "Set `policies: {network: allow}` in module.yaml, or pass the file by path (type: file).",
        )
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
