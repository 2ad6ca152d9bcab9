"""Plain block YAML is read without PyYAML only when the value and every position are PyYAML's own (FMT-6).

`core/files/yaml_block.py` reads the block YAML manifests are written in; anything it is not sure of goes
to PyYAML. The oracle is PyYAML itself, C and pure-Python loaders: the value (types included) and the
line and column `locate` gives for every key and value. Documents come from every manifest in the
repository and from generated ones built of the scalars YAML 1.1 reads in surprising ways.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from hypothesis_profiles import property_settings

from cogtui.core.files.sourcemap import ParseFailure, parse_yaml
from cogtui.core.files.yaml_block import block_yaml

ROOT = Path(__file__).resolve().parents[1]
MANIFESTS = sorted(
    {
        *ROOT.joinpath("modules").rglob("module.yaml"),
        *ROOT.joinpath("tests").rglob("module.yaml"),
        *Path("/work/shared/conformance").rglob("*.yaml"),
    }
)

TRICKY = [
    *("yes", "No", "ON", "off", "true", "False", "~", "null", "NULL", "1", "-1", "+1", "01", "0", "-0", "0o7"),
    *("0x1F", "1_000", "1:20", "1.5", "1.", "-2.5", ".5", "1e5", "1.5e+3", ".inf", ".NaN", "2001-12-14"),
    *("2001-12-14 21:59:43.10 -5", "2.2.1", "v2.2", "a:b", "a: b", "a:", "a #b", "a#b", "'q'", "'it''s'"),
    *("'a: b'", '"d"', '"a\\nb"', '"x', "'x", "[a, b]", "[]", "[ ]", "[a,]", "[a, [b]]", "[a: b]", "{}"),
    *("{a: 1}", "|", ">", "&a x", "*a", "!!str x", "- x", "-x", "<<", "=", "é中文 名", "a  b", "@x", "`x"),
    *("%x", "?x", "? x", ",x", "x,y", "tests/a.input.json -> tests/a.expected.json", "a\tb", "a\u2028b"),
]
PLAIN = st.text(alphabet="ab1_./-é中 ", min_size=1, max_size=8).map(lambda s: s.strip() or "x")
SCALAR_TEXT = st.one_of(
    PLAIN, PLAIN, st.sampled_from(TRICKY), st.text(alphabet="ab: #-'\"[],1.", min_size=1, max_size=6)
)
KEY_TEXT = st.one_of(PLAIN, st.sampled_from(["name", "a b", "yes", "1", "x:y", "-k", "'q'", "<<", "null"]), SCALAR_TEXT)


def paths(value: Any, prefix: tuple[str | int, ...] = ()) -> Iterator[tuple[str | int, ...]]:
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, str):
                yield from paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from paths(v, (*prefix, i))


def same_as_pyyaml(text: str) -> bool:
    """True when the block reader read `text`; it must then agree with both PyYAML loaders in everything."""
    got = block_yaml(text)
    if got is None:
        return False
    value, _node = got
    ours = parse_yaml(text, Path("module.yaml"))
    for loader in (yaml.CSafeLoader, yaml.SafeLoader):
        reference = yaml.load(text, Loader=loader)  # must not raise: the reader read it
        assert repr(value) == repr(reference), (text, value, reference)
    theirs = parse_yaml(text, Path("module.yaml"), yaml_nodes=True)
    assert ours.kind == "yaml" and theirs.kind == "yaml"
    for where in paths(value):
        for key in (False, True):
            assert ours.locate(where, key) == theirs.locate(where, key), (text, where, key)
    return True


@pytest.mark.parametrize("manifest", MANIFESTS, ids=lambda p: str(p.relative_to(p.parents[2])))
def test_every_manifest_in_the_repository_reads_as_pyyaml_does(manifest: Path) -> None:
    text = manifest.read_text(encoding="utf-8")
    try:
        yaml.load(text, Loader=yaml.CSafeLoader)
    except yaml.YAMLError:
        assert block_yaml(text) is None
        return
    same_as_pyyaml(text)


def test_the_bundled_manifests_need_no_pyyaml() -> None:
    """The point of the reader: the manifests people write, as the bundled ones are, skip PyYAML."""
    bundled = sorted(ROOT.joinpath("modules").rglob("module.yaml"))
    assert bundled and all(block_yaml(p.read_text(encoding="utf-8")) is not None for p in bundled)


def render(value: Any, indent: int, step: int, indentless: bool, comments: bool) -> list[str]:
    """Block YAML lines for a tree of (key text, child) pairs, lists and scalar texts."""
    pad = " " * indent
    out: list[str] = []
    if isinstance(value, list) and value and isinstance(value[0], tuple):
        for key, child in value:
            if isinstance(child, str):
                out.append(f"{pad}{key}: {child}" + (" # note" if comments else ""))
            else:
                out.append(f"{pad}{key}:")
                deeper = indent if indentless and isinstance(child, list) and not _is_map(child) else indent + step
                out += render(child, deeper, step, indentless, comments)
    elif isinstance(value, list):
        for child in value:
            if isinstance(child, str):
                out.append(f"{pad}- {child}")
            elif _is_map(child):
                inner = render(child, indent + 2, step, indentless, comments)
                out.append(f"{pad}- {inner[0].lstrip(' ')}")
                out += inner[1:]
            else:
                out.append(f"{pad}-")
                out += render(child, indent + step, step, indentless, comments)
    else:
        out.append(f"{pad}{value}")
    return out


def _is_map(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and isinstance(value[0], tuple)


def trees(scalars: st.SearchStrategy[str], keys: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    return st.recursive(
        scalars,
        lambda inner: (
            st.lists(inner, min_size=1, max_size=3) | st.lists(st.tuples(keys, inner), min_size=1, max_size=4)
        ),
        max_leaves=10,
    ).filter(_is_map)


# Mostly documents PyYAML refuses or this reader leaves to it (no false acceptance); then manifest-like ones
# of valid scalars, which exercise what it reads.
TREES = trees(SCALAR_TEXT, KEY_TEXT)
VALID = [*("yes", "No", "~", "null", "1", "-1", "0", "1.5", "1.", "2.2.1", "v2.2", "a#b", "'q'", "'it''s'"), '"d"']
VALID += ["[a, b]", "[]", "[ ]", "[1, yes, ~]", "é中文 名", "a  b", "x,y", "tests/a.input.json -> tests/a.json", "-x"]
MANIFEST_LIKE = trees(st.one_of(PLAIN, st.sampled_from(VALID)), PLAIN.filter(lambda k: not k.startswith("-")))
SHAPES = (st.sampled_from([2, 4]), st.booleans(), st.booleans(), st.lists(st.integers(0, 40), max_size=3))


@property_settings(300)
@given(st.one_of(TREES, MANIFEST_LIKE, MANIFEST_LIKE), *SHAPES)
def test_generated_block_yaml_reads_as_pyyaml_does(
    tree: Any, step: int, indentless: bool, comments: bool, blanks: list[int]
) -> None:
    lines = render(tree, 0, step, indentless, comments)
    for at in blanks:  # blank and comment lines anywhere
        lines.insert(min(at, len(lines)), "" if at % 2 else "  # a comment")
    text = "\n".join(lines) + "\n"
    try:
        yaml.load(text, Loader=yaml.CSafeLoader)
    except yaml.YAMLError:
        assert block_yaml(text) is None, text
        return
    same_as_pyyaml(text)


def test_what_it_reads_and_what_it_leaves_to_pyyaml() -> None:
    read = "name: x  # c\nversion: 2.2.1\nn: 3\nf: 1.5\nok: yes\nnone: ~\nlist: [a, b]\ntests:\n- a -> b\n"
    assert block_yaml(read) is not None and same_as_pyyaml(read)
    for left in (
        "--- \na: 1\n",
        "a: 1\n...\n",
        "... 1: 1\n",
        "a: |\n  x\n",
        "a: &x 1\nb: *x\n",
        "a: 1.5e+3\n",
        "a: 2001-12-14\n",
        "a: 0x1F\n",
        "a: 'x\n  y'\n",
    ):
        assert block_yaml(left) is None, left
    with pytest.raises(ParseFailure):  # an error is always PyYAML's
        parse_yaml("a: b: c\n", Path("module.yaml"))


def test_frontmatter_positions_count_the_lines_before_it() -> None:
    """MODULE.md / module.md frontmatter: the same positions as PyYAML's, shifted by the lines before it."""
    text = "name: x\nversion: 1.0.0\nexcludes:\n  - a\n  - b"
    ours = parse_yaml(text, Path("MODULE.md"), line_offset=1)
    theirs = parse_yaml(text, Path("MODULE.md"), line_offset=1, yaml_nodes=True)
    assert ours.value == theirs.value
    for where in paths(ours.value):
        assert ours.locate(where) == theirs.locate(where) and ours.locate(where, True) == theirs.locate(where, True)
    assert ours.locate(("excludes", 1)) == (6, 5)
