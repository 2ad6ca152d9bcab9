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
