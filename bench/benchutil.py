"""Shared helpers for the benchmark scripts: machine description, peak memory, printing."""

from __future__ import annotations

import json
import os
import platform
import resource
import sys
import time
from collections.abc import Callable
from typing import Any


def machine() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "os": f"{platform.system()} {platform.release()}",
    }


def timed(fn: Callable[[], Any], repeat: int) -> list[float]:
    """Wall-clock seconds of `repeat` calls."""
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def child_peak_rss_mb() -> float:
    """Largest resident set of any finished child process (Linux reports KB)."""
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return round(rss / 1024 if sys.platform != "darwin" else rss / 1024 / 1024, 1)


def self_peak_rss_mb() -> float:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(rss / 1024 if sys.platform != "darwin" else rss / 1024 / 1024, 1)


def report(name: str, results: dict[str, Any], mach: dict[str, Any]) -> None:
    print(f"## {name}")
    print(f"machine: {mach['cpu']}, {mach['cores']} cores, Python {mach['python']}, {mach['os']}")
    for key, value in results.items():
        shown = f"{value * 1000:.1f} ms" if isinstance(value, float) and key.endswith("_s (median)") else value
        print(f"- {key}: {shown}")
    print(json.dumps({"bench": name, "machine": mach, "results": results}))


def measured(command: list[str], env: dict[str, str], cwd: str | None = None) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds (user + system), peak resident MB) of one run of `command`, output discarded."""
    import subprocess

    started = time.perf_counter()
    proc = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _pid, _status, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0  # reaped above
    peak = usage.ru_maxrss / 1024 if sys.platform != "darwin" else usage.ru_maxrss / 1024 / 1024
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime, round(peak, 1)


def growth_exponent(points: list[tuple[float, float]]) -> float:
    """The slope of log(cost) on log(size), least squares, over the points whose cost is positive: 1 is linear
    growth, 2 quadratic."""
    import math

    usable = [(math.log(size), math.log(cost)) for size, cost in points if size > 0 and cost > 0]
    if len(usable) < 2:
        return float("nan")
    mean_x = sum(x for x, _ in usable) / len(usable)
    mean_y = sum(y for _, y in usable) / len(usable)
    spread = sum((x - mean_x) ** 2 for x, _ in usable)
    return round(sum((x - mean_x) * (y - mean_y) for x, y in usable) / spread, 2)
