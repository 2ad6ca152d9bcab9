"""cogtui.core.run.media_fetch against real sockets: a stdlib HTTP(S) server on 127.0.0.1, real httpx."""

from __future__ import annotations

import asyncio
import base64
import ipaddress
import os
import socket
import ssl
import struct
import threading
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis_profiles import property_settings
from modkit import make_module
from tlskit import make_cert

from cogtui.core.module.loader import load_module
from cogtui.core.module.model import Module
from cogtui.core.rules import media_rules as media
from cogtui.core.run.media_fetch import FetchPolicy, MediaError, address_class, redact_url, resolve_all, resolve_media


def tiny_png() -> bytes:
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)  # 1x1, 8-bit greyscale
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00\x00")) + chunk(b"IEND", b"")
    )


PNG = tiny_png()
LOCAL = FetchPolicy(allow_hosts=frozenset({"127.0.0.1"}))

# ------------------------------------------------------------------ test server


class Handler(BaseHTTPRequestHandler):
    server: MediaServer

    def log_message(self, *args: Any) -> None:  # keep pytest output clean
        pass

    def send(self, status: int, body: bytes = b"", ctype: str = "image/png", **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", headers.pop("length", str(len(body))))
        for k, v in headers.items():
            self.send_header(k.replace("_", "-"), v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        self.server.requests.append((self.path, dict(self.headers)))
        p = self.path
        try:
            if p in ("/img.png", "/echo"):
                self.send(200, PNG)
            elif p == "/octet":
                self.send(200, PNG, "application/octet-stream")  # no extension either: sniffed
            elif p == "/html.png":
                self.send(200, b"<html>hi</html>", "text/html; charset=utf-8")
            elif p == "/jpeg-lie":
                self.send(200, PNG, "image/jpeg")
            elif p == "/missing":
                self.send(404, b"no", "text/plain")
            elif p.startswith("/go?"):  # /go?to=URL[&...]: to is the rest of the query, unencoded
                self.send(302, Location=p.split("to=", 1)[1])
            elif p == "/loop":
                self.send(302, Location="/loop")
            elif p.startswith("/chain/"):
                n = int(p.rsplit("/", 1)[1])
                self.send(302, Location=f"/chain/{n - 1}") if n else self.send(200, PNG)
            elif p == "/huge":  # no Content-Length: only counting stops it
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.end_headers()
                self.wfile.write(PNG)
                for _ in range(80):  # 5 MB, written lazily
                    self.wfile.write(b"\0" * 65536)
            elif p == "/huge-octet":
                self.send_response(200)
                self.send_header("Content-Type", "application/octet-stream")
                self.end_headers()
                for _ in range(80):
                    self.wfile.write(PNG + b"\0" * 65536)
            elif p == "/padded-octet":
                self.send(200, PNG + b"\0" * (1500 - len(PNG)), "application/octet-stream")
            elif p == "/huge-declared":  # lies about its length: only an early check gives E1011
                self.send(200, PNG, length=str(10**9))
            elif p == "/slow":
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.end_headers()
                self.wfile.flush()
                self.server.release.wait(5)
            else:
                self.send(404)
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
            pass  # the client hung up on purpose


class MediaServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.release = threading.Event()
        self.sni: list[str | None] = []

    @property
    def port(self) -> int:
        return self.server_address[1]

    def url(self, path: str, host: str = "127.0.0.1", scheme: str = "http") -> str:
        return f"{scheme}://{host}:{self.port}{path}"


def serve(server: MediaServer) -> Iterator[MediaServer]:
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.release.set()
        server.shutdown()
        server.server_close()


@pytest.fixture
def srv() -> Iterator[MediaServer]:
    yield from serve(MediaServer())


# ------------------------------------------------------------------ modules

PROMPT = "# Describe\n\nDescribe the image. Return meta (confidence, risk, explain) and data.rationale.\n"
SCHEMA = {
    "input": {"type": "object", "properties": {"image": {"type": "object"}}},
    "data": {"type": "object", "required": ["rationale"], "properties": {"rationale": {"type": "string"}}},
    "meta": {"type": "object", "required": ["confidence", "risk", "explain"]},
}


def build(
    tmp_path: Path,
    policies: dict[str, Any] | None = None,
    inputs: tuple[str, ...] = ("text", "image"),
    files: dict[str, Any] | None = None,
) -> Module:
    manifest: dict[str, Any] = {
        "name": "mod",
        "version": "1.0.0",
        "responsibility": "Describe an image",
        "tier": "decision",
        "excludes": ["editing images"],
        "modalities": {"input": list(inputs), "output": ["text"]},
    }
    if policies is not None:
        manifest["policies"] = policies
    root = make_module(tmp_path, {"module.yaml": manifest, "prompt.md": PROMPT, "schema.json": SCHEMA, **(files or {})})
    return load_module(root)


@pytest.fixture
def net(tmp_path: Path) -> Module:
    return build(tmp_path, {"network": "allow"})


async def fetch_error(url: str, module: Module, policy: FetchPolicy | None = None, **kw: Any) -> MediaError:
    with pytest.raises(MediaError) as info:
        await resolve_media({"type": "url", "url": url, **kw}, ("image",), module, policy=policy)
    return info.value


# ------------------------------------------------------------------ URLs: success


async def test_fetch_png(srv: MediaServer, net: Module) -> None:
    got = await resolve_media({"type": "url", "url": srv.url("/img.png")}, ("image",), net, policy=LOCAL)
    assert (got.mime, got.data, got.path, got.source) == ("image/png", PNG, ("image",), srv.url("/img.png"))
    headers = srv.requests[-1][1]
    assert headers["Host"] == f"127.0.0.1:{srv.port}" and headers["Accept-Encoding"] == "identity"


async def test_v25_spelling_network_allowed(srv: MediaServer, tmp_path: Path) -> None:
    module = build(tmp_path, {"network_allowed": True})
    assert (await resolve_media({"type": "url", "url": srv.url("/img.png")}, (), module, policy=LOCAL)).data == PNG


async def test_redirect_followed_and_octet_stream_sniffed(srv: MediaServer, net: Module) -> None:
    got = await resolve_media({"type": "url", "url": srv.url("/go?to=/octet")}, (), net, policy=LOCAL)
    assert got.mime == "image/png"
    assert [p for p, _ in srv.requests] == ["/go?to=/octet", "/octet"]


async def test_exactly_max_redirects_is_fine_one_more_is_not(srv: MediaServer, net: Module) -> None:
    policy = FetchPolicy(allow_hosts=frozenset({"127.0.0.1"}), max_redirects=3)
    assert (await resolve_media({"type": "url", "url": srv.url("/chain/3")}, (), net, policy=policy)).data == PNG
    err = await fetch_error(srv.url("/chain/4"), net, policy)
    assert err.code == "E1012" and "more than 3" in err.message


async def test_resolve_all_in_order(srv: MediaServer, net: Module, tmp_path: Path) -> None:
    (net.path / "a.png").write_bytes(PNG)
    doc: dict[str, Any] = {
        "text": "x",
        "pics": [
            {"type": "file", "path": "a.png"},
            {"type": "url", "url": srv.url("/img.png")},
            {"type": "base64", "media_type": "image/png", "data": base64.b64encode(PNG).decode()},
        ],
    }
    got = await resolve_all(doc, net, policy=LOCAL)
    assert [(m.path, m.source) for m in got] == [
        (("pics", 0), "a.png"),
        (("pics", 1), srv.url("/img.png")),
        (("pics", 2), "base64"),
    ]
    doc["pics"].append({"type": "url", "url": srv.url("/missing")})
    with pytest.raises(MediaError) as info:
        await resolve_all(doc, net)  # default policy: the first URL already fails
    assert info.value.path == ("pics", 1, "url") and "loopback" in info.value.message


# ------------------------------------------------------------------ URLs: refusals


async def test_default_policy_refuses_loopback(srv: MediaServer, net: Module) -> None:
    err = await fetch_error(srv.url("/img.png"), net)
    assert err.code == "E1012" and "loopback" in err.message
    assert srv.requests == []  # refused before connecting


@pytest.mark.parametrize(
    ("url", "label"),
    [
        ("http://localhost/x.png", "loopback"),
        ("http://[::1]/x.png", "loopback"),
        ("http://[::ffff:127.0.0.1]/x.png", "loopback"),
        ("http://[::ffff:10.1.2.3]/x.png", "private"),
        ("http://[2002:a9fe:a9fe::]/x.png", "metadata"),  # 6to4 of 169.254.169.254
        ("http://[64:ff9b::c0a8:1]/x.png", "private"),  # NAT64 of 192.168.0.1
        ("http://2130706433/x.png", "loopback"),  # decimal 127.0.0.1, as resolvers accept it
        ("http://169.254.169.254/latest/meta-data", "metadata"),
        ("http://[fd00:ec2::254]/", "metadata"),
        ("http://metadata.google.internal/computeMetadata/v1/", "metadata"),
        ("http://10.0.0.1/x.png", "private"),
        ("http://192.168.1.10/x.png", "private"),
        ("http://172.16.5.4/x.png", "private"),
        ("http://100.64.0.1/x.png", "CGNAT"),
        ("http://0.0.0.0/x.png", "unspecified"),
        ("http://224.0.0.1/x.png", "multicast"),
        ("http://[fe80::1]/x.png", "link-local"),
    ],
)
async def test_blocked_addresses(net: Module, url: str, label: str) -> None:
    err = await fetch_error(url, net, FetchPolicy(timeout=2))
    assert err.code == "E1012" and label in err.message, err.message


@pytest.mark.parametrize(
    ("target", "label"), [("http://169.254.169.254/latest/meta-data", "metadata"), ("http://10.0.0.1/", "private")]
)
async def test_redirect_to_internal_refused(srv: MediaServer, net: Module, target: str, label: str) -> None:
    err = await fetch_error(srv.url(f"/go?to={target}"), net, LOCAL)
    assert err.code == "E1012" and label in err.message
    assert len(srv.requests) == 1  # the allowed first hop only


@pytest.mark.parametrize("target", ["file:///etc/passwd", "ftp://example.com/x.png", "data:image/png;base64,AAAA"])
async def test_redirect_to_other_scheme_refused(srv: MediaServer, net: Module, target: str) -> None:
    err = await fetch_error(srv.url(f"/go?to={target}"), net, LOCAL)
    assert err.code == "E1012" and ("only http(s)" in err.message or "cannot be followed" in err.message)


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.com/a.png", "data:image/png;base64,AAAA"])
async def test_other_schemes_refused(net: Module, url: str) -> None:
    assert (await fetch_error(url, net, media_type="image/png")).code == "E1012"


async def test_redirect_loop(srv: MediaServer, net: Module) -> None:
    err = await fetch_error(srv.url("/loop"), net, LOCAL)
    assert err.code == "E1012" and "redirected more than 5" in err.message
    assert len(srv.requests) == 6


@pytest.mark.parametrize("policies", [None, {"network": "deny"}, {"network_allowed": False}])
async def test_network_needs_explicit_allow(srv: MediaServer, tmp_path: Path, policies: dict[str, Any] | None) -> None:
    err = await fetch_error(srv.url("/img.png"), build(tmp_path, policies), LOCAL)
    assert err.code == "E4007" and "policies" in err.suggestion and "path" in err.suggestion
    assert srv.requests == []


async def test_http_status_wrong_type_and_magic(srv: MediaServer, net: Module) -> None:
    err = await fetch_error(srv.url("/missing"), net, LOCAL)
    assert err.code == "E1012" and "404" in err.message
    err = await fetch_error(srv.url("/html.png"), net, LOCAL)
    assert err.code == "E1010" and "text/html" in err.message
    err = await fetch_error(srv.url("/jpeg-lie"), net, LOCAL)
    assert err.code == "E1010" and "image/png, not image/jpeg" in err.message


async def test_modalities_apply_to_a_type_learnt_from_the_response(srv: MediaServer, tmp_path: Path) -> None:
    module = build(tmp_path, {"network": "allow"}, inputs=("text", "audio"))
    err = await fetch_error(srv.url("/octet"), module, LOCAL)
    assert err.code == "E1010" and "does not accept image" in err.message


async def test_oversize_stream_stops(srv: MediaServer, net: Module, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(media.SIZE_LIMITS, "image", 100_000)
    err = await fetch_error(srv.url("/huge"), net, LOCAL)
    assert err.code == "E1011" and "limit for image" in err.message


async def test_unknown_category_uses_largest_limit_then_rechecks(
    srv: MediaServer, net: Module, monkeypatch: pytest.MonkeyPatch
) -> None:
    for cat in media.SIZE_LIMITS:
        monkeypatch.setitem(media.SIZE_LIMITS, cat, 1000)
    monkeypatch.setitem(media.SIZE_LIMITS, "video", 2000)
    err = await fetch_error(srv.url("/huge-octet"), net, LOCAL)
    assert err.code == "E1011" and "2000 bytes limit for media" in err.message
    err = await fetch_error(srv.url("/padded-octet"), net, LOCAL)  # 1500 bytes: under 2000, over image's 1000
    assert err.code == "E1011" and "1000 bytes limit for image" in err.message


async def test_content_length_over_limit_rejected_before_reading(srv: MediaServer, net: Module) -> None:
    err = await fetch_error(srv.url("/huge-declared"), net, LOCAL)
    assert err.code == "E1011" and "953.7 MB" in err.message


async def test_slow_server_times_out(srv: MediaServer, net: Module) -> None:
    # /slow sends its headers and then nothing (for 5 s, then an empty body): E1012 is the fetch's own timer.
    err = await fetch_error(srv.url("/slow"), net, FetchPolicy(allow_hosts=frozenset({"127.0.0.1"}), timeout=0.3))
    assert err.code == "E1012" and "longer than 0.3 s" in err.message


# ------------------------------------------------------------------ DNS: every address, pinned connection


@pytest.fixture
async def fake_dns(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[list[str]]]:
    """Names answered by a scripted resolver: each lookup pops the next answer (the last one repeats)."""
    answers: dict[str, list[list[str]]] = {}
    loop = asyncio.get_running_loop()
    real = loop.getaddrinfo
    lookups: list[str] = []

    async def getaddrinfo(host: Any, port: Any, *args: Any, **kw: Any) -> list[Any]:
        name = host.decode() if isinstance(host, bytes) else host
        if name not in answers:
            return await real(host, port, *args, **kw)
        lookups.append(name)
        ips = answers[name].pop(0) if len(answers[name]) > 1 else answers[name][0]
        return [(socket.AF_INET6 if ":" in ip else socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, port)) for ip in ips]

    monkeypatch.setattr(loop, "getaddrinfo", getaddrinfo)
    answers["__lookups__"] = lookups  # type: ignore[assignment]
    return answers


async def test_connects_to_the_checked_address(srv: MediaServer, net: Module, fake_dns: dict[str, Any]) -> None:
    # A rebinding resolver: public-looking (allowed) first, internal on every later lookup.
    # Success means the request went to the address that was checked, not to a second lookup.
    fake_dns["media.example"] = [["127.0.0.1"], ["10.0.0.1"]]
    url = srv.url("/echo", host="media.example")
    got = await resolve_media({"type": "url", "url": url}, (), net, policy=LOCAL)
    assert got.data == PNG and got.source == url
    assert srv.requests[-1][1]["Host"] == f"media.example:{srv.port}"
    assert fake_dns["__lookups__"] == ["media.example"]


async def test_every_resolved_address_must_pass(net: Module, fake_dns: dict[str, Any]) -> None:
    fake_dns["mixed.example"] = [["93.184.216.34", "10.9.8.7"]]
    err = await fetch_error("http://mixed.example/x.png", net)
    assert err.code == "E1012" and "mixed.example resolves to 10.9.8.7, a private address" in err.message


async def test_credentials_redacted_and_kept_on_their_origin(
    srv: MediaServer, net: Module, fake_dns: dict[str, Any]
) -> None:
    fake_dns["other.example"] = [["127.0.0.1"]]
    url = srv.url("/go?to=" + srv.url("/echo", host="other.example")).replace("://", "://alice:s3cret@", 1)
    got = await resolve_media({"type": "url", "url": url.replace("/go?", "/go?token=abc&")}, (), net, policy=LOCAL)
    assert "s3cret" not in got.source and "abc" not in got.source and "***@" in got.source
    (_, first), (_, second) = srv.requests
    assert first["Authorization"] == "Basic " + base64.b64encode(b"alice:s3cret").decode()
    assert "Authorization" not in second  # another host: credentials stay behind
    err = await fetch_error(url.replace("127.0.0.1", "10.0.0.1"), net)
    assert "s3cret" not in err.message and "s3cret" not in str(err)


def test_redact_url() -> None:
    assert (
        redact_url("http://h.example/go?to=http://bob:pw@x.example/") == "http://h.example/go?to=http://***@x.example/"
    )
    assert (
        redact_url("https://u:p@h.example/a.png?sig=1&w=2&X-Amz-Signature=zz")
        == "https://***@h.example/a.png?sig=***&w=2&X-Amz-Signature=***"
    )
    assert redact_url("https://h.example/a.png") == "https://h.example/a.png"


# ------------------------------------------------------------------ HTTPS: TLS checks the real name


@pytest.fixture
def tls(tmp_path: Path) -> Iterator[tuple[MediaServer, Path]]:
    cert, key = make_cert(tmp_path, "media.example")
    server = MediaServer()
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    ctx.sni_callback = lambda sock, name, _ctx: server.sni.append(name)
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
    yield from ((s, cert) for s in serve(server))


async def test_https_pinned_ip_verifies_the_real_name(
    tls: tuple[MediaServer, Path], net: Module, fake_dns: dict[str, Any]
) -> None:
    server, cert = tls
    fake_dns["media.example"] = [["127.0.0.1"]]
    async with httpx.AsyncClient(verify=ssl.create_default_context(cafile=str(cert)), trust_env=False) as client:
        url = server.url("/img.png", host="media.example", scheme="https")
        got = await resolve_media({"type": "url", "url": url}, (), net, policy=LOCAL, client=client)
        assert got.data == PNG and server.sni == ["media.example"]
        # The same certificate does not pass for another name at the same address.
        fake_dns["wrong.example"] = [["127.0.0.1"]]
        with pytest.raises(MediaError) as info:
            url = server.url("/img.png", host="wrong.example", scheme="https")
            await resolve_media({"type": "url", "url": url}, (), net, policy=LOCAL, client=client)
        assert info.value.code == "E1012" and "CERTIFICATE_VERIFY_FAILED" in info.value.message


# ------------------------------------------------------------------ files


async def test_file_relative_and_absolute(tmp_path: Path) -> None:
    module = build(tmp_path, files={"media/cat.png": PNG})
    got = await resolve_media({"type": "file", "path": "media/cat.png"}, ("image",), module)
    assert (got.mime, got.data, got.source) == ("image/png", PNG, "media/cat.png")
    outside = tmp_path / "elsewhere.png"
    outside.write_bytes(PNG)
    # An absolute path is confined too (issue 11: `/etc/shadow` was opened): only a media root opens it.
    with pytest.raises(MediaError) as info:
        await resolve_media({"type": "file", "path": str(outside)}, (), module)
    assert info.value.code == "E4007"
    got = await resolve_media({"type": "file", "path": str(outside)}, (), module, roots=(tmp_path,))
    assert got.data == PNG


async def test_file_escapes_refused(tmp_path: Path) -> None:
    module = build(tmp_path)
    (tmp_path / "secret.png").write_bytes(PNG)
    for rel in ("../secret.png", "../../etc/passwd.png", "media/../../secret.png"):
        with pytest.raises(MediaError) as info:
            await resolve_media({"type": "file", "path": rel}, (), module)
        assert info.value.code == "E4007" and "outside the module folder" in info.value.message
    (module.path / "link.png").symlink_to(tmp_path / "secret.png")  # a link inside pointing out
    with pytest.raises(MediaError) as info:
        await resolve_media({"type": "file", "path": "link.png"}, (), module)
    assert info.value.code == "E4007"


@pytest.mark.parametrize(
    ("ref", "code", "words"),
    [
        ({"path": "nope.png"}, "E1012", "nope.png does not exist"),
        ({"path": "/dev/zero", "media_type": "image/png"}, "E4007", "outside the module folder"),
        ({"path": "pipe.png"}, "E1012", "not a regular file"),
        ({"path": "a\0b.png"}, "E1012", "cannot be read"),
        ({"path": "cat.png", "media_type": "image/jpeg"}, "E1010", "image/png, not image/jpeg"),
        ({"path": "cat.xyz"}, "E1010", "cannot tell the media type"),
        ({"path": "cat.png", "media_type": "text/plain"}, "E1010", "not an accepted media type"),
        ({"path": "song.mp3"}, "E1010", "does not accept audio"),
    ],
)
async def test_file_failures(tmp_path: Path, ref: dict[str, str], code: str, words: str) -> None:
    module = build(tmp_path, files={"cat.png": PNG, "cat.xyz": PNG, "song.mp3": b"ID3" + bytes(20)})
    os.mkfifo(module.path / "pipe.png")  # a FIFO inside the folder: refused, never opened blocking
    with pytest.raises(MediaError) as info:
        await resolve_media({"type": "file", **ref}, ("x",), module)
    assert info.value.code == code and words in info.value.message, info.value.message


async def test_file_size_checked_by_stat_before_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    module = build(tmp_path)
    with open(module.path / "big.png", "wb") as fh:  # sparse: 200 MB on paper, nothing on disk
        fh.truncate(200 * media.MB)
    reads: list[Any] = []
    monkeypatch.setattr(Path, "open", lambda *a, **k: reads.append(a))
    with pytest.raises(MediaError) as info:
        await resolve_media({"type": "file", "path": "big.png"}, (), module)
    assert info.value.code == "E1011" and "200.0 MB" in info.value.message and reads == []


# ------------------------------------------------------------------ base64


async def test_base64(tmp_path: Path) -> None:
    module = build(tmp_path)
    data = base64.b64encode(PNG).decode()
    got = await resolve_media({"type": "base64", "media_type": "image/png", "data": data}, ("i",), module)
    assert (got.mime, got.data, got.source) == ("image/png", PNG, "base64")
    for ref, code in [
        ({"media_type": "image/png", "data": "not base64!"}, "E1013"),
        ({"media_type": "image/jpeg", "data": data}, "E1010"),
        ({"data": data}, "E1002"),
    ]:
        with pytest.raises(MediaError) as info:
            await resolve_media({"type": "base64", **ref}, ("i",), module)
        assert info.value.code == code


def test_base64_whitespace_is_linear() -> None:
    # media.decode_base64 used to backtrack quadratically on long whitespace runs.
    assert media.decode_base64(" " * 1_000_000 + "!") is None
    assert media.decode_base64("aG k=\n") == b"hi"


# ------------------------------------------------------------------ address rules


def test_allow_hosts_takes_ips_only() -> None:
    with pytest.raises(ValueError):
        FetchPolicy(allow_hosts=frozenset({"localhost"}))


@property_settings(100)
@given(st.integers(0, 2**32 - 1))
def test_ipv6_forms_of_an_ipv4_address_are_judged_as_it(n: int) -> None:
    v4 = ipaddress.IPv4Address(n)
    expected = address_class(v4)
    for v6 in (
        ipaddress.IPv6Address((0xFFFF << 32) | n),  # IPv4-mapped
        ipaddress.IPv6Address((0x2002 << 112) | (n << 80)),  # 6to4
        ipaddress.IPv6Address(int(ipaddress.IPv6Address("64:ff9b::")) | n),
    ):  # NAT64
        assert address_class(v6) == expected


def test_public_addresses_pass() -> None:
    for ip in ("8.8.8.8", "93.184.216.34", "2606:4700:4700::1111"):
        assert address_class(ipaddress.ip_address(ip)) is None
