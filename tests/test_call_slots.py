"""Call slots (run/concurrency.py): `-j N` bounds the model calls in flight, not the runs around them. A run
prepares its request and checks its answer outside a slot, so the next call goes out as soon as one ends."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator

import pytest
from providerkit import StandInProvider

from cogtui.core.run.concurrency import RUNS_PER_SLOT, CallSlots, bounded
from cogtui.core.run.providers.base import ModelRequest, ProviderEvent, TextDelta, Usage


class Timeline:
    def __init__(self) -> None:
        self.events: list[str] = []
        self.in_flight = 0
        self.most_in_flight = 0


def named(name: str) -> ModelRequest:
    """A request the timeline names by its system prompt."""
    return ModelRequest(system=name, messages=[])


class Answering(StandInProvider):
    """A provider that holds each call for `hold` seconds, then answers; it writes what happens on a timeline."""

    name = "answering"
    model = "m"

    def __init__(self, timeline: Timeline, hold: float = 0.0) -> None:
        self.timeline = timeline
        self.hold = hold

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        t = self.timeline
        t.events.append(f"call {request.system}")
        t.in_flight += 1
        t.most_in_flight = max(t.most_in_flight, t.in_flight)
        try:
            await asyncio.sleep(self.hold)
            yield TextDelta("{}")
            yield Usage(1, 1)
        finally:
            t.in_flight -= 1
            t.events.append(f"end {request.system}")


async def one_run(slots: CallSlots, provider: Answering, name: str, timeline: Timeline) -> str:
    """What a run does: prepare, call (to the stream's end), then check the answer."""
    timeline.events.append(f"prepare {name}")
    async for _event in slots.wrap(provider).stream(named(name)):
        pass
    timeline.events.append(f"check {name}")
    return name


async def test_the_next_call_goes_out_before_the_answer_before_it_is_checked() -> None:
    timeline = Timeline()
    slots = CallSlots(1)
    provider = Answering(timeline, hold=0.01)
    names = ["a", "b", "c"]
    done = await bounded(names, slots.runs, lambda n: one_run(slots, provider, n, timeline), None)
    assert done == names
    events = timeline.events
    # b was prepared while a's call was in flight, and its call went out before a's answer was checked.
    assert events.index("prepare b") < events.index("end a")
    assert events.index("end a") < events.index("call b") < events.index("check a")
    assert events.index("end b") < events.index("call c") < events.index("check b")
    assert timeline.most_in_flight == 1


@pytest.mark.parametrize("jobs", [1, 3])
async def test_at_most_jobs_calls_in_flight_and_every_run_done(jobs: int) -> None:
    timeline = Timeline()
    slots = CallSlots(jobs)
    assert slots.runs == jobs * RUNS_PER_SLOT
    provider = Answering(timeline, hold=0.005)
    names = [f"r{i}" for i in range(10)]
    done = await bounded(names, slots.runs, lambda n: one_run(slots, provider, n, timeline), None)
    assert done == names
    assert timeline.most_in_flight == jobs
    assert sum(e.startswith("call ") for e in timeline.events) == 10


async def test_on_call_is_said_once_as_the_first_call_takes_a_slot() -> None:
    timeline = Timeline()
    slots = CallSlots(1)
    said: list[str] = []
    slotted = slots.wrap(Answering(timeline), lambda: said.append("started"))
    assert said == []  # wrapping is not calling: a run answered from the cache never says it started
    for request in ("first", "retry"):
        async for _event in slotted.stream(named(request)):
            pass
    assert said == ["started"]


async def test_a_call_left_early_gives_its_slot_back() -> None:
    timeline = Timeline()
    slots = CallSlots(1)
    provider = Answering(timeline)
    stream = slots.wrap(provider).stream(named("left"))
    async for _event in stream:
        break  # the run stops reading (a cancelled run, a failed parse)
    assert isinstance(stream, AsyncGenerator)
    await stream.aclose()
    async with asyncio.timeout(2):  # the slot is free again: the next call is not held back
        async for _event in slots.wrap(provider).stream(named("next")):
            pass
    assert "call next" in timeline.events


def test_jobs_must_be_at_least_one() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        CallSlots(0)
