"""Modules shipped inside the package: package data, found next to this file, never in the checkout (AGENTS.md
invariant 14). `cogtui-judge` scores a golden case's answer against its `$judge` rubric (core/run/judge.py)."""

from __future__ import annotations

from pathlib import Path

JUDGE_DIR = Path(__file__).resolve().parent / "cogtui-judge"

__all__ = ["JUDGE_DIR"]
