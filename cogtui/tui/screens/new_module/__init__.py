"""The new-module dialog: a v2.2 module from a template, then its editor (its screen: screen.py)."""

from __future__ import annotations

from cogtui.core.records import record

from ...places import Place, ScreenSpec


@record
class NewModule(Place):
    pass


SPEC = ScreenSpec(
    "new-module",
    NewModule,
    "cogtui.tui.screens.new_module.screen:NewModuleModal",
    opener="cogtui.tui.navigation:new_module",  # the dialog's answer rediscovers, selects and opens the module
    order=80,
    anywhere=lambda _paths: NewModule(),
    key="n",
    key_name="new",
    key_label="New",
    key_doc="new v2.2 module from a template",
    scene=lambda _root: NewModule(),
    main_key=True,
    key_on_module=False,
    palette_anywhere=("New module…", "create a v2.2 module from a template"),
)
