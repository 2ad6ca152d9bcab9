"""A YAML syntax error is located where the problem starts and said in the author's words (CODE-7).

Each case runs through both loaders: libyaml, and PyYAML's pure-Python loader (which `parse_yaml` takes for text
with many brackets: a comment line of them sends the case there, one line further down).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from modkit import pos

from cogtui.core.files.sourcemap import ParseFailure, parse_yaml, split_frontmatter
from cogtui.core.module.loader import load_module

P = Path("/virtual/module.yaml")
TO_PYTHON_LOADER = "# " + "[" * 2500 + "\n"  # a comment: it changes which loader reads the text, nothing else

MANIFEST = "name: x\nversion: 1.0.0\nresponsibility: {value}\n\ntier: exec\nexcludes:\n  - a\n"

CASES = [
    # (id, text, where the problem starts (a marker the text holds), words the message has)
    ("unclosed-double-quote", MANIFEST.format(value='"abc'), '"abc', 'the " that starts this value is never closed'),
    ("unclosed-single-quote", MANIFEST.format(value="'abc"), "'abc", "the ' that starts this value is never closed"),
    (
        "quote-closed-too-late",
        'name: "x\nversion: 1.0.0\nresponsibility: abc\ntier: "exec"\n',
        '"x',
        "runs on to line 4: a closing quote is probably missing",
    ),
    ("text-after-quote", 'name: "x" y\n', "y\n", "text follows the closing quote"),
    ("unclosed-bracket", "name: x\nexcludes: [a, b\ntier: exec\n", "[a", "the [ that starts here is never closed"),
    ("unclosed-bracket-at-end", "name: x\nexcludes: [a, b\n", "[a", "the [ that starts here is never closed"),
    ("unclosed-brace", "name: x\npolicies: {network: deny\ntier: exec\n", "{net", "the { that starts here"),
    ("key-without-colon", "name: x\nresponsibility\ntier: exec\n", "responsibility", "its ':' is missing"),
    (
        "key-indented-too-deep",
        "name: x\npolicies:\n  network: deny\n    other: 1\ntier: exec\n",
        "other",
        "indented deeper than the line above it",
    ),
    (
        "key-indented-too-little",
        "name: x\npolicies:\n    network: deny\n  other: 1\ntier: exec\n",
        "other",
        "does not line up with the entries of the mapping that starts on line",
    ),
    ("list-item-in-a-mapping", "name: x\nexcludes:\n  - a\n - b\n", "- b", "does not line up"),
    ("tab-indent", "name: x\npolicies:\n\tnetwork: deny\n", "\tnetwork", "a tab here"),
    ("colon-in-a-value", "name: x\nresponsibility: do this: and that\n", ": and", "a value holds ': '"),
    ("unknown-escape", 'name: "a\\qb"\n', "\\q", "\\q is not an escape YAML knows"),
    ("undefined-alias", "name: *a\n", "*a", "*a refers to an anchor &a that is not defined"),
    ("stray-bracket", "name: x\nexcludes: ]\n", "]", "this ] closes nothing"),
]


@pytest.mark.parametrize("loader", ["libyaml", "python"])
@pytest.mark.parametrize(("text", "marker", "words"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_yaml_error_points_at_where_the_problem_starts(loader: str, text: str, marker: str, words: str) -> None:
    full = TO_PYTHON_LOADER + text if loader == "python" else text
    with pytest.raises(ParseFailure) as info:
        parse_yaml(full, P)
    d = info.value.diagnostic
    assert d.code == "P001"
    assert (d.line, d.column) == pos(full, marker)
    # Lines the message names count from the file's top, whichever loader read it.
    assert words.replace("line 4", f"line {4 + (loader == 'python')}") in d.message
    assert d.message.startswith("YAML syntax error: ") and d.hint


def test_the_unclosed_quote_of_a_manifest_is_reported_at_the_quote_not_the_end_of_the_file(tmp_path: Path) -> None:
    # The case: a long module.yaml whose line 4 opens a quote that is never closed.
    text = '# a manifest\nname: m\nversion: 1.0.0\nresponsibility: "Review a diff\n' + "\n".join(
        f"# comment {i}" for i in range(50)
    )
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "module.yaml").write_text(text + "\n", encoding="utf-8")
    module = load_module(tmp_path / "m")
    [d] = [d for d in module.load_diagnostics if d.code == "P001"]
    assert (d.line, d.column) == (4, 17) == pos(text, '"Review')
    assert "never closed" in d.message


def test_a_frontmatter_error_names_file_lines() -> None:
    text = '---\nname: "x\nversion: 1.0.0\nresponsibility: abc\ntier: "exec"\n---\nbody\n'
    parts = split_frontmatter(text)
    assert parts is not None
    yaml_text, _, _ = parts
    with pytest.raises(ParseFailure) as info:
        parse_yaml(yaml_text, P, line_offset=1)
    d = info.value.diagnostic
    assert (d.line, d.column) == pos(text, '"x')
    assert "runs on to line 5" in d.message  # line 5 of the file, line 4 of the frontmatter
