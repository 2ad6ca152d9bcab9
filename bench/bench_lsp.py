"""`cogn lsp` as an editor meets it (issue 33): the real server process, driven over stdio by pygls's client.

    .venv/bin/python bench/bench_lsp.py [--keys 20] [--repeat 3] [--items 2000]

- **first diagnostics**: a fresh server, `initialize`, then `didOpen` of code-reviewer's schema.json: the time
  from didOpen to the first publishDiagnostics (the median over `--repeat` servers); also from the process's start.
- **keystroke to diagnostics**: on eight reference-like modules (tests/realworld's seven and the bundled
  code-reviewer), `--keys` one-character incremental edits at the end of module.yaml, each sent once the previous
  one is answered and timed from the didChange to the publishDiagnostics of its version (the 30 ms pause before a
  check included); the p50 and p95 over all.
- **2,000 diagnostics**: api-naming-reviewer whose example answer lists `--items` changes each missing `risk`
  (bench_growth.py's file, 640 KB at 2,000): from didOpen of its module.yaml to the example's publish carrying them.
Targets (issue 33): didChange to publishDiagnostics p95 <= 100 ms; first diagnostics after initialize + didOpen
<= 300 ms; a 2,000-diagnostic file publishes in <= 0.5 s.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from bench_editor import REFERENCE, p95  # noqa: E402
from benchutil import machine, report  # noqa: E402
from genmodules import stale_example  # noqa: E402

ITEM_BYTES = 320  # bench_growth.py's: 2,000 changes make a 640 KB file
HANG_S = 120.0


class Server:
    """One `cogn lsp` process and a client that timestamps every publish."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self.client = LanguageClient("bench", "1")
        self.published: list[tuple[float, str, int | None, int]] = []  # (time, uri, version, diagnostics)
        self.event = asyncio.Event()

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_publish(params: types.PublishDiagnosticsParams) -> None:
            self.published.append((time.perf_counter(), params.uri, params.version, len(params.diagnostics)))
            self.event.set()

    async def start(self) -> float:
        started = time.perf_counter()
        env = {**os.environ, "HOME": str(self.cwd / "home"), "COGNITIVE_MODULES_PATH": "", "NO_COLOR": "1"}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        await self.client.start_io(sys.executable, "-m", "cogtui.cli", "lsp", env=env, cwd=self.cwd)
        params = types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=self.cwd.as_uri())
        await asyncio.wait_for(self.client.initialize_async(params), HANG_S)
        self.client.initialized(types.InitializedParams())
        return started

    async def stop(self) -> None:
        await asyncio.wait_for(self.client.shutdown_async(None), HANG_S)
        self.client.exit(None)
        await asyncio.wait_for(self.client.stop(), HANG_S)

    def open(self, path: Path, language: str) -> float:
        text = path.read_text(encoding="utf-8")
        item = types.TextDocumentItem(uri=path.as_uri(), language_id=language, version=1, text=text)
        sent = time.perf_counter()
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=item))
        return sent

    async def until(self, found: Any) -> tuple[float, str, int | None, int]:
        deadline = time.perf_counter() + HANG_S
        while True:
            for entry in self.published:
                if found(entry):
                    return entry
            self.event.clear()
            await asyncio.wait_for(self.event.wait(), max(0.01, deadline - time.perf_counter()))


async def first_diagnostics(tmp: Path, repeat: int) -> tuple[float, float]:
    from_open, from_start = [], []
    schema = ROOT / "modules" / "code-reviewer" / "schema.json"
    for n in range(repeat):
        work = tmp / f"first-{n}"
        module = shutil.copytree(schema.parent, work / "code-reviewer")
        server = Server(work)
        started = await server.start()
        sent = server.open(module / "schema.json", "json")
        at, *_ = await server.until(lambda e, u=(module / "schema.json").as_uri(): e[1] == u)
        from_open.append(at - sent)
        from_start.append(at - started)
        await server.stop()
    return statistics.median(from_open), statistics.median(from_start)


async def keystrokes(tmp: Path, keys: int) -> list[float]:
    server = Server(tmp)
    await server.start()
    latencies = []
    for source in REFERENCE:
        module = shutil.copytree(source, tmp / "keys" / source.name)
        manifest = module / "module.yaml" if (module / "module.yaml").exists() else module / "MODULE.md"
        text = manifest.read_text(encoding="utf-8")
        uri = manifest.as_uri()
        server.open(manifest, "yaml")
        await server.until(lambda e, u=uri: e[1] == u)
        lines = text.split("\n")
        row = len(lines) - 1
        if manifest.name == "MODULE.md":  # type into the prompt, below the frontmatter
            row = len(lines) - 1
        column = len(lines[row])
        for version in range(2, keys + 2):
            change = types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(row, column), end=types.Position(row, column)), text="x"
            )
            column += 1
            sent = time.perf_counter()
            server.client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    content_changes=[change],
                )
            )
            at, *_ = await server.until(lambda e, u=uri, v=version: e[1] == u and e[2] == v)
            latencies.append(at - sent)
    await server.stop()
    return latencies


async def many_diagnostics(tmp: Path, items: int) -> tuple[float, int]:
    module = stale_example(tmp / "many" / "api-naming-reviewer", items, ITEM_BYTES)
    server = Server(tmp / "many")
    await server.start()
    example = (module / "examples" / "output.json").as_uri()
    sent = server.open(module / "module.yaml", "yaml")
    at, _uri, _version, count = await server.until(lambda e: e[1] == example and e[3] >= items)
    await server.stop()
    return at - sent, count


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="cogtui-bench-lsp-") as tmp_name:
        tmp = Path(tmp_name)
        (tmp / "home").mkdir()
        first_open, first_start = await first_diagnostics(tmp, args.repeat)
        print(f"  first diagnostics: {first_open * 1000:.0f} ms after didOpen, {first_start * 1000:.0f} ms after start")
        latencies = await keystrokes(tmp, args.keys)
        print(
            f"  keystroke to diagnostics: p50 {statistics.median(latencies) * 1000:.0f} ms, p95 {p95(latencies) * 1000:.0f} ms"
        )
        many_s, many = await many_diagnostics(tmp, args.items)
        print(f"  {many:,} diagnostics published {many_s:.3f} s after didOpen")
    return {
        "load average (1 min)": round(os.getloadavg()[0], 1),
        "first diagnostics after initialize + didOpen, ms (target <= 300)": round(first_open * 1000, 1),
        "first diagnostics from the server's start (process, imports, initialize), ms": round(first_start * 1000, 1),
        "keystrokes timed": len(latencies),
        "didChange to publishDiagnostics p50, ms": round(statistics.median(latencies) * 1000, 1),
        "didChange to publishDiagnostics p95, ms (target <= 100)": round(p95(latencies) * 1000, 1),
        f"{args.items:,}-diagnostic file published after didOpen, s (target <= 0.5)": round(many_s, 3),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--keys", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--items", type=int, default=2000)
    args = ap.parse_args()
    report("lsp", asyncio.run(main_async(args)), machine())
    return 0


if __name__ == "__main__":
    sys.exit(main())
