"""BENCHMARKS.md, written from the figures of `make bench` (bench/run_all.py): current figures only.

Each script's figures are kept in bench/out/results.json (with the date, machine and load of its run), so a
run of some scripts rewrites their tables and keeps the others' as they were last measured. The file holds
one table per benchmark: its figures, each figure's target where it has one, the machine and the date, the
targets the script's docstring states, and for the growth sweeps a table per sweep with a bar plot. What a
figure was before is in git's history of the file.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
STORE = HERE / "out" / "results.json"
TARGET = re.compile(r"\(target\s*([^)]*)\)")
WIDTH = 24  # characters of the longest bar in a plot


def load() -> dict[str, Any]:
    try:
        found: dict[str, Any] = json.loads(STORE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found


def record(
    name: str, results: dict[str, Any], machine: dict[str, Any], status: int, loads: tuple[float, float]
) -> None:
    """Keep one script's figures with when and where they were taken (`loads`: the load average before, after)."""
    store = load()
    store[name] = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": machine,
        "status": status,
        "load": list(loads),
        "results": results,
    }
    STORE.parent.mkdir(parents=True, exist_ok=True)
    STORE.write_text(json.dumps(store, indent=1, ensure_ascii=False), encoding="utf-8")


def stated_targets(name: str) -> str:
    """The targets the script's docstring states: from "Target" to the end of the paragraph that has it."""
    text = (HERE / f"bench_{name}.py").read_text(encoding="utf-8")
    doc = text.split('"""')[1] if text.count('"""') >= 2 else ""
    for paragraph in doc.split("\n\n"):
        start = paragraph.find("Target")
        if start >= 0:
            return " ".join(paragraph[start:].split())
    return ""


def shown(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, dict):
        text = "; ".join(f"{k}: {shown(v)}" for k, v in value.items())
        return text if len(text) <= 110 else text[:107] + "…"
    return str(value).replace("|", "\\|")


_AT_MOST = re.compile(r"\(target\s*(<=|<|>=)\s*([0-9.]+)")


def judged(key: str, value: Any) -> str:
    """'PASS' / 'MISS' for a `(target <= N)` or `(target >= N)` figure; '' when the target is not a simple bound."""
    if isinstance(value, bool):  # a script's own "targets_met"
        return "PASS" if value else "MISS"
    if isinstance(value, str) and value.endswith((": met", ": MISSED")):
        return "PASS" if value.endswith(": met") else "MISS"
    bound = _AT_MOST.search(key)
    if bound is None or not isinstance(value, (int, float)):
        return ""
    limit = float(bound.group(2))
    op = bound.group(1)
    ok = value <= limit if op == "<=" else value >= limit if op == ">=" else value < limit
    return "PASS" if ok else "MISS"


def verdict(key: str, value: Any) -> str:
    return {"PASS": "met", "MISS": "**missed**"}.get(judged(key, value), "")


def machine_of(entry: dict[str, Any]) -> str:
    m = entry["machine"]
    return f"{m.get('cpu')}, {m.get('cores')} cores, Python {m.get('python')}, {m.get('os')}"


def machine_line(entry: dict[str, Any], shared: str | None = None) -> str:
    """When and at what load a script ran; the machine too unless every script ran on the `shared` one."""
    before, after = entry.get("load", [0, 0])
    machine = "" if machine_of(entry) == shared else f"{machine_of(entry)}; "
    return f"{entry['date']}; {machine}load {before:.1f} → {after:.1f}"


def plot(rows: list[dict[str, Any]], base: float) -> list[str]:
    """CPU beyond the baseline, as bars on a linear scale: a linear sweep's bars double with its sizes."""
    costs = [(row["size"], max(row["cpu_s"] - base, 0.0)) for row in rows if row["size"]]
    top = max((cost for _size, cost in costs), default=0.0) or 1.0
    return [f"{size:>7,} | {'█' * max(1, round(cost / top * WIDTH))} {cost * 1000:.0f} ms" for size, cost in costs]


def sweep_tables(sweeps: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for name, sweep in sweeps.items():
        rows = sweep["rows"]
        base = next((row["cpu_s"] for row in rows if row["size"] == 0), 0.0)
        out += [
            f"**{name}** (`{sweep['command']}`, N {sweep['what']}): growth exponent **{sweep['exponent']}**",
            "",
            "| N | wall, s (median) | CPU, s (least) | CPU beyond N = 0, ms | peak memory, MB |",
            "|---:|---:|---:|---:|---:|",
        ]
        for row in rows:
            beyond = (row["cpu_s"] - base) * 1000
            out.append(
                f"| {row['size']:,} | {row['wall_s']:.3f} | {row['cpu_s']:.3f} | {beyond:.0f} | {row['peak_mb']:.0f} |"
            )
        out += ["", "```", *plot(rows, base), "```", ""]
    return out


def table(name: str, entry: dict[str, Any], shared: str | None = None) -> list[str]:
    out = [f"## {name} (`bench/bench_{name}.py`)", "", machine_line(entry, shared) + "."]
    stated = stated_targets(name)
    if stated:
        out += ["", stated]
    if entry.get("status"):
        out += ["", f"**The script failed** (exit status {entry['status']}): the figures below are what it printed."]
    results = entry.get("results", {})
    sweeps = results.get("sweeps")
    out += ["", "| figure | value | target |", "|---|---:|---|"]
    for key, value in results.items():
        if key == "sweeps" or key.startswith("load average"):
            continue
        found = TARGET.search(key)
        label = TARGET.sub("", key).strip().replace("|", "\\|").replace("_s (median)", ", s (median)")
        target = f"{found.group(1)} {verdict(key, value)}".strip() if found else verdict(key, value)
        out.append(f"| {label} | {shown(value)} | {target} |")
    if not results:
        out.append("| (no figures) | | |")
    out.append("")
    if isinstance(sweeps, dict):
        out += sweep_tables(sweeps)
    return out


def write(path: Path, order: tuple[str, ...]) -> None:
    store = load()
    machines = {machine_of(store[name]) for name in order if name in store}
    shared = machines.pop() if len(machines) == 1 else None
    lines = [
        "# Benchmarks",
        "",
        "Current figures, written by `make bench` (`bench/run_all.py`, each script at a reduced size; `--full`",
        "for the default sizes). A run of some scripts (`bench/run_all.py growth editor`) rewrites their tables",
        "and keeps the others as last measured (bench/out/results.json), each with its own date and the 1-minute",
        "load average before → after its run. Wall times are",
        "medians unless the figure says otherwise; CPU times (user + system) are the least of the runs, the",
        "figure that other processes' load on this shared machine hardly moves. A figure whose target is",
        "marked **missed** is over it. Earlier figures: `git log -p BENCHMARKS.md`.",
        "",
    ]
    if shared is not None:
        lines += [f"Machine: {shared}.", ""]
    for name in order:
        if name in store:
            lines += table(name, store[name], shared)
    path.write_text("\n".join(lines).rstrip() + "\n", encoding="utf-8")
