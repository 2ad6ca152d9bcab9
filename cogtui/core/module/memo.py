"""What is computed from a loaded module once and reused by every run of it (compiled schemas, prompts).

A `Module` is frozen (AGENTS.md invariant 5): what depends only on it can be kept
with it. The cache lives in the instance's `__dict__` (a frozen dataclass takes
no new attributes through setattr), so it goes when the module does, and a
module rebuilt from edited files (a new instance) starts empty. Callers must
treat what they get back as read-only: it is shared by every run.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from cogtui.core.module.model import Module

T = TypeVar("T")
_SLOT = "_memo"


def memo(module: Module, key: Hashable, make: Callable[[], T]) -> T:
    """`make()` the first time `key` is asked of this module, the same object after that."""
    cache: dict[Hashable, Any] = module.__dict__.setdefault(_SLOT, {})
    if key not in cache:
        cache[key] = make()
    result: T = cache[key]
    return result


__all__ = ["memo"]
