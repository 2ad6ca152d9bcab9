"""A terminal that hangs up ends cogtui as quitting does, even when no SIGHUP reaches it.

A terminal that goes away (an SSH connection dropped, a tmux pane or window closed) sends SIGHUP, which ends the
process. Started under a program that does not pass SIGHUP on (`make run`, a wrapper that ignores it), cogtui
would live on with a dead terminal, and Textual's input thread reads end-of-file from it in a loop at full CPU
(upstream behaviour, Textualize/textual#6690, an open pull request at the time of writing, which stops the reading
but keeps the app running). So the app looks for the hang-up itself, once a second: when its terminal is gone it
quits as `q` does once nothing is left to ask (runs cancelled and recorded, then exit). Edits not saved are lost,
as with SIGHUP: there is no one left to ask whether to save them.
"""

from __future__ import annotations

import os
import select
import sys

CHECK_EVERY_S = 1.0
GONE = select.POLLHUP | select.POLLERR | select.POLLNVAL


def terminal_fd() -> int | None:
    """The terminal cogtui reads its keys from, or None when there is none to watch (tests, a pipe)."""
    stdin = sys.__stdin__
    try:
        fd = stdin.fileno() if stdin is not None else -1
    except (OSError, ValueError):
        return None
    return fd if fd >= 0 and os.isatty(fd) else None


def hung_up(fd: int) -> bool:
    """Whether the terminal on `fd` has hung up (its other end closed), without reading from it."""
    poller = select.poll()
    poller.register(fd, select.POLLHUP)  # POLLERR and POLLNVAL are reported whether asked for or not
    return any(events & GONE for _fd, events in poller.poll(0))
