"""Which addresses URL media may come from (SSRF policy), and URLs made safe to show.

The address blocks, `address_class`, `FetchPolicy` and `redact_url`, with no
I/O: the runtime (run/media_url.py) judges every address a host resolves to
with them, and `cogn check --kind input` judges what can be told without a
lookup (`refused_without_lookup`) with the same rules.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


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


def _numeric_ipv4(host: str) -> IPAddress | None:
    """The forms a resolver reads as an IPv4 address without asking DNS: 127.1, 0x7f.0.0.1, 2130706433."""
    if not re.fullmatch(r"[0-9a-fx.]+", host):
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


def refused_without_lookup(url: str, policy: FetchPolicy | None = None) -> str | None:
    """Why the runtime will refuse this URL's host, when that needs no DNS lookup: a metadata name,
    a `localhost` name, or a literal address (any spelling) that is not public. None otherwise."""
    from urllib.parse import urlsplit

    try:
        host = (urlsplit(url).hostname or "").rstrip(".").lower()
    except ValueError:
        return None
    if not host:
        return None
    policy = policy or FetchPolicy()
    if host in policy.blocked_hostnames:
        return f"{host} is a cloud metadata (link-local/metadata) host; fetching it is blocked"
    ip = _ip(host) or _numeric_ipv4(host)
    if ip is None and (host == "localhost" or host.endswith(".localhost")):
        ip = ipaddress.IPv4Address("127.0.0.1")  # RFC 6761: always the loopback
    label = policy.blocked(ip) if ip is not None else None
    if label is None:
        return None
    return f"{host} is a {label} address; media is only fetched from public addresses"


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
