"""The one wording of a real internal error in the history: cogtui called its database driver wrongly.

Every database condition has words of its own (backend.sqlite_advice, postgres_errors.describe); what is
left is cogtui's fault, said as such, with what a report needs: the error itself and the versions involved.
"""

from __future__ import annotations

import platform


def cogtui_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("cogtui")
    except PackageNotFoundError:
        return "unknown"


def internal_error(exc: BaseException, driver: str) -> str:
    """`driver`: the database library and its version, e.g. "sqlite 3.45.1"."""
    return (
        f"this is a cogtui bug ({type(exc).__module__}.{type(exc).__name__}: {' '.join(str(exc).split())}); "
        f"please report it with this message (cogtui {cogtui_version()}, {driver}, "
        f"Python {platform.python_version()} on {platform.system()})"
    )
