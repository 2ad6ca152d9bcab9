"""The schema engine: jsonschema-rs against the pure-Python jsonschema, behind the same interface.

    .venv/bin/python bench/bench_schema.py [--repeat 9]

Import time (a process that imports the engine, minus `python -c pass`),
compiling and validating every bundled module's golden data against its data
schema (in-process, median of `--repeat`), and a catastrophic pattern,
`^(a+)+$` on 24 characters, which the Python engine would run exponentially
(it is run in a child process with a time limit; the interface itself refuses
such a pattern under the fallback, FMT-2).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchutil import machine, report

ROOT = Path(__file__).resolve().parents[1]
RUNAWAY = (
    "import re, time; t = time.perf_counter(); re.search(r'^(a+)+$', 'a' * 23 + '!'); print(time.perf_counter() - t)"
)


def process(code: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def cases() -> list[tuple[Any, Any, Any]]:
    """(schema.json document, data pointer, data instance) for every bundled golden."""
    out = []
    for folder in sorted((ROOT / "modules").iterdir()):
        schema = folder / "schema.json"
        if not schema.is_file():
            continue
        doc = json.loads(schema.read_text(encoding="utf-8"))
        for expected in sorted(folder.glob("tests/*.expected.json")):
            data = json.loads(expected.read_text(encoding="utf-8")).get("data")
            out.append((doc, "data" if "data" in doc else "output", data))
    return out


def timed_validation(compile_: Any, repeat: int) -> tuple[float, float, int]:
    """(compile seconds, validate seconds, errors found) over every case, medians."""
    from cogtui.core.module.schema_engine import draft_of

    comp, val, errors = [], [], 0
    for _ in range(repeat):
        c = v = 0.0
        errors = 0
        for doc, part, data in cases():
            t = time.perf_counter()
            validator = compile_({"$ref": f"file:///m/schema.json#/{part}"}, draft_of(doc), lambda uri, d=doc: d)
            c += time.perf_counter() - t
            t = time.perf_counter()
            errors += len(validator.errors(data))
            v += time.perf_counter() - t
        comp.append(c)
        val.append(v)
    return statistics.median(comp), statistics.median(val), errors


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeat", type=int, default=9)
    args = ap.parse_args()
    from cogtui.core.module.schema_engine import compile_schema
    from cogtui.core.module.schema_engine_py import compile_python

    floor = process("pass", args.repeat)
    results: dict[str, Any] = {"load average (1 min)": round(os.getloadavg()[0], 1)}
    results["import jsonschema-rs, over the floor_s (median)"] = process("import jsonschema_rs", args.repeat) - floor
    results["import jsonschema + referencing, over the floor_s (median)"] = (
        process("import jsonschema, referencing", args.repeat) - floor
    )
    rs = timed_validation(lambda s, d, r: compile_schema(s, draft=d, retrieve=r), args.repeat)
    py = timed_validation(compile_python, args.repeat)
    results[f"{len(cases())} bundled goldens: compile, jsonschema-rs_s (median)"] = rs[0]
    results[f"{len(cases())} bundled goldens: validate, jsonschema-rs_s (median)"] = rs[1]
    results[f"{len(cases())} bundled goldens: compile, jsonschema_s (median)"] = py[0]
    results[f"{len(cases())} bundled goldens: validate, jsonschema_s (median)"] = py[1]
    results["errors found (both engines must agree)"] = f"{rs[2]} / {py[2]}"
    t = time.perf_counter()
    compile_schema({"pattern": "^(a+)+$"}).errors("a" * 100_000 + "!")
    results["^(a+)+$ on 100,000 a's and a '!', jsonschema-rs_s (median)"] = time.perf_counter() - t
    try:
        out = subprocess.run([sys.executable, "-c", RUNAWAY], capture_output=True, text=True, timeout=60, check=True)
        results["^(a+)+$ on 23 a's and a '!', Python re_s (median)"] = float(out.stdout)
    except subprocess.TimeoutExpired:
        results["^(a+)+$ on 23 a's and a '!', Python re"] = "over 60 s (stopped)"
    report("schema", results, machine())


if __name__ == "__main__":
    main()
