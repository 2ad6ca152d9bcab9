"""Places one can go to, each declared beside the screen it opens: `Navigate(place)` carries one (messages.py).

A screen declares itself in a module of this package (`places/<name>.py`): its place, a small frozen `@record`
(core/records.py: cheap to define, as start-up wants) subclassing `Place`, and `SPEC = ScreenSpec(...)`
(registry.py), which names the screen's class by string, the browser key and palette entries that open it, and
the scene the screenshots show. These modules are cheap (no Textual widget, no screen): the screen's own module,
its stylesheet and its widgets are imported when it first opens.

Screens post `Navigate(place)`; the app's one handler calls navigation.go, which asks the registry how to open it.
"""

from __future__ import annotations


class Place:
    """Where `Navigate` goes: each screen's place is a frozen `@record` subclassing this, declared with its spec."""


__all__ = ["Place"]
