"""The hostile-folder sweep: one module for each hostile case, through load, validate and run.

    .venv/bin/python bench/bench_hostile.py

Each case is a copy of a clean v2.2 module with one file made hostile (a
symlink out of the folder, a FIFO, /dev/zero, a loop, a huge sparse file, a
YAML alias bomb, 50,000 nested brackets, BOM + invalid UTF-8, a 5000-digit
number, escape sequences, a catastrophic and an invalid schema `pattern`, a
golden input linked outside, lone surrogates), plus a v1 MODULE.md alias bomb through
`migrate --dry-run`'s planner. The target is the whole sweep under 5 s
(docs/security.md); before issue 11 several cases hung forever.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from benchutil import machine
from modkit import clean_v1, clean_v22, make_module

from cogtui.core.authoring.migration import plan_migration
from cogtui.core.files.confined import MAX_MODULE_FILE_BYTES
from cogtui.core.module.loader import load_module
from cogtui.core.rules.validate_module import validate_module
from cogtui.core.run.providers.replay.provider import ReplayProvider
from cogtui.core.run.runner import RunOptions, run_module

BOMB = "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]\n" for i in range(1, 10)
)


def _replace(root: Path, rel: str, make: Callable[[Path], None]) -> None:
    path = root / rel
    path.unlink()
    make(path)


def _sparse(path: Path) -> None:
    with open(path, "wb") as fh:
        fh.truncate(MAX_MODULE_FILE_BYTES * 4)


def _pattern(root: Path, pattern: str) -> None:
    schema = json.loads((root / "schema.json").read_text())
    schema["input"]["properties"]["text"]["pattern"] = pattern
    (root / "schema.json").write_text(json.dumps(schema))


NEAR_MISS = "a" * 40 + "!"  # the run's input: a near miss for `^(a+)+$`, which backtracks 2^40 times naively


def _loop(path: Path) -> None:
    path.symlink_to(path.with_name("loop.md"))
    path.with_name("loop.md").symlink_to(path)


CASES: dict[str, Callable[[Path, Path], object]] = {
    "prompt.md -> secret outside": lambda r, s: _replace(r, "prompt.md", lambda p: p.symlink_to(s)),
    "schema.json is a FIFO": lambda r, s: _replace(r, "schema.json", os.mkfifo),
    "prompt.md -> /dev/zero": lambda r, s: _replace(r, "prompt.md", lambda p: p.symlink_to("/dev/zero")),
    "prompt.md symlink loop": lambda r, s: _replace(r, "prompt.md", _loop),
    "prompt.md 32 MiB (sparse)": lambda r, s: _replace(r, "prompt.md", _sparse),
    "module.yaml alias bomb": lambda r, s: (r / "module.yaml").write_text((r / "module.yaml").read_text() + BOMB),
    "schema.json 50k nested": lambda r, s: (r / "schema.json").write_text("[" * 50_000 + "]" * 50_000),
    "prompt.md BOM + bad UTF-8": lambda r, s: (r / "prompt.md").write_bytes(b"\xef\xbb\xbf# x\n\xff\xfe"),
    "schema.json 5000 digits": lambda r, s: (r / "schema.json").write_text('{"n": ' + "9" * 5000 + "}"),
    "escape sequences in names": lambda r, s: (r / "prompt.md").write_text("\x1b]0;pwned\x07\x1b[2J"),
    "input pattern ^(a+)+$, near-miss input (S008)": lambda r, s: _pattern(r, "^(a+)+$"),
    "input pattern not a regex (S001)": lambda r, s: _pattern(r, "([a-z]"),
    "golden input -> secret outside (F001)": lambda r, s: _replace(
        r, "tests/case1.input.json", lambda p: p.symlink_to(s)
    ),
    "lone surrogates in the golden input": lambda r, s: (r / "tests" / "case1.input.json").write_text(
        '{"text": "\\ud800 lone \\udfff"}'
    ),
}


def sweep() -> list[tuple[str, float]]:
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        secret = base / "secret.txt"
        secret.write_text("TRIPWIRE\n")
        for n, (name, make) in enumerate(CASES.items()):
            root = make_module(base / f"case{n}", clean_v22())
            make(root, secret)
            started = time.perf_counter()
            module = load_module(root)
            validate_module(module)
            asyncio.run(run_module(module, {"text": NEAR_MISS}, RunOptions(ReplayProvider(interval=0))))
            out.append((name, time.perf_counter() - started))
        files = clean_v1()
        files["MODULE.md"] = "---\nname: mod\nversion: 1.0.0\n" + BOMB + "---\nbody\n"
        root = make_module(base / "v1bomb", files)
        started = time.perf_counter()
        plan_migration(load_module(root), "2.2")
        out.append(("v1 MODULE.md alias bomb, migrate --dry-run plan", time.perf_counter() - started))
    return out


def main() -> int:
    print(machine())
    results = sweep()
    for name, seconds in results:
        print(f"{name:<50} {seconds * 1000:8.1f} ms")
    total = sum(s for _, s in results)
    print(f"{'total (' + str(len(results)) + ' cases)':<50} {total * 1000:8.1f} ms   target < 5000 ms")
    return 0 if total < 5 else 1


if __name__ == "__main__":
    raise SystemExit(main())
