"""Writes the keys tables of docs/keys.md from the key registry (cogtui/tui/keys.py), so a new key, or a new screen's
keys, reach the guide without a hand edit of it.

    python -m tools.keys_doc          # rewrites docs/keys.md's tables (the prose around them stays as written)
    python -m tools.keys_doc --check  # exits 1, naming the command above, when the guide is not what this writes

One table per heading: the keys that belong to no screen package (keys.KEYS_DOC_TABLES: everywhere, the browser),
then each declared screen's (its `keys_heading` and `key_groups`, in the screens' order). A table lists the keys
whose id starts with each of its groups in turn, each group in the order its keys were registered. A row is the
default keys, the key's `doc` (else its description, lowercased) and its id. tests/tui/test_keys_doc.py fails
while the guide is stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

from cogtui.tui.keys import KEYS_DOC_TABLES, KeySpec, every_spec
from cogtui.tui.places import specs

ROOT = Path(__file__).resolve().parents[1]
KEYS_DOC = ROOT / "docs" / "keys.md"
COMMAND = "python -m tools.keys_doc"
BEGIN = (
    f"<!-- The tables below are written by `{COMMAND}` from cogtui/tui/keys.py and the screens' declarations:\n"
    "     change a key's `doc` there, not these rows. -->"
)
END = "<!-- end of the written tables -->"
SHOWN = {"question_mark": "?", "slash": "/"}  # how the guide writes the keys Textual names by a word


def shown_keys(spec: KeySpec) -> str:
    return ", ".join(f"`{SHOWN.get(k, k)}`" for k in spec.keys.split(","))


def words(spec: KeySpec) -> str:
    return spec.doc or spec.description[:1].lower() + spec.description[1:]


def tables() -> list[tuple[str, tuple[str, ...]]]:
    """Each table's heading and the key ids' first parts it lists, in the guide's order."""
    declared = [(s.keys_heading, s.key_groups or (s.name,)) for s in specs() if s.keys_heading]
    return [*KEYS_DOC_TABLES, *declared]


def unlisted(keys: list[KeySpec]) -> list[str]:
    """The ids of registered keys that no table lists."""
    groups = {group for _heading, listed in tables() for group in listed}
    return [k.id for k in keys if k.id.split(".", 1)[0] not in groups]


def rendered_tables() -> str:
    keys = every_spec()
    if missing := unlisted(keys):
        raise LookupError(f"no table of docs/keys.md lists {', '.join(missing)}: declare its screen's key_groups")
    out: list[str] = []
    for heading, groups in tables():
        listed = [k for group in groups for k in keys if k.id.split(".", 1)[0] == group]
        if listed:  # a screen with no keys of its own yet has no table
            out += [f"## {heading}", "", "| key | action | id |", "|---|---|---|"]
            out += [f"| {shown_keys(k)} | {words(k)} | `{k.id}` |" for k in listed]
            out.append("")
    return "\n".join(out)


def rendered(current: str) -> str:
    """`current` (the guide's text) with the part between the markers written from the registry."""
    head, begin, rest = current.partition(BEGIN)
    _old, end, tail = rest.partition(END)
    if not begin or not end:
        raise ValueError(f"docs/keys.md lacks the markers the tables go between:\n{BEGIN}\n{END}")
    return f"{head}{BEGIN}\n\n{rendered_tables()}{END}{tail}"


def main(argv: list[str]) -> int:
    if argv not in ([], ["--check"]):
        print(__doc__, file=sys.stderr)
        return 2
    current = KEYS_DOC.read_text(encoding="utf-8")
    wanted = rendered(current)
    if argv == ["--check"]:
        if current != wanted:
            print(f"docs/keys.md is not what the key registry gives: run `{COMMAND}`", file=sys.stderr)
            return 1
        return 0
    if current != wanted:
        KEYS_DOC.write_text(wanted, encoding="utf-8")
        print("rewrote docs/keys.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
