"""`python -m cogtui` is `cogtui`: no subcommand opens the TUI."""

from __future__ import annotations

from cogtui.cli import main

raise SystemExit(main(prog="cogtui"))
