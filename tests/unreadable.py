"""Folders the process under test cannot read, even when the tests run as root.

`chmod 000` stops an ordinary user, but root reads through it (CAP_DAC_OVERRIDE).
As root, the process under test is started through util-linux's `setpriv` with
those capabilities out of its bounding set, so permissions bind it as they bind
a user; as anyone else, the command runs as it is.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

DROP_READ_OVERRIDES = "--bounding-set=-dac_override,-dac_read_search"


def as_unprivileged(argv: list[str]) -> list[str]:
    """`argv` as a command that file permissions bind (see the module's notes)."""
    if os.geteuid() != 0:
        return argv
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.fail("setpriv (util-linux) is needed to test unreadable folders as root: apt-get install util-linux")
    return [setpriv, DROP_READ_OVERRIDES, "--", *argv]


@contextmanager
def unreadable(*folders: Path) -> Iterator[None]:
    """`folders` without any permission for the duration (restored after, so pytest can clean them up)."""
    for folder in folders:
        folder.chmod(0)
    try:
        yield
    finally:
        for folder in folders:
            folder.chmod(0o755)
