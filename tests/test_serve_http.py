"""`cogn serve`, the HTTP API (issue 35 item 2), as a real process answering httpx and raw sockets on 127.0.0.1.

Every bundled module's run, under replay, as JSON, SSE and NDJSON: what the server writes passes cogtui's own
checker (`cogn check`'s). Then the routes, the OpenAPI document, and the safety list: the token, the Host and
Origin checks, the size cap, a client that goes away (its run recorded as interrupted).
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from servekit import MODULES, Served, answers, golden, history, module_root, serve_env, wait_for

from cogtui.core.files.json_pointer import resolve_pointer
from cogtui.core.rules.document_checker import check_document
from cogtui.core.rules.stream_text import parse_document
from cogtui.core.workspace import Workspace

BUNDLED = Workspace.from_environment([MODULES])
NAMES = sorted(e.path.name for e in BUNDLED.entries(include_shadowed=False) if e.path.parent == MODULES)
ACCEPT = {"sse": "text/event-stream", "ndjson": "application/x-ndjson"}


@pytest.fixture(scope="module")
def bundled(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One replay server over the bundled modules for the tests that only read and run."""
    tmp = tmp_path_factory.mktemp("serve")
    with Served(tmp, MODULES, "serve", "--no-history", env=serve_env(tmp)) as served:
        yield served


def first_input(name: str) -> Any:
    """Its first golden case's input, else its example's (v0/v1 modules have examples only)."""
    module = BUNDLED.load(name)
    paths = [t.input_path for t in module.tests] + [e.input_path for e in module.examples]
    return json.loads(next(p for p in paths if p is not None).read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", NAMES)
def test_every_bundled_module_answers_as_json_sse_and_ndjson_that_pass_the_checker(bundled: Any, name: str) -> None:
    module = BUNDLED.load(name)
    body = json.dumps(first_input(name))
    with httpx.Client(base_url=bundled.url, timeout=60) as client:
        plain = client.post(f"/modules/{name}/run", content=body)
        assert plain.status_code == 200 and plain.headers["content-type"] == "application/json"
        envelope = plain.json()
        assert check_document(envelope, "envelope", module).valid, envelope
        for transport, media in ACCEPT.items():
            streamed = client.post(f"/modules/{name}/run", content=body, headers={"Accept": media})
            assert streamed.status_code == 200 and streamed.headers["content-type"].startswith(media)
            doc = parse_document(streamed.text)
            assert doc.transport == transport
            verdict = check_document(doc, "stream", module)
            assert verdict.valid, (transport, [v.message for v in verdict.violations])
            last = doc[-1]
            assert last.get("final") is True or last.get("ok") is False
            assert (last.get("data") or last.get("error")) == (envelope.get("data") or envelope.get("error"))


def test_the_routes_say_what_is_served(tmp_path: Path) -> None:
    root = module_root(tmp_path, "code-reviewer", "incident-narrator")
    broken = root / "incident-narrator/schema.json"
    broken.write_text(broken.read_text(encoding="utf-8")[:-30], encoding="utf-8")
    with Served(tmp_path, root, "serve", "--max-body", "2000", env=serve_env(tmp_path)) as served:
        assert "not offered: incident-narrator" in served.log
        with httpx.Client(base_url=served.url, timeout=60) as client:
            health = client.get("/health").json()
            assert health["ok"] is True and health["provider"] == "replay"
            assert health["modules"] == {"offered": 1, "refused": 1}
            listed = {m["name"]: m for m in client.get("/modules").json()["modules"]}
            assert listed["code-reviewer"]["status"] == "offered" and listed["incident-narrator"]["status"] == "refused"
            one = client.get("/modules/code-reviewer").json()
            assert one["manifest"]["name"] == "code-reviewer" and "diff" in one["input_schema"]["properties"]
            assert "verdict" in one["data_schema"]["properties"] and one["diagnostics"] == []
            refused = client.get("/modules/incident-narrator").json()
            assert refused["refused_because"] and refused["diagnostics"][0]["severity"] == "error"

            def problem(response: httpx.Response, status: int, code: str) -> str:
                assert response.status_code == status, response.text
                assert response.json()["ok"] is False and response.json()["error"]["code"] == code
                return str(response.json()["error"]["message"])

            problem(client.get("/modules/nope"), 404, "E4006")
            problem(client.post("/modules/nope/run", content="{}"), 404, "E4006")
            assert "does not validate" in problem(
                client.post("/modules/incident-narrator/run", content="{}"), 409, "E4006"
            )
            problem(client.post("/modules/code-reviewer/run", content="{not json"), 400, "E1000")
            problem(client.post("/modules/code-reviewer/run", content=json.dumps({"diff": "x" * 3000})), 413, "E1005")
            chunked = client.post("/modules/code-reviewer/run", content=iter([b'{"diff": "', b"x" * 3000, b'"}']))
            problem(chunked, 413, "E1005")  # no Content-Length: the cap holds while the body is read
            problem(client.post("/modules/code-reviewer/run?provider=openai", content="{}"), 403, "E4007")
            bad_input = client.post("/modules/code-reviewer/run", content=json.dumps({"diff": 5}))
            assert bad_input.status_code == 200 and bad_input.json()["error"]["code"] == "E1003"  # a run took place

            spec = client.get("/openapi.json").json()
        assert spec["openapi"] == "3.1.0" and list(spec["paths"]) == [
            "/health",
            "/modules",
            "/modules/{name}",
            "/modules/code-reviewer/run",
        ]
        run = spec["paths"]["/modules/code-reviewer/run"]["post"]
        assert run["requestBody"]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/code-reviewer.input"
        }
        assert set(run["responses"]["200"]["content"]) == {"application/json", *ACCEPT.values()}
        refs = []

        def walk(node: Any) -> None:
            if isinstance(node, dict):
                if isinstance(node.get("$ref"), str):
                    refs.append(node["$ref"])
                for value in node.values():
                    walk(value)
            elif isinstance(node, list):
                for value in node:
                    walk(value)

        walk(spec)
        assert refs and all(resolve_pointer(spec, ref[1:])[0] for ref in refs), refs  # every ref lands in the document
        assert served.stop() == 130


def test_the_token_host_and_origin_are_checked(tmp_path: Path) -> None:
    root = module_root(tmp_path, "code-reviewer")
    secret = "s3cret-token-never-logged"
    with Served(tmp_path, root, "serve", env=serve_env(tmp_path, COGTUI_SERVE_TOKEN=secret)) as served:
        port = urlsplit(served.url).port
        with httpx.Client(base_url=served.url, timeout=60) as client:
            assert client.get("/health").status_code == 401
            wrong = client.get("/health", headers={"Authorization": "Bearer guess"})
            assert wrong.status_code == 401 and wrong.headers["www-authenticate"] == "Bearer"
            right = {"Authorization": f"Bearer {secret}"}
            assert client.get("/health", headers=right).status_code == 200
            rebound = client.get("/health", headers={**right, "Host": f"evil.example:{port}"})
            assert rebound.status_code == 403 and rebound.json()["error"]["code"] == "E4007"
            foreign = {**right, "Origin": "https://evil.example"}
            assert client.post("/modules/code-reviewer/run", content="{}", headers=foreign).status_code == 403
            own = {**right, "Origin": f"http://localhost:{port}"}
            assert client.post("/modules/code-reviewer/run", content="{}", headers=own).status_code == 200
        served.stop()
    assert secret not in served.log and "refused GET /health" in served.log


def test_a_client_that_goes_away_cancels_its_run_and_it_is_recorded_as_interrupted(
    tmp_path: Path, llm_server: Any
) -> None:
    root = module_root(tmp_path, "incident-narrator")
    answers(llm_server, delay=0.05, chunk_size=16)  # seconds of answer: the disconnect comes first
    with Served(tmp_path, root, "serve", env=serve_env(tmp_path, llm_server)) as served:
        url = urlsplit(served.url)
        body = json.dumps(golden("incident-narrator")[0]).encode()
        with socket.create_connection((url.hostname or "localhost", url.port or 0), timeout=30) as sock:
            head = (
                f"POST /modules/incident-narrator/run HTTP/1.1\r\nHost: localhost:{url.port}\r\n"
                f"Accept: text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
            )
            sock.sendall(head.encode() + body)
            seen = b""
            while b'"field": "data.' not in seen:  # the model is streaming the data
                seen += sock.recv(4096)

        def recorded() -> list[Any]:
            with history(tmp_path) as h:
                return h.runs()

        (run,) = wait_for(recorded)
        assert run.outcome == "interrupted" and run.error_code == "E2010"
        assert run.envelope["error"]["message"] == "the client went away" and run.envelope["partial_data"]
        assert served.stop() == 130


def test_serve_tui_says_where_the_browser_tui_went(tmp_path: Path) -> None:
    from cli_inprocess import run_cli

    proc = run_cli(["serve", "--tui"], cwd=tmp_path, env=serve_env(tmp_path), timeout=60)
    assert proc.returncode == 2 and "cogtui web" in proc.stderr


def test_a_run_the_history_cannot_take_is_kept_in_its_outbox(tmp_path: Path) -> None:
    """The history's folder cannot be made: the served run is kept, as `cogn run` keeps one, and the log says
    where; the next open of that history records it."""
    from cogtui.core.history.location import parse_location
    from cogtui.core.history.outbox import Outbox

    root = module_root(tmp_path, "code-reviewer")
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the history's folder should be", encoding="utf-8")
    url = f"sqlite://{blocked / 'history.sqlite3'}"
    outbox = Outbox(parse_location(url), tmp_path / "data" / "outbox")
    with Served(tmp_path, root, "serve", env=serve_env(tmp_path, COGTUI_HISTORY_URL=url)) as served:
        with httpx.Client(base_url=served.url, timeout=60) as client:
            body = json.dumps(golden("code-reviewer")[0])
            assert client.post("/modules/code-reviewer/run", content=body).json()["ok"] is True
        wait_for(lambda: "It is kept in" in served.log)
        assert served.stop() == 130
    assert f"the run of code-reviewer was not recorded: cannot open run history {blocked}" in served.log, served.log
    assert f"It is kept in {outbox.path}" in served.log and outbox.waiting() == 1


def test_a_client_that_stops_reading_is_cut_off_at_the_write_timeout(tmp_path: Path, llm_server: Any) -> None:
    """The client takes the response's first bytes, then reads nothing more, its receive buffer small: the
    server's writes stop being taken, and after --write-timeout the run is cancelled and recorded as interrupted,
    while the server answers others as before (SERVE-5)."""
    from llmserver import Text
    from rtkit import model_answer

    from cogtui.serve.responses import STALLED

    root = module_root(tmp_path, "incident-narrator")
    huge = json.loads(json.dumps(golden("incident-narrator")[1]))
    # One field of twice what the kernel may buffer for a socket's sends (at least 8 MB), 1 MiB at a time: more
    # than the socket buffers and uvicorn's hold, so a write waits while the run still streams.
    wmem = Path("/proc/sys/net/ipv4/tcp_wmem")
    most = int(wmem.read_text().split()[-1]) if wmem.exists() else 4 << 20
    huge["data"]["summary"] = "the pool saturated. " * (max(8 << 20, 2 * most) // 20)
    body_text = json.dumps(model_answer(huge))
    llm_server.respond_with(lambda _req: Text(body_text, chunk_size=1 << 20, delay=0.5))
    env = serve_env(tmp_path, llm_server)
    with Served(tmp_path, root, "serve", "--write-timeout", "1", env=env) as served:
        url = urlsplit(served.url)
        body = json.dumps(golden("incident-narrator")[0]).encode()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connecting: a small window
        sock.connect((url.hostname or "localhost", url.port or 0))
        try:
            head = (
                f"POST /modules/incident-narrator/run HTTP/1.1\r\nHost: localhost:{url.port}\r\n"
                f"Accept: text/event-stream\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
            )
            sock.sendall(head.encode() + body)
            assert sock.recv(64).startswith(b"HTTP/1.1 200")  # then nothing more is read

            def recorded() -> list[Any]:
                with history(tmp_path) as h:
                    return h.runs()

            (run,) = wait_for(recorded, timeout=120)
            with httpx.Client(base_url=served.url, timeout=60) as client:  # meanwhile, the server answers
                assert client.get("/health").json()["ok"] is True
        finally:
            sock.close()
        assert run.outcome == "interrupted" and run.error_code == "E2010", run.envelope
        assert run.envelope["error"]["message"] == STALLED.format(s=1.0)
        assert served.stop() == 130
    assert "the client did not take a write for 1 s: its response was ended" in served.log, served.log
    assert "ASGI callable" not in served.log  # said once, in the server's words
