"""Property tests for the incremental field-delta parser (cogtui.core.run.field_stream.FieldStreamer).

Hypothesis builds JSON envelopes (and bare v2.1 payloads) with nasty strings:
quotes, backslashes, braces, control characters, astral-plane characters,
serialised with ensure_ascii on and off, in several layouts, wrapped in prose
and fences, and cut at arbitrary points. Whatever the cuts, the joined
deltas of each string field must equal the final string, and each
non-string field must arrive as exactly one value event equal to the final value.
"""

from __future__ import annotations

import json
from typing import Any, Protocol, TypeVar

from hypothesis import given
from hypothesis import strategies as st
from hypothesis_profiles import property_settings

from cogtui.core.run.field_stream import ENVELOPE_KEYS, FieldStreamer

TRICKY = '"\\{}[],:/\n\t\r\b\f\x00\x1f\u2028\u00e9\u4e2d\U0001f600\U00010348 '
chars = st.one_of(
    st.sampled_from(TRICKY),
    st.characters(codec="utf-8"),  # any code point but surrogates
    st.characters(min_codepoint=0x10000, max_codepoint=0x10FFFF, codec="utf-8"),  # astral: surrogate pairs in \\u form
)
strings = st.text(chars, max_size=30)
keys = st.text(chars, min_size=1, max_size=8)
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**20), 10**20), st.floats(allow_nan=False, allow_infinity=False), strings
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=4)),
    max_leaves=10,
)
layouts: st.SearchStrategy[dict[str, Any]] = st.sampled_from(
    [{}, {"indent": 2}, {"indent": 0}, {"separators": (",", ":")}, {"separators": (" , ", " : ")}]
)
prefixes = st.text(st.characters(codec="utf-8").filter(lambda c: c != "{"), max_size=20).map(lambda p: p + "```json\n")
suffixes = st.sampled_from(["", "\n```", '\n```\nHope {this} helps! }]"', '  {"another": "object"}'])


@st.composite
def envelopes(draw: st.DrawFn) -> dict[str, Any]:
    meta = {
        "confidence": draw(st.one_of(st.floats(0, 1), st.none())),
        "risk": draw(st.sampled_from(["low", "high"])),
        "explain": draw(strings),
    }
    data = draw(st.dictionaries(keys, values, max_size=6))
    data["rationale"] = draw(strings)
    parts = {"ok": True, "meta": meta, "data": data}
    order = draw(st.permutations(list(parts)))
    return {k: parts[k] for k in order}


bare_payloads = st.dictionaries(keys.filter(lambda k: k not in ENVELOPE_KEYS), values, min_size=1, max_size=6)


Ex = TypeVar("Ex")


class Draw(Protocol):
    """`st.data()`'s draw: one value of the strategy given."""

    def __call__(self, strategy: st.SearchStrategy[Ex], label: Any = None) -> Ex: ...


def serialise(draw: Draw, doc: dict[str, Any]) -> tuple[str, str]:
    body = json.dumps(doc, ensure_ascii=draw(st.booleans()), **draw(layouts))
    return body, draw(prefixes) + body + draw(suffixes)


def feed_in_pieces(draw: Draw, text: str) -> list[tuple[str, str, Any]]:
    cuts = sorted(set(draw(st.lists(st.integers(0, len(text)), max_size=25))))
    streamer = FieldStreamer()
    events: list[tuple[str, str, Any]] = []
    for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True):
        events += streamer.feed(text[a:b])
    assert streamer.done
    return events


def expected_fields(fields: dict[str, Any], events: list[tuple[str, str, Any]]) -> None:
    joined: dict[str, str] = {}
    values_seen: dict[str, list[Any]] = {}
    for kind, fld, payload in events:
        if kind == "delta":
            assert isinstance(payload, str) and payload
            joined[fld] = joined.get(fld, "") + payload
        else:
            assert kind == "value"
            values_seen.setdefault(fld, []).append(payload)
    for fld, value in fields.items():
        if isinstance(value, str):
            assert joined.get(fld, "") == value, (fld, joined.get(fld), value)
            assert fld not in values_seen
        else:
            assert values_seen.get(fld) == [value], (fld, values_seen.get(fld), value)
            assert fld not in joined
    assert set(joined) | set(values_seen) <= set(fields)  # nothing reported that is not a field


@property_settings(250)
@given(st.data(), envelopes())
def test_envelope_fields_survive_any_cuts(data: st.DataObject, doc: dict[str, Any]) -> None:
    _, text = serialise(data.draw, doc)
    events = feed_in_pieces(data.draw, text)
    fields = {f"{part}.{k}": v for part in ("meta", "data") for k, v in doc[part].items()}
    expected_fields(fields, events)


@property_settings(150)
@given(st.data(), bare_payloads)
def test_bare_v21_payload_fields_are_reported_as_data(data: st.DataObject, doc: dict[str, Any]) -> None:
    _, text = serialise(data.draw, doc)
    events = feed_in_pieces(data.draw, text)
    expected_fields({f"data.{k}": v for k, v in doc.items()}, events)


@property_settings(100)
@given(st.data(), envelopes())
def test_one_character_at_a_time(data: st.DataObject, doc: dict[str, Any]) -> None:
    _, text = serialise(data.draw, doc)
    streamer = FieldStreamer()
    events = [ev for ch in text for ev in streamer.feed(ch)]
    expected_fields({f"{part}.{k}": v for part in ("meta", "data") for k, v in doc[part].items()}, events)


def test_escapes_split_inside_a_surrogate_pair() -> None:
    text = json.dumps({"data": {"rationale": 'x\U0001f600"\\y'}}, ensure_ascii=True)
    start = text.index("\\ud83d")
    for cut in range(start, start + 12):
        streamer = FieldStreamer()
        events = streamer.feed(text[:cut]) + streamer.feed(text[cut:])
        assert "".join(p for k, f, p in events if f == "data.rationale") == 'x\U0001f600"\\y'
        # No delta ever holds half a surrogate pair.
        assert not any(0xD800 <= ord(c) <= 0xDFFF for _, _, p in events for c in p)


def test_prose_before_the_object_is_ignored() -> None:
    streamer = FieldStreamer()
    events = streamer.feed('Sure: "quoted", [list], : and } stray ')
    events += streamer.feed('closers first.\n```json\n{"meta": {"explain": "hi"}, "data": {"n": [1, "}"]}}')
    assert events == [("delta", "meta.explain", "hi"), ("value", "data.n", [1, "}"])]
