"""A provider's SDK is imported before a call's timers start and off the event loop's thread (RUN-13).

The Anthropic SDK's first import is ~2 s of CPU. Imported inside the stream, it froze the TUI for that long on
the first Anthropic run of a session, and on a slow machine the stream's silence timeout (E2011) could fire
before a byte was asked for. Here a fresh `cogn` process is made to take a second longer over that import, and
says when the call's timers start: after the import has finished, whatever the machine's load (the order is
checked, not a time). The run must succeed, and the import must not run on the loop's thread. Neither may what a
provider's client and first request import (httpx defers httpcore, h11 and anyio's asyncio support until then),
nor may calls that start while that import runs take it for done.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "runtime"))

from cli_json import envelope as printed_envelope
from llmserver import ScriptedLLMServer
from rtkit import ANTHROPIC_KEY, MODULES, cli_env, golden, model_answer

# A fresh `cogn` that says on which thread each watched import is found (once: by the thread that imports it),
# takes a second longer over the import named by SLOW_IMPORT, and says whether that import had finished when a
# call's timers started (the runner's `timed`, wrapped).
WHERE_IMPORTED = """
import importlib.abc, importlib.machinery, os, sys, threading, time

WATCHED = ("anthropic", "httpx", "httpcore", "h11", "anyio._backends._asyncio")
SLOW = os.environ.get("SLOW_IMPORT")
FINISHED = []

class WhereImported(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name in WATCHED:
            main = threading.current_thread() is threading.main_thread()
            sys.stderr.write(name + " imported on the " + ("loop's thread" if main else "other thread") + "\\n")
        if name != SLOW:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        run = spec.loader.exec_module

        def exec_module(module):
            time.sleep(1.0)
            run(module)
            FINISHED.append(name)

        spec.loader.exec_module = exec_module
        return spec

sys.meta_path.insert(0, WhereImported())
from cogtui.core.run import runner
timed = runner.timed

def said_timed(*args, **kwargs):
    if SLOW:
        done = SLOW in FINISHED
        sys.stderr.write("timers start " + ("after " if done else "before the end of ") + SLOW + "'s import\\n")
    return timed(*args, **kwargs)

runner.timed = said_timed
from cogtui.cli import main
sys.argv[0] = "cogn"
sys.exit(main())
"""


def imported(stderr: str) -> list[str]:
    return sorted(line for line in stderr.splitlines() if " imported on the " in line)


def test_a_slow_first_sdk_import_is_not_silence_and_leaves_the_loop_free(
    tmp_path: Path, llm_server: ScriptedLLMServer
) -> None:
    case_input, expected = golden("code-reviewer")
    (tmp_path / "in.json").write_text(json.dumps(case_input), encoding="utf-8")
    llm_server.enqueue(json.dumps(model_answer(expected)))
    env = cli_env(
        tmp_path, ANTHROPIC_API_KEY=ANTHROPIC_KEY, ANTHROPIC_BASE_URL=llm_server.base_url, SLOW_IMPORT="anthropic"
    )
    argv = [sys.executable, "-c", WHERE_IMPORTED, "--path", str(MODULES), "run", "code-reviewer"]
    argv += ["--input", "in.json", "--provider", "anthropic", "--json", "--no-history"]
    proc = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False)
    # The SDK, then what its client and first request import; httpx and h11 come with the SDK.
    names = ("anthropic", "httpx", "httpcore", "h11", "anyio._backends._asyncio")
    assert imported(proc.stderr) == sorted(f"{name} imported on the other thread" for name in names), proc.stderr
    assert [line for line in proc.stderr.splitlines() if line.startswith("timers start")] == [
        "timers start after anthropic's import"
    ], proc.stderr
    envelope = printed_envelope(proc.stdout)
    assert proc.returncode == 0 and envelope["ok"] is True, (proc.stderr, envelope)
    assert llm_server.request_count == 1


def test_concurrent_first_calls_import_the_http_stack_off_the_loop(
    tmp_path: Path, llm_server: ScriptedLLMServer
) -> None:
    """Four calls start together, the first of the process: one import of httpx, httpcore, h11 and anyio's
    asyncio support, in a thread, and none of it on the loop (an eval's other calls used to import httpcore and
    anyio there, or wait there for the thread's import of httpx to finish)."""
    from evalkit import eval_module, responder

    eval_module(tmp_path / "modules", n=4)
    llm_server.respond_with(responder())
    env = cli_env(tmp_path, OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=llm_server.openai_base_url)
    argv = [sys.executable, "-c", WHERE_IMPORTED, "--path", str(tmp_path / "modules"), "eval", "ticket"]
    argv += ["--provider", "openai", "-j", "4", "--no-history"]
    proc = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    names = ("httpx", "httpcore", "h11", "anyio._backends._asyncio")
    assert imported(proc.stderr) == sorted(f"{name} imported on the other thread" for name in names), proc.stderr
    assert llm_server.request_count == 4


def test_calls_made_while_an_import_runs_wait_for_it_with_the_loop_free() -> None:
    """A module is in sys.modules from the moment its import starts: calls that took that for done went on
    before it was (and imported it again on the loop, waiting there on the import's lock)."""
    import asyncio
    import threading
    import uuid

    from cogtui.core.run.providers.base import import_off_loop

    name = f"cogtui_test_slow_{uuid.uuid4().hex}"
    started, release, finished = threading.Event(), threading.Event(), threading.Event()
    imports: list[str] = []

    def slow_import() -> None:
        imports.append(threading.current_thread().name)
        sys.modules[name] = type(sys)(name)  # as an import does before running the module's code
        started.set()
        release.wait(120)  # until the test lets go: a bound for a hang only
        finished.set()

    async def scenario() -> tuple[list[bool], int]:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while not finished.is_set():
                ticks += 1
                await asyncio.sleep(0.005)

        async def call() -> bool:
            await import_off_loop(name, slow_import)
            return finished.is_set()

        tick = asyncio.create_task(ticker())
        first = asyncio.create_task(call())
        await asyncio.to_thread(started.wait, 10)
        others = [asyncio.create_task(call()) for _ in range(3)]
        await asyncio.sleep(0.05)
        ticks_while_importing = ticks
        release.set()
        done = await asyncio.gather(first, *others)
        await tick
        return done, ticks_while_importing

    try:
        done, ticks = asyncio.run(scenario())
    finally:
        release.set()
        sys.modules.pop(name, None)
    assert done == [True] * 4  # no call came back before the import was through
    assert len(imports) == 1 and imports[0] != threading.main_thread().name
    assert ticks > 1  # the loop went on while they waited


def test_a_failed_off_loop_import_fails_its_callers_and_is_tried_again() -> None:
    import asyncio
    import threading
    import uuid

    from cogtui.core.run.providers.base import import_off_loop

    name = f"cogtui_test_failing_{uuid.uuid4().hex}"
    attempts: list[int] = []
    release = threading.Event()

    def flaky() -> None:
        attempts.append(1)
        if len(attempts) == 1:
            release.wait(120)  # until both callers wait for this attempt (a bound for a hang only)
            raise ImportError("no such SDK")
        sys.modules[name] = type(sys)(name)

    async def scenario() -> list[object]:
        calls = [asyncio.create_task(import_off_loop(name, flaky)) for _ in range(2)]
        await asyncio.sleep(0.05)  # both calls are waiting now: the first attempt cannot end before `release`
        release.set()
        return await asyncio.gather(*calls, return_exceptions=True)

    try:
        outcomes = asyncio.run(scenario())
        assert [type(o) for o in outcomes] == [ImportError, ImportError]
        asyncio.run(import_off_loop(name, flaky))  # tried again, and now it imports
        assert len(attempts) == 2 and name in sys.modules
        asyncio.run(import_off_loop(name, flaky))  # done: not again
        assert len(attempts) == 2
    finally:
        release.set()
        sys.modules.pop(name, None)


def test_a_call_cancelled_while_it_waits_leaves_the_import_to_the_others() -> None:
    """A run cancelled during the first import (escape in the TUI) must not cancel the import for every later
    call: they would all fail with CancelledError for the rest of the process."""
    import asyncio
    import threading
    import uuid

    from cogtui.core.run.providers.base import import_off_loop

    name = f"cogtui_test_cancelled_{uuid.uuid4().hex}"
    release = threading.Event()

    def slow() -> None:
        release.wait(120)  # until the test lets go: a bound for a hang only
        sys.modules[name] = type(sys)(name)

    async def scenario() -> None:
        first = asyncio.create_task(import_off_loop(name, slow))
        await asyncio.sleep(0.05)
        first.cancel()
        try:
            await first
        except asyncio.CancelledError:
            pass
        release.set()
        await asyncio.wait_for(import_off_loop(name, slow), 10)  # the same import, through

    try:
        asyncio.run(scenario())
        assert name in sys.modules
    finally:
        release.set()
        sys.modules.pop(name, None)


def test_a_missing_key_is_said_before_the_sdk_is_loaded(tmp_path: Path, llm_server: ScriptedLLMServer) -> None:
    """Without ANTHROPIC_API_KEY the run fails at once with E4001 and advice about the key (the usual E4001
    advice, about base URLs and networks, misled), without spending the SDK's import on a call that cannot go."""
    case_input, _ = golden("code-reviewer")
    (tmp_path / "in.json").write_text(json.dumps(case_input), encoding="utf-8")
    env = cli_env(tmp_path, ANTHROPIC_BASE_URL=llm_server.base_url)  # cli_env leaves no key set
    argv = [sys.executable, "-c", WHERE_IMPORTED, "--path", str(MODULES), "run", "code-reviewer"]
    argv += ["--input", "in.json", "--provider", "anthropic", "--json", "--no-history"]
    proc = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False)
    envelope = printed_envelope(proc.stdout)
    assert envelope["ok"] is False and envelope["error"]["code"] == "E4001", envelope
    assert envelope["error"]["message"] == "ANTHROPIC_API_KEY is not set"
    assert "Set ANTHROPIC_API_KEY" in envelope["error"]["suggestion"]
    assert "anthropic imported" not in proc.stderr and llm_server.request_count == 0, proc.stderr
