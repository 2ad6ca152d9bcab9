"""From a finished run to its history record."""

from __future__ import annotations

import time
from typing import Any

from cogtui.core.history.store import RunRecord
from cogtui.core.module.model import Module
from cogtui.core.run.runner import RunResult


def to_record(module: Module, input_value: Any, args: str | None, result: RunResult) -> RunRecord:
    started = time.time() - (result.total_ms or 0) / 1000
    return RunRecord(
        module=module.name,
        module_version=module.version,
        module_format=module.format.value,
        provider=result.provider,
        model=result.model,
        input=input_value,
        args=args,
        envelope=result.envelope,
        started_at=started,
        ttfc_ms=result.ttfc_ms,
        total_ms=result.total_ms,
        usage=result.usage,
        outcome=result.outcome,
        session_id=result.session_id,
    )
