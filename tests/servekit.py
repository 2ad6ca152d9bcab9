"""Servers under test: `cogn serve` and `cogn mcp` as real processes, a scripted model behind them.

`answers(llm_server)` makes the scripted server (tests/llmserver.py, on 127.0.0.1) answer every request with
the golden answer of the module the request is for (its name is in the system prompt), so any number of runs
of any bundled module get a right answer, streamed in small deltas. `Served` starts a server on a free port
(`--port 0`: the server says which), keeps what it logs, and stops it with Ctrl-C (SIGINT) as a user would.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from llmserver import RecordedRequest, ScriptedLLMServer, Silence, Text
from rtkit import MODULES, OPENAI_KEY, cli_env, golden, model_answer, system_text

from cogtui.core.history.store import History

if TYPE_CHECKING:
    from cogtui.core.module.model import Module

__all__ = ["MODULES", "Served", "answers", "golden", "history", "module_root", "serve_env", "wait_for"]

URL = re.compile(r"http://\S+:\d+")
STREAMED = ("code-reviewer", "incident-narrator")  # a sync module and a streaming one


def module_root(tmp_path: Path, *names: str) -> Path:
    """A search path folder in tmp_path holding copies of bundled modules."""
    import shutil

    root = tmp_path / "modules"
    root.mkdir(exist_ok=True)
    for name in names:
        shutil.copytree(MODULES / name, root / name)
    return root


def answer_of(name: str) -> str:
    return json.dumps(model_answer(golden(name)[1]), ensure_ascii=False)


def answers(llm_server: ScriptedLLMServer, delay: float = 0.0, chunk_size: int = 24, latency: float = 0.0) -> None:
    """Every request answered with its module's golden answer, in deltas of `chunk_size` characters `delay`
    seconds apart, after `latency` seconds of silence."""
    memo: dict[str, str] = {}

    def respond(req: RecordedRequest) -> Text | Silence:
        name = re.search(r"the Cognitive Module `([^`]+)`", system_text(req))
        assert name is not None, system_text(req)[:200]
        body = memo.setdefault(name.group(1), answer_of(name.group(1)))
        answer = Text(body, chunk_size=chunk_size, delay=delay)
        return Silence(latency, answer) if latency else answer

    llm_server.respond_with(respond)


def serve_env(tmp_path: Path, llm_server: ScriptedLLMServer | None = None, **extra: str) -> dict[str, str]:
    """The isolated environment of cli_env, with the scripted server as the OpenAI provider when given."""
    if llm_server is not None:
        extra = {
            "OPENAI_BASE_URL": llm_server.openai_base_url,
            "OPENAI_API_KEY": OPENAI_KEY,
            "COGNITIVE_PROVIDER": "openai",
            "COGNITIVE_MODEL": "scripted-1",
            **extra,
        }
    env: dict[str, str] = cli_env(tmp_path, **extra)
    return env


def history(tmp_path: Path) -> History:
    return History(tmp_path / "data" / "history.sqlite3")


def wait_for(what: Callable[[], Any], timeout: float = 30.0, step: float = 0.05) -> Any:
    """`what()` once it is truthy; fails naming the timeout (never a fixed sleep then a check)."""
    deadline = time.monotonic() + timeout
    while True:
        found = what()
        if found:
            return found
        assert time.monotonic() < deadline, f"still waiting after {timeout} s"
        time.sleep(step)


@dataclass
class Streamed:
    """One SSE run of a load: its status, whether cogtui's checker passed the stream, how it ended, its time."""

    status: int
    valid: bool
    ending: str  # "final", "error" or what else the last chunk was
    seconds: float
    problems: list[str]


async def sse_load(
    url: str, module: Module, body: Any, runs: int, headers: dict[str, str] | None = None
) -> list[Streamed]:
    """`runs` SSE runs of `module` at once against the server at `url`; each stream checked as `cogn check` would."""
    import asyncio

    import httpx

    from cogtui.core.rules.chunk_rules import chunk_kind
    from cogtui.core.rules.document_checker import check_document
    from cogtui.core.rules.stream_text import parse_document

    limits = httpx.Limits(max_connections=runs + 5, max_keepalive_connections=runs + 5)
    content = json.dumps(body).encode()
    head = {"Accept": "text/event-stream", **(headers or {})}
    async with httpx.AsyncClient(base_url=url, timeout=600, limits=limits) as client:

        async def one() -> Streamed:
            started = time.perf_counter()
            response = await client.post(f"/modules/{module.name}/run", content=content, headers=head)
            seconds = time.perf_counter() - started
            try:
                doc = parse_document(response.text)
            except ValueError as exc:
                return Streamed(response.status_code, False, "unreadable", seconds, [str(exc)])
            verdict = check_document(doc, "stream", module)
            ending = str(chunk_kind(doc[-1])) if doc else "nothing"
            return Streamed(
                response.status_code, verdict.valid, ending, seconds, [v.message for v in verdict.violations]
            )

        return list(await asyncio.gather(*(one() for _ in range(runs))))


def peak_memory_kib(pid: int) -> tuple[int, int]:
    """(resident now, resident at its peak) of a process, in KiB (Linux /proc)."""
    fields = dict(
        line.split(":", 1)
        for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines()
        if ":" in line
    )
    return int(fields["VmRSS"].split()[0]), int(fields["VmHWM"].split()[0])


class Served:
    """`python -m cogtui.cli --path ROOT <command> --port 0 ARGS` in tmp_path, until `stop()`."""

    def __init__(self, tmp_path: Path, root: Path, command: str, *args: str, env: dict[str, str]) -> None:
        argv = [sys.executable, "-m", "cogtui.cli", "--path", str(root), command, "--port", "0", *args]
        self.proc = subprocess.Popen(
            argv,
            cwd=tmp_path,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[str] = []
        self.url = ""
        self._ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        assert self._ready.wait(60), "the server did not say where it listens: " + "".join(self.lines)
        assert self.url, "the server ended before it listened: " + "".join(self.lines)

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)
            found = URL.search(line)
            if found and not self.url:
                self.url = found.group(0)
                self._ready.set()
        self._ready.set()

    @property
    def log(self) -> str:
        return "".join(self.lines)

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        code = self.proc.wait(30)
        assert "Traceback" not in self.log, self.log
        return code

    def __enter__(self) -> Served:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
