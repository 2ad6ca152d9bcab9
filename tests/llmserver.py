"""Scripted LLM HTTP server (stdlib only) so providers are tested through the real SDKs.

Speaks Anthropic Messages (POST .../messages) and OpenAI chat completions (POST
.../chat/completions), streaming or not, and Anthropic's token count (POST .../messages/count_tokens:
`token_count(body)`, characters / 4 unless a test sets it; a count consumes no queued reply). Each request consumes the next queued reply
(FIFO), rendered in the protocol of the path hit; with the queue empty, a responder set by
`respond_with(fn)` answers (fn(request) -> reply), else 500 "script exhausted". Every request
is recorded and counted (`request_count`); `max_in_flight` is the most requests it was answering
at once. Usage: see tests/test_llmserver.py.
"""

from __future__ import annotations

import dataclasses
import json
import socket
import socketserver
import ssl
import sys
import threading
import time
import traceback
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal

Protocol = Literal["anthropic", "openai"]

_DEFAULT_KINDS = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
_FINISH_REASONS = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "tool_use": "tool_calls"}

# --------------------------------------------------------------------------- replies
# The dataclasses double as constructors: text(...), error(...), disconnect_after(...).


@dataclass
class Text:
    """A normal answer. `chunk_size` and `delay` (between deltas) only matter when streaming."""

    body: str
    chunk_size: int = 8
    delay: float = 0.0
    stop_reason: str = "end_turn"
    input_tokens: int | None = None  # usage defaults to a chars/4 estimate
    output_tokens: int | None = None

    def __post_init__(self) -> None:
        if self.chunk_size < 1:
            raise ValueError("chunk_size must be >= 1")


@dataclass
class Error:
    """An API error in the protocol's shape; `kind` defaults from the status (429 -> rate_limit_error)."""

    status: int
    kind: str = ""
    message: str = ""
    retry_after: float | None = None  # seconds; fractions allowed (the SDK parses floats)

    def __post_init__(self) -> None:
        self.kind = self.kind or _DEFAULT_KINDS.get(
            self.status, "api_error" if self.status >= 500 else "invalid_request_error"
        )
        self.message = self.message or f"scripted {self.kind}"


@dataclass
class Disconnect:
    """Stream the first `n_chars` of `body` as deltas, then close the socket mid-body."""

    body: str
    n_chars: int
    chunk_size: int = 8


@dataclass
class Silence:
    """Send nothing for `seconds`, then `then` (or close the connection when it is None)."""

    seconds: float
    then: Reply | None = None
    after_headers: bool = False


Reply = Text | Error | Disconnect | Silence
text, error, disconnect_after, silence_before_headers = Text, Error, Disconnect, Silence


def silence_after_headers(seconds: float, then: Text | None = None) -> Silence:
    """200 + SSE headers (+ Anthropic message_start when streaming), then a stall."""
    if then is not None and not isinstance(then, Text):  # the status line is already out
        raise TypeError("silence_after_headers can only continue with a text() reply")
    return Silence(seconds, then, after_headers=True)


silence = silence_before_headers


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str  # without the query string
    query: str
    headers: dict[str, str]  # keys lower-cased
    body: Any  # parsed JSON; None when absent or malformed
    raw_body: bytes
    protocol: Protocol | None
    received_at: float = 0.0  # time.monotonic() when the request was read
    # (read, written) tokens the server's simulated prompt cache reported for this request (PromptCache).
    prompt_cache: tuple[int, int] = (0, 0)

    @property
    def stream(self) -> bool:
        return isinstance(self.body, dict) and bool(self.body.get("stream"))

    @property
    def model(self) -> str | None:
        return self.body.get("model") if isinstance(self.body, dict) else None

    def param(self, name: str) -> Any:
        """A top-level field of the JSON body (e.g. "response_format", "output_config"); None when absent."""
        return self.body.get(name) if isinstance(self.body, dict) else None

    @property
    def system_blocks(self) -> list[dict[str, Any]]:
        """Anthropic: the system prompt as content blocks (a plain string becomes one block without cache_control)."""
        system = self.param("system")
        if isinstance(system, str):
            return [{"type": "text", "text": system}]
        return [b for b in system if isinstance(b, dict)] if isinstance(system, list) else []


class PromptCache:
    """Prompt caching as the APIs report it, with token counts estimated as characters / 4.

    Anthropic: the prefix is the system blocks up to the last one carrying `cache_control`. The
    first request with a prefix writes it (usage.cache_creation_input_tokens), later ones read it
    (cache_read_input_tokens), and neither counts in input_tokens. OpenAI caches automatically: the
    system message is the prefix, and a request whose prefix was seen reports it as
    prompt_tokens_details.cached_tokens, included in prompt_tokens. Prefixes under `min_tokens`
    (Anthropic's minimum for Sonnet models, 1024) are never cached, as with the real APIs. Only a
    request answered with text counts. Off until `enable()`d, so other tests' token counts stay
    as they script them.
    """

    def __init__(self) -> None:
        self.enabled = False
        self.min_tokens = 1024
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def enable(self, min_tokens: int = 1024) -> None:
        self.enabled, self.min_tokens = True, min_tokens

    def account(self, proto: Protocol | None, body: Any) -> tuple[int, int]:
        """(tokens read, tokens written) for this request; remembers its prefix."""
        if not self.enabled:
            return 0, 0
        prefix = _cached_prefix(proto, body)
        tokens = len(prefix) // 4 if prefix else 0
        if not prefix or tokens < self.min_tokens:
            return 0, 0
        key = f"{proto}\0{body.get('model')}\0{prefix}"
        with self._lock:
            if key in self._seen:
                return tokens, 0
            self._seen.add(key)
        # OpenAI never reports a write: the first request just pays full price.
        return (0, tokens) if proto == "anthropic" else (0, 0)


def _cached_prefix(proto: Protocol | None, body: Any) -> str:
    if not isinstance(body, dict):
        return ""
    if proto == "anthropic":
        blocks = body.get("system")
        if not isinstance(blocks, list):
            return ""
        marked = [i for i, b in enumerate(blocks) if isinstance(b, dict) and b.get("cache_control")]
        return "".join(str(b.get("text", "")) for b in blocks[: marked[-1] + 1]) if marked else ""
    messages = body.get("messages")
    first = messages[0] if isinstance(messages, list) and messages else None
    if isinstance(first, dict) and first.get("role") == "system" and isinstance(first.get("content"), str):
        return str(first["content"])
    return ""


# --------------------------------------------------------------------------- rendering
# A reply renders into a plan: steps the handler runs in order. A float is a pause, None
# an abrupt close, bytes a body piece. Protocol shapes stay pure data, and pauses/aborts
# can sit anywhere, even before the status line.


@dataclass(frozen=True)
class Head:
    status: int
    headers: tuple[tuple[str, str], ...]
    chunked: bool


_Step = Head | bytes | float | None


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def _rid() -> str:
    return f"req_{uuid.uuid4().hex[:24]}"


def _json_plan(status: int, obj: Any, extra: tuple[tuple[str, str], ...] = ()) -> list[_Step]:
    data = _dumps(obj).encode()
    return [
        Head(status, (("Content-Type", "application/json"), ("Content-Length", str(len(data))), *extra), chunked=False),
        data,
    ]


def _sse_head(id_header: tuple[str, str]) -> Head:
    return Head(200, (("Content-Type", "text/event-stream; charset=utf-8"), id_header), chunked=True)


def _deltas(reply: Text, upto: int | None, render: Callable[[str], bytes]) -> list[_Step]:
    body = reply.body if upto is None else reply.body[:upto]
    steps: list[_Step] = []
    for i in range(0, len(body), reply.chunk_size):
        if i and reply.delay:
            steps.append(float(reply.delay))
        steps.append(render(body[i : i + reply.chunk_size]))
    return steps


def _usage(reply: Text, req: RecordedRequest) -> tuple[int, int]:
    prompt = req.body.get("messages", "") if isinstance(req.body, dict) else ""
    inp = reply.input_tokens if reply.input_tokens is not None else max(1, len(_dumps(prompt)) // 4)
    out = reply.output_tokens if reply.output_tokens is not None else max(1, len(reply.body) // 4)
    return inp, out


def anthropic_text(reply: Text, req: RecordedRequest, upto: int | None) -> list[_Step]:
    rid, mid, model = _rid(), f"msg_{uuid.uuid4().hex[:24]}", req.model or "claude-test"
    inp, out = _usage(reply, req)
    read, written = req.prompt_cache
    usage = {"input_tokens": inp, "cache_creation_input_tokens": written, "cache_read_input_tokens": read}
    if not req.stream:
        return _json_plan(
            200,
            {
                "id": mid,
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [{"type": "text", "text": reply.body}],
                "stop_reason": reply.stop_reason,
                "stop_sequence": None,
                "usage": {**usage, "output_tokens": out},
            },
            (("request-id", rid),),
        )

    def ev(name: str, **data: Any) -> bytes:
        return f"event: {name}\ndata: {_dumps({'type': name, **data})}\n\n".encode()

    start: dict[str, Any] = {
        "id": mid,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {**usage, "output_tokens": 1},
    }
    steps: list[_Step] = [
        _sse_head(("request-id", rid)),
        ev("message_start", message=start),
        ev("content_block_start", index=0, content_block={"type": "text", "text": ""}),
        ev("ping"),
        *_deltas(reply, upto, lambda t: ev("content_block_delta", index=0, delta={"type": "text_delta", "text": t})),
    ]
    if upto is None:
        steps += [
            ev("content_block_stop", index=0),
            ev(
                "message_delta",
                delta={"stop_reason": reply.stop_reason, "stop_sequence": None},
                usage={"output_tokens": out},
            ),
            ev("message_stop"),
        ]
    return steps


def openai_text(reply: Text, req: RecordedRequest, upto: int | None) -> list[_Step]:
    rid, model = _rid(), req.model or "gpt-test"
    inp, out = _usage(reply, req)
    cached = min(req.prompt_cache[0], inp)
    usage = {
        "prompt_tokens": inp,
        "completion_tokens": out,
        "total_tokens": inp + out,
        "prompt_tokens_details": {"cached_tokens": cached},
    }
    finish = _FINISH_REASONS.get(reply.stop_reason, reply.stop_reason)
    base = {
        "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
        "created": int(time.time()),
        "model": model,
        "system_fingerprint": None,
    }
    if not req.stream:
        return _json_plan(
            200,
            {
                **base,
                "object": "chat.completion",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": reply.body, "refusal": None},
                        "logprobs": None,
                        "finish_reason": finish,
                    }
                ],
                "usage": usage,
            },
            (("x-request-id", rid),),
        )

    opts = req.body.get("stream_options") if isinstance(req.body, dict) else None
    include_usage = isinstance(opts, dict) and bool(opts.get("include_usage"))

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
        choices = [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}]
        obj: dict[str, Any] = {**base, "object": "chat.completion.chunk", "choices": choices}
        if include_usage:  # OpenAI then sends "usage": null on every chunk but the usage one
            obj["usage"] = None
        return f"data: {_dumps(obj)}\n\n".encode()

    steps: list[_Step] = [
        _sse_head(("x-request-id", rid)),
        chunk({"role": "assistant", "content": ""}),
        *_deltas(reply, upto, lambda t: chunk({"content": t})),
    ]
    if upto is None:
        steps.append(chunk({}, finish))
        if include_usage:
            tail = {**base, "object": "chat.completion.chunk", "choices": [], "usage": usage}
            steps.append(f"data: {_dumps(tail)}\n\n".encode())
        steps.append(b"data: [DONE]\n\n")
    return steps


_TEXT_RENDERERS = {"anthropic": anthropic_text, "openai": openai_text}


def _error_plan(reply: Error, proto: Protocol) -> list[_Step]:
    rid = _rid()
    extra = [("request-id" if proto == "anthropic" else "x-request-id", rid)]
    if reply.retry_after is not None:
        ra = float(reply.retry_after)
        extra.append(("retry-after", str(int(ra)) if ra.is_integer() else str(ra)))
    if proto == "anthropic":
        body: dict[str, Any] = {
            "type": "error",
            "error": {"type": reply.kind, "message": reply.message},
            "request_id": rid,
        }
    else:
        body = {"error": {"message": reply.message, "type": reply.kind, "param": None, "code": None}}
    return _json_plan(reply.status, body, tuple(extra))


def plan_steps(reply: Reply, proto: Protocol, req: RecordedRequest) -> list[_Step]:
    render = _TEXT_RENDERERS[proto]
    if isinstance(reply, Text):
        return render(reply, req, None)
    if isinstance(reply, Error):
        return _error_plan(reply, proto)
    if isinstance(reply, Disconnect):
        steps = render(Text(reply.body, reply.chunk_size), req, reply.n_chars)
        if not req.stream:  # announce the full Content-Length, deliver half of it
            head, data = steps
            assert isinstance(data, bytes)
            return [head, data[: len(data) // 2], None]
        return [*steps, None]
    if not reply.after_headers:
        return [float(reply.seconds), *(plan_steps(reply.then, proto, req) if reply.then else [None])]
    steps = render(reply.then if isinstance(reply.then, Text) else Text(""), req, None)
    cut = 2 if proto == "anthropic" and req.stream else 1  # stall after message_start, like a slow first token
    return [*steps[:cut], float(reply.seconds), *(steps[cut:] if reply.then else [None])]


# --------------------------------------------------------------------------- HTTP plumbing


class _Handler(BaseHTTPRequestHandler):
    answering = False  # between a request's record and the last byte of its answer
    protocol_version = "HTTP/1.1"  # keep-alive and chunked bodies, like the real APIs
    # TCP_NODELAY, like the real APIs' servers: a small write (the chunked body's end) goes out at once instead of
    # waiting for the client's delayed ACK (~40 ms), which a reused keep-alive connection would otherwise pay.
    disable_nagle_algorithm = True
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep pytest output clean

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))  # SDKs never send chunked bodies
        path, _, query = self.path.partition("?")
        proto: Protocol | None = (
            "openai" if path.endswith("/chat/completions") else "anthropic" if path.endswith("/messages") else None
        )
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        owner = self.server.owner
        req = RecordedRequest(
            self.command,
            path,
            query,
            {k.lower(): v for k, v in self.headers.items()},
            body,
            raw,
            proto,
            received_at=time.monotonic(),
        )
        reply, n, req = owner._record(req)
        self.answering = True
        try:
            self._answer(owner, req, proto, reply, n)
        finally:
            self._finish()

    def _finish(self) -> None:
        """The request is answered: from just before its last byte is written (so a client that reads the end and
        sends its next request at once is never seen as one request too many in flight, however late this thread
        runs again), or when the answer stopped early."""
        if self.answering:
            self.answering = False
            self.server.owner._finished()

    def _answer(
        self, owner: ScriptedLLMServer, req: RecordedRequest, proto: Protocol | None, reply: Reply | None, n: int
    ) -> None:
        path = req.path
        if path.endswith("/messages/count_tokens"):
            counted = owner.token_count(req.body)
            plan = (
                _json_plan(200, {"input_tokens": counted})
                if isinstance(counted, int)
                else _error_plan(counted, "anthropic")
            )
        elif proto is None:
            plan = _error_plan(
                Error(404, message=f"ScriptedLLMServer: no route for {self.command} {path}"), "anthropic"
            )
        elif reply is None:
            plan = _error_plan(
                Error(
                    500,
                    "api_error",
                    f"ScriptedLLMServer: script exhausted (no reply queued for request #{n} {self.command} {path})",
                ),
                proto,
            )
        else:
            try:
                plan = plan_steps(reply, proto, req)
            except Exception:  # noqa: BLE001 - a scripting bug: answer loudly rather than hang the client
                owner.errors.append(traceback.format_exc())
                plan = _error_plan(Error(500, "api_error", "ScriptedLLMServer: failed to render reply"), proto)
        self._run(plan)

    do_GET = do_POST  # unknown routes are still recorded, and answered 404

    def _run(self, plan: list[_Step]) -> None:
        chunked = ended = False
        try:
            for index, step in enumerate(plan):
                if step is None:
                    return self._abort()
                if isinstance(step, float):
                    # Wait on the stop event, not time.sleep, so shutdown never waits on a pause.
                    if self.server.stopping.wait(step):
                        return self._abort()
                elif isinstance(step, Head):
                    self.send_response(step.status)
                    for name, value in step.headers:
                        self.send_header(name, value)
                    if step.chunked:
                        self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    chunked = step.chunked
                else:  # wfile is unbuffered, so each piece hits the wire at once
                    last = index == len(plan) - 1
                    if last:
                        self._finish()
                    if not chunked:
                        self.wfile.write(step)
                        continue
                    # A chunked body's end goes out with its last chunk, as a server writing its answer in one go
                    # sends it: a client that reads `[DONE]` finds the end with it, however late this thread runs
                    # again (a plan that ends on a pause sends the end after it, late on purpose).
                    ended = last
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(step), step) + (b"0\r\n\r\n" if last else b""))
            if chunked and not ended:
                self._finish()
                self.wfile.write(b"0\r\n\r\n")
        except OSError:  # the client hung up (e.g. its timeout fired) or we are stopping
            self.close_connection = True

    def _abort(self) -> None:
        # FIN without the chunked terminator / full Content-Length: clients see a truncated body.
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # stop() joins handler threads itself, with a deadline

    def __init__(self, owner: ScriptedLLMServer, host: str) -> None:
        self.owner = owner
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.conns: set[socket.socket] = set()
        self.threads: set[threading.Thread] = set()
        self.accepted = 0  # connections accepted since start
        super().__init__((host, 0), _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind calls socket.getfqdn(), a DNS lookup that can stall.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = str(self.server_address[0]), int(self.server_address[1])

    def process_request(self, request: Any, client_address: Any) -> None:
        t = threading.Thread(
            target=self._serve_conn,
            args=(request, client_address),
            daemon=True,
            name=f"llmserver-conn-{client_address[1]}",
        )
        with self.lock:
            self.conns.add(request)
            self.threads.add(t)
            self.accepted += 1
        t.start()

    def _serve_conn(self, request: Any, client_address: Any) -> None:
        try:
            self.finish_request(request, client_address)
        except Exception:  # noqa: BLE001 - like socketserver: any handler failure is reported, never kills the server
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)
            with self.lock:
                self.conns.discard(request)
                self.threads.discard(threading.current_thread())

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], OSError):  # hang-ups are routine here; bugs are not
            self.owner.errors.append(traceback.format_exc())


class ScriptedLLMServer:
    """HTTP server on 127.0.0.1:<ephemeral port>, served from a background thread."""

    def __init__(self, host: str = "127.0.0.1", tls: tuple[Path, Path] | None = None) -> None:
        self._host = host
        self._tls = tls  # (certificate, key): serve HTTPS with them
        self._cond = threading.Condition()
        self._queue: deque[Reply] = deque()
        self._requests: list[RecordedRequest] = []
        self.errors: list[str] = []  # tracebacks of server-side bugs; fixtures assert it stays empty
        self.prompt_cache = PromptCache()  # tests may lower prompt_cache.min_tokens
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._responder: Callable[[RecordedRequest], Reply | str] | None = None
        self._in_flight = 0
        self._max_in_flight = 0
        # Anthropic's count_tokens: the count for a request body (an Error to answer with one instead).
        self.token_count: Callable[[Any], int | Error] = lambda body: max(1, len(_dumps(body)) // 4)

    def start(self) -> ScriptedLLMServer:
        if self._httpd is None:
            self._httpd = _HTTPServer(self, self._host)
            if self._tls is not None:
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                context.load_cert_chain(*self._tls)
                self._httpd.socket = context.wrap_socket(self._httpd.socket, server_side=True)
            self._thread = threading.Thread(
                target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True, name="llmserver"
            )
            self._thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        httpd.stopping.set()  # wakes every scripted pause
        httpd.shutdown()  # no new connections once this returns
        with httpd.lock:
            conns, threads = list(httpd.conns), list(httpd.threads)
        for conn in conns:  # unblock handlers stuck in recv/send (idle keep-alive, stalled clients)
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        deadline = time.monotonic() + timeout
        for t in [*threads, self._thread]:
            if t is not None:
                t.join(max(0.0, deadline - time.monotonic()))
        httpd.server_close()

    def __enter__(self) -> ScriptedLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        """For anthropic.Anthropic(base_url=...): the SDK appends /v1/messages."""
        if self._httpd is None:
            raise RuntimeError("ScriptedLLMServer is not running")
        scheme = "https" if self._tls is not None else "http"
        return f"{scheme}://{self._host}:{self._httpd.server_address[1]}"

    @property
    def openai_base_url(self) -> str:
        """OpenAI-style base URL: clients append /chat/completions."""
        return self.base_url + "/v1"

    def enqueue(self, *replies: Reply | str) -> None:
        """Queue replies, consumed one per request; a bare string means text(string)."""
        with self._cond:
            self._queue.extend(Text(r) if isinstance(r, str) else r for r in replies)

    def respond_with(self, responder: Callable[[RecordedRequest], Reply | str] | None) -> None:
        """Answer every request the queue has no reply for with `responder(request)` (a bare string is text())."""
        with self._cond:
            self._responder = responder

    @property
    def request_count(self) -> int:
        """Requests received so far (any route)."""
        with self._cond:
            return len(self._requests)

    @property
    def max_in_flight(self) -> int:
        """The most requests that were being answered at the same time."""
        with self._cond:
            return self._max_in_flight

    @property
    def open_connections(self) -> int:
        """Client connections the server holds open now (0 when stopped)."""
        httpd = self._httpd
        return len(httpd.conns) if httpd is not None else 0

    @property
    def connections_accepted(self) -> int:
        """Client connections accepted since the server started (a reused keep-alive connection counts once)."""
        httpd = self._httpd
        return httpd.accepted if httpd is not None else 0

    @property
    def pending(self) -> int:
        """Replies not consumed yet."""
        with self._cond:
            return len(self._queue)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._cond:
            return list(self._requests)

    @property
    def last_request(self) -> RecordedRequest:
        with self._cond:
            if not self._requests:
                raise AssertionError("ScriptedLLMServer received no requests")
            return self._requests[-1]

    def calls(self, protocol: Protocol | None = None) -> list[RecordedRequest]:
        """The model calls received so far (requests on a model route), of one protocol or both."""
        return [r for r in self.requests if r.protocol is not None and protocol in (None, r.protocol)]

    def wait_for_requests(self, n: int, timeout: float = 2.0) -> list[RecordedRequest]:
        """Block until at least n requests arrived (for clients running in another thread/loop)."""
        with self._cond:
            if not self._cond.wait_for(lambda: len(self._requests) >= n, timeout):
                raise AssertionError(f"expected {n} requests, got {len(self._requests)}")
            return list(self._requests)

    def _record(self, req: RecordedRequest) -> tuple[Reply | None, int, RecordedRequest]:
        """The reply for `req` (queued, else the responder's), its number, and `req` as recorded."""
        with self._cond:
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
            reply = self._queue.popleft() if req.protocol is not None and self._queue else None
            responder = self._responder
        if reply is None and responder is not None and req.protocol is not None:
            try:
                answer = responder(req)
            except Exception:  # noqa: BLE001 - a scripting bug: reported, answered as "script exhausted"
                self.errors.append(traceback.format_exc())
                answer = None
            reply = Text(answer) if isinstance(answer, str) else answer
        answered = reply.then if isinstance(reply, Silence) else reply
        if isinstance(answered, Text):  # only an answer reads or writes the prompt cache
            req = dataclasses.replace(req, prompt_cache=self.prompt_cache.account(req.protocol, req.body))
        with self._cond:
            self._requests.append(req)
            self._cond.notify_all()
            return reply, len(self._requests), req

    def _finished(self) -> None:
        with self._cond:
            self._in_flight -= 1
