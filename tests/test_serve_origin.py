"""`cogtui web` answers only its own pages (SEC-7): a request whose Host is not this server's (DNS rebinding)
or a WebSocket whose Origin is another site's page is refused with 403, on a real server on 127.0.0.1."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cogtui.serve.origin import host_is_served, origin_is_served


@pytest.mark.parametrize(
    ("host", "served"),
    [
        ("localhost:8000", True),
        ("127.0.0.1:8000", True),
        ("[::1]:8000", True),
        ("192.168.1.20:8000", True),  # an address literal: no DNS, so no rebinding
        ("LOCALHOST:8000", True),
        ("evil.example:8000", False),  # the attacker's name, rebound to 127.0.0.1
        ("localhost.evil.example:8000", False),
        ("localhost:8001", False),  # another port: another origin
        ("localhost", False),  # port 80 implied
        ("localhost:80a", False),
        ("user@localhost:8000", False),
        ("", False),
        (None, False),
    ],
)
def test_a_host_is_this_servers_by_name_or_address_and_port(host: str | None, served: bool) -> None:
    assert host_is_served(host, "localhost", 8000) is served


def test_the_host_given_to_serve_is_this_servers() -> None:
    assert host_is_served("box.lan:8000", "box.lan", 8000)
    assert not host_is_served("box.lan:8000", "localhost", 8000)


@pytest.mark.parametrize(
    ("origin", "served"),
    [
        ("http://localhost:8000", True),
        ("http://127.0.0.1:8000", True),  # the page was opened by address, its WebSocket by name
        ("https://localhost:8000", True),
        ("http://evil.example:8000", False),
        ("http://evil.example", False),
        ("http://localhost:3000", False),
        ("null", False),  # a sandboxed frame, a file: page
        ("file://", False),
        ("", False),
        (None, False),
    ],
)
def test_an_origin_is_a_page_of_this_server(origin: str | None, served: bool) -> None:
    assert origin_is_served(origin, "localhost", 8000) is served


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _status(port: int, path: str, headers: dict[str, str]) -> int:
    """The status code the server answers a raw HTTP/1.1 request with (headers as given, Host included)."""
    lines = [f"GET {path} HTTP/1.1", *(f"{k}: {v}" for k, v in headers.items()), "", ""]
    with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
        conn.sendall("\r\n".join(lines).encode("latin-1"))
        head = b""
        while b"\r\n" not in head:
            chunk = conn.recv(4096)
            if not chunk:
                break
            head += chunk
    return int(head.split(b" ", 2)[1])


def _websocket(origin: str, host: str) -> dict[str, str]:
    return {
        "Host": host,
        "Origin": origin,
        "Connection": "Upgrade",
        "Upgrade": "websocket",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
    }


def test_a_real_server_refuses_other_sites_and_answers_its_own_pages(tmp_path: Path) -> None:
    import textual_serve  # noqa: F401  # a dev dependency: without it this fails (and says so), never skips

    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "COGNITIVE_MODULES_PATH"}
    env.update(HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "xdg"), COGTUI_DATA_DIR=str(tmp_path / "data"))
    env["COGTUI_CONFIG_FILE"] = str(tmp_path / "config.yaml")
    server = subprocess.Popen(
        [sys.executable, "-m", "cogtui.cli", "web", "--host", "localhost", "--port", str(port)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: the sessions it starts end with it
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None, server.stderr.read() if server.stderr else ""
                assert time.monotonic() < deadline, "cogtui web did not start listening"
                time.sleep(0.05)
        own, rebound = f"localhost:{port}", f"evil.example:{port}"
        assert _status(port, "/", {"Host": own}) == 200
        assert _status(port, "/", {"Host": rebound}) == 403
        assert _status(port, "/download/x", {"Host": rebound}) == 403
        assert _status(port, "/ws", _websocket(f"http://evil.example:{port}", own)) == 403  # cross-site WebSocket
        assert _status(port, "/ws", _websocket(f"http://{rebound}", rebound)) == 403  # DNS rebinding
        no_origin = _websocket("", own)
        del no_origin["Origin"]
        assert _status(port, "/ws", no_origin) == 403
        assert _status(port, "/ws", _websocket(f"http://{own}", own)) == 101  # its own page's WebSocket
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        _out, err = server.communicate(timeout=30)
    assert "refused GET /" in err and "evil.example" in err
