from __future__ import annotations

from . import entry

raise SystemExit(entry())
