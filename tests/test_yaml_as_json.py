"""A YAML file written as JSON is read by `json`, never differently from how PyYAML would read it.

`sourcemap.parse_yaml` takes the JSON path only when the two readings cannot differ (issue 16: a module
without YAML syntax never imports PyYAML). The oracle is PyYAML itself, C and pure-Python loaders.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from hypothesis_profiles import property_settings

from cogtui.core.files.sourcemap import ParseFailure, parse_yaml

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["yes", "no", "on", "~", "1e5", "0x1F", "2001-12-14", "!!str", "*a", "&a b", "a: b", "#c"])
)
DOCUMENTS = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
).filter(lambda v: isinstance(v, (dict, list)))


def typed(value: Any) -> str:
    """A comparison that tells 1 from True and 1 from 1.0."""
    return json.dumps(value, sort_keys=True, default=repr) + repr(value)


def pyyaml(text: str, loader: type = yaml.CSafeLoader) -> str | None:
    """What PyYAML makes of `text` (the C loader, as parse_yaml uses for small text); None if it refuses it."""
    try:
        return typed(yaml.load(text, Loader=loader))
    except yaml.YAMLError:
        return None


def parsed(text: str) -> tuple[str, str | None]:
    try:
        source = parse_yaml(text, Path("module.yaml"))
    except ParseFailure:
        return "refused", None
    return source.kind, typed(source.value)


@property_settings(300)
@given(DOCUMENTS, st.booleans(), st.sampled_from([None, 0, 2]))
def test_json_shaped_yaml_reads_as_pyyaml_does(value: Any, ascii_only: bool, indent: int | None) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent)
    kind, got = parsed(text)
    assert got == pyyaml(text), (kind, text)
    if kind == "json":  # and the pure-Python loader agrees
        assert got == pyyaml(text, yaml.SafeLoader), text


def test_a_plain_json_manifest_takes_the_json_path_and_locates_its_keys() -> None:
    text = '{\n  "name": "x",\n  "version": "1.0.0",\n  "io": {"input": {"type": "object"}},\n  "n": -1.5\n}\n'
    source = parse_yaml(text, Path("module.yaml"))
    assert source.kind == "json" and source.value == yaml.safe_load(text)
    assert source.locate(["io", "input"], key=True) == (4, 10)
    assert source.locate(["version"]) == (3, 14)


TEXTS = ['{"a": 1e5}', '{"a": 1.5E+3}', '{"a":\t1}', '{"a": "\\ud83d\\ude00"}', '{"a": NaN}', "[1, 2,]"]
TEXTS += ["[1]\r\n", '{"' + "k" * 1100 + '": 1}', '{"a"\n: 1}', '["\u0085"]', '["\u007f"]']


@pytest.mark.parametrize("text", TEXTS)
def test_what_yaml_reads_differently_goes_to_pyyaml(text: str) -> None:
    kind, got = parsed(text)
    assert kind != "json" and got == pyyaml(text), text
