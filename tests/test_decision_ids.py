"""Decision ids: docs/spec-decisions.md numbers its decisions by topic, each id once; docs/decision-ids.md maps
every id of the first numbering (D1, D2, …) to them; every id cited in the code, tests and docs resolves; and no
comment in cogtui/ cites a decision instead of saying what the code does. tools/decision_ids.py does the
checking and the rewriting; the tests at the end run it on a small fixture.

When one of the repository tests fails, its message says what to do. The usual case: a decision written with an
old-style id (D280) came in from a branch. Give it the next number of its topic in spec-decisions.md, add its
row to decision-ids.md, and run `python -m tools.decision_ids rewrite`, then `check`."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tools import decision_ids
from tools.decision_ids import PROCEDURE, Records, read_records

# The ids of the first numbering, as docs/spec-decisions.md used them (D35-D38 twice).
FIRST_NUMBERING = [
    *range(1, 47),
    *range(50, 67),
    *range(70, 75),
    *range(80, 85),
    90,
    91,
    *range(95, 103),
    110,
    120,
    130,
    *range(140, 156),
    *range(164, 169),
    *range(170, 176),
    *range(180, 184),
    *range(190, 195),
    200,
    201,
    *range(210, 213),
    *range(220, 224),
    *range(230, 237),
    *range(240, 248),
    *range(250, 259),
    *range(280, 286),
]


@pytest.fixture(scope="module")
def records() -> Records:
    return read_records()


def said(problems: list[str]) -> str:
    return "\n".join(problems) + f"\n\nTo bring in a decision with an old-style id: {PROCEDURE}."


def test_every_topic_id_heads_one_decision_and_every_row_names_one(records: Records) -> None:
    assert len(records.titles) > 150
    problems = decision_ids.record_problems(records)
    assert not problems, said(problems)


def test_the_map_covers_every_id_of_the_first_numbering(records: Records) -> None:
    missing = [f"D{n}" for n in FIRST_NUMBERING if f"D{n}" not in records.rows]
    assert not missing, f"no row in {decision_ids.ID_MAP} for {', '.join(missing)}"
    assert records.doubled == {"D35", "D36", "D37", "D38"}
    assert all(len(records.rows[f"D{n}"]) >= 2 for n in range(35, 39))  # the first decision and the second


def test_every_id_cited_in_the_repository_resolves(records: Records) -> None:
    problems = decision_ids.reference_problems(records)
    assert not problems, said(problems)


def test_no_comment_in_cogtui_is_only_a_decision_id(records: Records) -> None:
    problems = decision_ids.comment_problems(records)
    assert not problems, said(problems)


# ------------------------------------------------------------------ the tool itself, on a fixture

SPEC = """# Spec decisions

## RUN: the runtime

### RUN-1. The run refuses what it cannot validate
### RUN-2. Retries back off
### RUN-3. The run deadline ends with E2002

## CODE: codes

### CODE-1. Legacy error codes, both ways
### CODE-2. Provider failures and their codes

## SHARE: sharing

### SHARE-1. The lock file
### SHARE-2. Sources
### SHARE-3. Git kept inert
"""

MAP = """| old | new | what it decided |
|---|---|---|
| D1 | RUN-1 | the run refuses |
| D2 | RUN-2, CODE-2 | retries back off; provider failure codes |
| D3 (1st) | RUN-3 | the run deadline |
| D3 (2nd) | CODE-1 | legacy codes |
| D40 | SHARE-1 | the lock |
| D41 | SHARE-2 | sources |
| D42 | SHARE-3 | git inert |
| D43 | SHARE-3 | git inert, again |
"""

CODE = '''"""A module (D1)."""


def f() -> None:
    y = 2  # a second try waits longer each time (D2)
    x = 1  # the server answered 503: a provider failure code (D2)
    z = 3  # D3
    # what is left in the folder when git stops
    # (D3)
    w = 4  # git is kept inert: no hook runs (D40-D42, D43)
    v = 5  # a new decision from another branch (D280)
    u = 6  # an id that is no decision (RUN-9) stands beside these words
'''


def fixture(root: Path) -> Path:
    (root / "docs").mkdir()
    (root / "cogtui").mkdir()
    (root / "docs/spec-decisions.md").write_text(SPEC)
    (root / "docs/decision-ids.md").write_text(MAP)
    (root / "cogtui/mod.py").write_text(CODE)
    return root / "cogtui/mod.py"


def test_rewrite_uses_the_words_around_a_reference_expands_ranges_and_never_guesses_a_doubled_id(
    tmp_path: Path,
) -> None:
    source = fixture(tmp_path)
    changed, left = decision_ids.rewrite(tmp_path, ["cogtui", "docs"])
    assert changed == ["cogtui/mod.py"]  # the records themselves are left as they are
    text = source.read_text()
    assert '"""A module (RUN-1)."""' in text
    assert "a provider failure code (CODE-2)" in text  # the words name the row's second decision
    assert "longer each time (RUN-2)" in text  # no words in common with either: the row's first
    assert "no hook runs (SHARE-1 to SHARE-3)" in text  # SHARE-3 once
    assert "z = 3  # D3" in text and "# (D3)" in text and "(D280)" in text
    assert [line.split(": ", 1)[0] for line in left] == ["cogtui/mod.py:7", "cogtui/mod.py:9", "cogtui/mod.py:11"]
    assert "two decisions had this number" in left[0] and "no row in docs/decision-ids.md" in left[2]
    assert decision_ids.rewrite(tmp_path, ["cogtui"]) == ([], left)  # a second run changes nothing


def test_check_says_what_does_not_resolve_and_which_comments_are_only_an_id(tmp_path: Path) -> None:
    fixture(tmp_path)
    later = "\n### RUN-2. Twice\n\n## D280. A later decision\nAs D1 says, and RUN-7.\n"
    (tmp_path / "docs/spec-decisions.md").write_text(SPEC + later)
    (tmp_path / "docs/decision-ids.md").write_text(MAP + "| D44 | SHARE-4 | gone |\n")
    problems = decision_ids.check(tmp_path, ["cogtui"])
    assert problems == [
        "docs/spec-decisions.md: RUN-2 heads two decisions: give the second the next free number",
        f"docs/spec-decisions.md: D280 is an old-style id: {PROCEDURE}",
        "docs/spec-decisions.md:23: D1: cite it by its topic id (docs/decision-ids.md)",
        "docs/spec-decisions.md:23: RUN-7 is no decision",
        "docs/decision-ids.md: the row of D44 names SHARE-4, which docs/spec-decisions.md has not",
        "cogtui/mod.py:7: D3: two decisions had this number: write the topic id the sentence means "
        "(see decision-ids.md)",
        "cogtui/mod.py:9: D3: two decisions had this number: write the topic id the sentence means "
        "(see decision-ids.md)",
        f"cogtui/mod.py:11: D280: no row in docs/decision-ids.md: {PROCEDURE}",
        "cogtui/mod.py:1: an old id: run `python -m tools.decision_ids rewrite`",
        "cogtui/mod.py:5: an old id: run `python -m tools.decision_ids rewrite`",
        "cogtui/mod.py:6: an old id: run `python -m tools.decision_ids rewrite`",
        "cogtui/mod.py:10: an old id: run `python -m tools.decision_ids rewrite`",
        "cogtui/mod.py:12: RUN-9 is no decision in docs/spec-decisions.md",
        "cogtui/mod.py:1: the comment is only an id: say what the code does and why, the id beside it",
        "cogtui/mod.py:7: the comment is only an id: say what the code does and why, the id beside it",
    ]


def test_the_procedure_for_a_later_old_style_decision_leaves_nothing_to_do(tmp_path: Path) -> None:
    source = fixture(tmp_path)
    source.write_text(
        CODE.replace("    z = 3  # D3\n    # what is left in the folder when git stops\n    # (D3)\n", "")
    )
    text = source.read_text().replace("A module (D1)", "A module that refuses what it cannot validate (D1)")
    source.write_text(text)
    (tmp_path / "docs/spec-decisions.md").write_text(SPEC + "\n### RUN-9. A later decision\n")
    (tmp_path / "docs/decision-ids.md").write_text(MAP + "| D280 | RUN-9 | a later decision |\n")
    assert decision_ids.rewrite(tmp_path, ["cogtui"]) == (["cogtui/mod.py"], [])
    assert "(RUN-9)" in source.read_text()
    assert decision_ids.check(tmp_path, ["cogtui"]) == []


def test_what_git_ignores_is_never_read_nor_rewritten(tmp_path: Path) -> None:
    """`make bench` installs cogtui into an ignored venv under bench/out: a third party's `D1` there is no
    reference of ours."""
    source = fixture(tmp_path)
    ignored = tmp_path / "cogtui/out/vendored.py"
    ignored.parent.mkdir()
    ignored.write_text("x = 1  # D1\n")
    (tmp_path / ".gitignore").write_text("out/\n")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    changed, _left = decision_ids.rewrite(tmp_path, ["cogtui"])
    assert changed == ["cogtui/mod.py"] and "RUN-1" in source.read_text()
    assert ignored.read_text() == "x = 1  # D1\n"
