"""The editor's check worker (TUI-20): `python -m cogtui.tui.live_check_worker`, which
`live_check.LiveChecker` starts. The program is this small file, so the checks' code runs imported under its own
name and the answers it pickles arrive as `live_check.LiveReport`s."""

from cogtui.tui.live_check import main

if __name__ == "__main__":
    main()
