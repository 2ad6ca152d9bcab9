"""The core of serving (cogtui/core/serving/): what is offered, schema parts standing alone, and runs that are
bounded like eval's, never wait on their client, and end as interrupted when cancelled."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import AsyncGenerator, AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from providerkit import StandInProvider, as_provider
from servekit import MODULES, answer_of

from cogtui.core.run.providers.base import Finish, ModelRequest, ProviderEvent, TextDelta
from cogtui.core.run.providers.replay.provider import ReplayProvider
from cogtui.core.serving.catalogue import Catalogue
from cogtui.core.serving.runs import RunService, TargetRefused
from cogtui.core.serving.schema_parts import rebased, standalone
from cogtui.core.settings.config import Config
from cogtui.core.workspace import Workspace

NARRATOR = Workspace.from_environment([MODULES]).load("incident-narrator")  # streams its answer in many chunks
CASE = json.loads((MODULES / "incident-narrator/tests/case1.input.json").read_text(encoding="utf-8"))


class Golden(StandInProvider):
    """Answers with a module's golden answer in small deltas, after `latency` seconds; counts calls in flight."""

    name = model = "golden"

    def __init__(self, module: str, latency: float = 0.0) -> None:
        self.body = answer_of(module)
        self.latency = latency
        self.in_flight = 0
        self.most = 0

    def capabilities(self) -> dict[str, Any]:
        return ReplayProvider().capabilities()  # what the module requires (streaming, json_mode, long_context)

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        try:
            await asyncio.sleep(self.latency)
            for i in range(0, len(self.body), 8):
                yield TextDelta(self.body[i : i + 8])
                await asyncio.sleep(0)
            yield Finish("stop")
        finally:
            self.in_flight -= 1


def service(provider: Any, **kw: Any) -> RunService:
    return RunService(as_provider(provider), Config(), record=False, **kw)


async def test_a_client_that_reads_nothing_never_holds_its_run_and_too_far_behind_cancels_it() -> None:
    unread = service(Golden("incident-narrator"))
    handle = unread.start(NARRATOR, CASE, stream=True)
    result = await handle.outcome()  # nobody read a chunk, and the run ended all the same
    assert result is not None and result.ok and len(handle.waiting) > 10  # all of them, meta to final
    behind = service(Golden("incident-narrator"), backlog=5)
    handle = behind.start(NARRATOR, CASE, stream=True)
    result = await handle.outcome()
    assert result is not None and result.interrupted and result.envelope["error"]["code"] == "E2010"
    assert result.envelope["error"]["message"] == "the client stopped reading (6 chunks waiting)"


async def test_runs_are_bounded_like_an_evals_and_every_one_ends() -> None:
    provider = Golden("incident-narrator", latency=0.05)
    runs = service(provider, jobs=2)
    handles = [runs.start(NARRATOR, CASE, stream=True) for _ in range(12)]
    results = await asyncio.gather(*(h.outcome() for h in handles))
    assert all(r is not None for r in results) and provider.most == 2 and runs.ended == 12


async def test_a_cancelled_run_is_interrupted_with_the_reason() -> None:
    runs = service(Golden("incident-narrator", latency=30))
    handle = runs.start(NARRATOR, CASE, stream=True)
    async for chunk in handle.chunks():
        if chunk.get("streaming"):
            break  # the run has begun (its meta chunk is out)
    handle.cancel("the client went away")
    result = await handle.outcome()
    assert result is not None and result.interrupted and result.envelope["error"]["message"] == "the client went away"


def test_a_call_names_its_own_target_only_when_the_server_allows_it() -> None:
    fixed = service(ReplayProvider())
    with pytest.raises(TargetRefused, match="--allow-target-override"):
        fixed.provider_for("openai", None)
    open_ = service(ReplayProvider(), allow_target_override=True)
    assert open_.provider_for(None, None) is open_.default and open_.provider_for("replay", "m").name == "replay"


def test_the_catalogue_says_what_appeared_changed_broke_and_vanished(tmp_path: Path) -> None:
    shutil.copytree(MODULES / "code-reviewer", tmp_path / "code-reviewer")
    shutil.copytree(MODULES / "release-notes", tmp_path / "release-notes")
    catalogue = Catalogue.from_environment([tmp_path])
    first = catalogue.refresh()
    assert sorted(first.appeared) == ["code-reviewer", "release-notes"] and first.listing_changed
    assert not catalogue.refresh().listing_changed  # nothing moved
    manifest = tmp_path / "code-reviewer/module.yaml"
    manifest.write_text(manifest.read_text().replace("Review a unified diff", "Review a diff"), encoding="utf-8")
    assert catalogue.refresh([manifest]).changed == ["code-reviewer"]
    schema = tmp_path / "release-notes/schema.json"
    schema.write_text("{", encoding="utf-8")
    broke = catalogue.refresh([schema])
    assert broke.vanished == ["release-notes"] and [r.name for r in broke.refused] == ["release-notes"]
    assert "schema.json:" in broke.refused[0].reasons[0]
    assert catalogue.refresh([schema]).refused == []  # the same reasons are said once
    shutil.rmtree(tmp_path / "code-reviewer")
    assert catalogue.refresh([tmp_path / "code-reviewer"]).vanished == ["code-reviewer"]


def test_a_schema_part_stands_alone_with_what_its_refs_reach() -> None:
    root = {
        "$defs": {"name": {"type": "string"}, "unused": {"type": "null"}},
        "input": {
            "type": "object",
            "properties": {
                "who": {"$ref": "#/$defs/name"},
                "again": {"$ref": "#/input/properties/who"},
                "self": {"$ref": "#/input"},
            },
        },
    }
    part = standalone(root["input"], root)
    assert part == {
        "type": "object",
        "properties": {"who": {"$ref": "#/$defs/name"}, "again": {"$ref": "#/$defs/who"}, "self": {"$ref": "#"}},
        "$defs": {"name": {"type": "string"}, "who": {"$ref": "#/$defs/name"}},
    }
    moved = rebased(part, "#/components/schemas/x")
    assert moved["properties"]["who"] == {"$ref": "#/components/schemas/x/$defs/name"}
    assert moved["properties"]["self"] == {"$ref": "#/components/schemas/x"}


async def test_a_run_waiting_for_its_turn_sends_heartbeats() -> None:
    """Call slots full: the third run waits before it starts, and its client hears heartbeats (`{}`) meanwhile."""
    runs = service(Golden("incident-narrator", latency=0.5), jobs=1)  # 2 runs admitted at once
    busy = [runs.start(NARRATOR, CASE, stream=True) for _ in range(2)]
    waiting = runs.start(NARRATOR, CASE, stream=True)
    stream = waiting.chunks(idle=0.01)
    assert await anext(stream) == {}  # before its meta chunk: it has not started
    assert isinstance(stream, AsyncGenerator)
    await stream.aclose()
    await asyncio.gather(*(h.outcome() for h in [*busy, waiting]))
    assert runs.ended == 3
