"""A validated module is freed by reference counting alone: a module, its sources and its compiled schemas hold
no reference cycle, so `validate --all` over many modules lets each go as soon as its report does, without
waiting for the cyclic collector (a back-reference from the compiled schemas once made every module a cycle)."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

from cogtui.core.module.schemas import schemas_for
from cogtui.core.workspace import check_path

MODULE = Path(__file__).resolve().parents[1] / "modules" / "code-reviewer"


def test_a_validated_module_is_freed_without_the_cyclic_collector() -> None:
    was_on = gc.isenabled()
    gc.disable()
    try:
        report = check_path(MODULE)
        module = report.module
        assert module is not None and report.errors == 0
        assert schemas_for(module).validator("data") is not None  # compiled, and kept with the module
        gone = weakref.ref(module)
        source = weakref.ref(next(iter(module.sources.values())))
        del module, report
        assert gone() is None and source() is None
    finally:
        if was_on:
            gc.enable()
