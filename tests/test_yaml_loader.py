"""LinearSafeLoader (cogtui/core/files/yaml_loader.py) reads YAML exactly as PyYAML's SafeLoader does: the same
tokens at the same places, the same values, the same errors. It only keeps its simple keys in less time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from hypothesis_profiles import property_settings

from cogtui.core.files.sourcemap import ParseFailure, parse_yaml
from cogtui.core.files.yaml_loader import LinearSafeLoader

REPO = Path(__file__).resolve().parents[1]


def tokens(loader_class: type, text: str) -> list[Any]:
    """Every token with where it starts and ends, or the error that stopped the scan (with its marks)."""
    loader = loader_class(text)
    out: list[Any] = []
    try:
        while loader.check_token():
            token = loader.get_token()
            value = (getattr(token, "value", None), getattr(token, "plain", None), getattr(token, "style", None))
            out.append((type(token).__name__, token.start_mark.index, token.end_mark.index, value))
    except yaml.YAMLError as exc:
        out.append(("error", str(exc)))
    finally:
        loader.dispose()
    return out


def loaded(loader_class: type, text: str) -> Any:
    try:
        return ("value", yaml.load(text, Loader=loader_class))  # both are safe loaders
    except (yaml.YAMLError, RecursionError, ValueError, TypeError) as exc:
        return ("error", type(exc).__name__, str(exc))


def assert_same(text: str) -> None:
    assert tokens(LinearSafeLoader, text) == tokens(yaml.SafeLoader, text)
    assert loaded(LinearSafeLoader, text) == loaded(yaml.SafeLoader, text)


CRAFTED = [
    "a: 1\nb: [1, 2, {c: d}]\n",
    "[a, b: c, {d: e}, [f, g: h]]",
    "{a\n: 1}",  # a flow key split over two lines
    "? complex\n: key\n- not allowed here",
    "a\nb: c",  # a required simple key that never finds its ':'
    "x" * 1030 + ": 1\n",  # a key past the 1,024-character reach
    "[" + "k" * 1030 + ": 1]",
    "{" + ", ".join(f"k{i}: [v{i}, {{w: x}}]" for i in range(400)) + "}",  # many keys saved and dropped on one line
    "[" * 300 + "]" * 300,  # deep enough to keep ~300 keys, shallow enough to compose
    "a: &x [1, 2]\nb: *x\nc: !!str 3\n",
    "'quoted: not a key'\n\"also\": [ok]\n",
    "-  - - a\n   - b\n  - c\n",
]


@pytest.mark.parametrize("text", CRAFTED, ids=range(len(CRAFTED)))
def test_crafted_documents_read_alike(text: str) -> None:
    assert_same(text)


def test_every_yaml_file_of_the_repository_reads_alike() -> None:
    files = sorted(p for folder in ("modules", "tests") for p in (REPO / folder).rglob("*.yaml"))
    assert len(files) > 10
    for path in files:
        assert_same(path.read_text(encoding="utf-8", errors="replace"))


def test_nesting_that_outlasts_the_key_reach_scans_alike() -> None:
    # 1,100 levels on one line: the first keys go stale by reach while the later ones are kept.
    assert tokens(LinearSafeLoader, "[" * 1100 + "]" * 1100) == tokens(yaml.SafeLoader, "[" * 1100 + "]" * 1100)


YAMLISH = st.text(alphabet=st.sampled_from(list("ab1 :,-?[]{}\n'\"#&*!|>")), max_size=60)


@property_settings(300)
@given(YAMLISH)
def test_random_yaml_reads_alike(text: str) -> None:
    assert_same(text)


def test_parse_yaml_sends_deep_nesting_to_the_linear_loader() -> None:
    # The nested-too-deeply diagnostic is found as before: located where the nesting passes 200 levels.
    with pytest.raises(ParseFailure) as info:
        parse_yaml("a: " + "[" * 50_000 + "]" * 50_000 + "\n", Path("m.yaml"))
    d = info.value.diagnostic
    assert (d.code, d.message, d.line, d.column) == ("P001", "YAML nested too deeply: over 200 levels here", 1, 203)
