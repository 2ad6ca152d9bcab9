"""Hover, completion, go to definition and code actions: each the core's answer (`cogtui/core/assist/`) in the
protocol's types."""

from __future__ import annotations

from typing import Any


def register(server: Any) -> None:
    """Add the request handlers to `server` (a CognServer)."""
