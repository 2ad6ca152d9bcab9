"""Decision ids: rewrite old references (D172) to topic ids (GOLD-4) and check that every cited id resolves.

docs/spec-decisions.md holds the decisions under topic ids (`### GOLD-4. title`); docs/decision-ids.md maps
each old id to them (`| D172 | GOLD-4 | what it decided |`). Two commands, run from the repository's root:

    python -m tools.decision_ids rewrite [PATH ...]   # old references -> topic ids, in place; idempotent
    python -m tools.decision_ids check [PATH ...]     # what does not resolve, and comments that are only an id

`rewrite` uses a row's first new id unless the words around the reference share more with another of its
ids' titles; a range (D72-D74) becomes every id it spans; two old ids that became one are said once. It
never guesses the doubled D35-D38 (two decisions had each number): it lists them, and a person writes the
topic id the sentence means. `check` exits 1 when anything is listed; tests/test_decision_ids.py runs the
same checks.

A decision written later with an old-style id (`## D330. title`, cited as D330 in code): give it the next
number of its topic in spec-decisions.md (`### EVAL-9. title`), add the row `| D330 | EVAL-9 | ... |` to
decision-ids.md, and run `rewrite`, then `check`.
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
import tokenize
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DECISIONS = "docs/spec-decisions.md"
ID_MAP = "docs/decision-ids.md"
# Where references are rewritten and checked. The two records themselves, and this tool and its test (whose
# examples are old ids on purpose), are left as they are.
SCOPE = ("cogtui", "tests", "docs", "tools", "bench", "AGENTS.md", "README.md")
EXEMPT = (DECISIONS, ID_MAP, "tools/decision_ids.py", "tests/test_decision_ids.py")
# Code and prose only: data files (module fixtures, generated JSON such as reference.json and docs/schemas/) are
# rewritten by regenerating them from the prose, never in place.
SUFFIXES = (".py", ".md", ".tcss", ".toml")
PROCEDURE = (
    "give the decision the next number of its topic in docs/spec-decisions.md, add a row "
    "`| Dnnn | TOPIC-N | what it decided |` to docs/decision-ids.md, then run "
    "`python -m tools.decision_ids rewrite` and `python -m tools.decision_ids check`"
)

OLD = re.compile(r"(?<![\w-])D(\d{1,3})([a-z]?)(?:\s*[-–]\s*D(\d{1,3})([a-z]?))?\b")
OLD_HEADING = re.compile(r"^#{2,3} (D\d{1,3}[a-z]?)\. ", re.M)
REPEATED = re.compile(r"\b([A-Z]+-\d+)(?:, \1\b)+")  # two old ids that now are one: (RUN-4, RUN-4)
NEW_HEADING = re.compile(r"^### ([A-Z]+-\d+)\. (.*)$", re.M)
ROW = re.compile(r"^\| (D\d{1,3}[a-z]?)( \((?:1st|2nd)\))? \| ([^|]+) \| ([^|]*) \|", re.M)
WORD = re.compile(r"[a-z][a-z0-9_]+")
# Words that say nothing of what the code does: a comment made of ids and these stands instead of an
# explanation.
FILLER = frozenset(
    (
        *("a", "an", "the", "of", "in", "on", "as", "at", "by", "to", "for", "and", "or", "with", "see", "per"),
        *("cf", "also", "this", "that", "here", "decision", "decisions", "spec", "issue", "item", "revised"),
        "amended",
    )
)


@dataclass
class Records:
    """What the two records say: the live topic ids with their titles, the old-id rows and what is amiss."""

    titles: dict[str, str] = field(default_factory=dict)
    topics: tuple[str, ...] = ()
    rows: dict[str, list[str]] = field(default_factory=dict)  # old id -> new ids, in the row's order
    phrases: dict[str, list[str]] = field(default_factory=dict)  # old id -> what each new id decided
    doubled: set[str] = field(default_factory=set)  # old ids that named two decisions
    duplicates: list[str] = field(default_factory=list)
    old_headings: list[str] = field(default_factory=list)
    body: list[tuple[int, str]] = field(default_factory=list)  # spec-decisions.md's lines from its first topic


def read_records(root: Path = ROOT) -> Records:
    text = (root / DECISIONS).read_text(encoding="utf-8")
    rec = Records()
    for m in NEW_HEADING.finditer(text):
        if m.group(1) in rec.titles:
            rec.duplicates.append(m.group(1))
        rec.titles[m.group(1)] = m.group(2)
    rec.topics = tuple(sorted({i.rsplit("-", 1)[0] for i in rec.titles}, key=len, reverse=True))
    rec.old_headings = OLD_HEADING.findall(text)
    lines = text.split("\n")
    first = next((n for n, line in enumerate(lines) if line.startswith("## ")), len(lines))
    rec.body = [(n + 1, line) for n, line in enumerate(lines) if n >= first and not OLD_HEADING.match(line)]
    for m in ROW.finditer((root / ID_MAP).read_text(encoding="utf-8")):
        old, nth, news, what = m.group(1), m.group(2), m.group(3), m.group(4)
        if nth:
            rec.doubled.add(old)
        ids = [n.strip() for n in news.split(",") if n.strip()]
        rec.rows.setdefault(old, []).extend(i for i in ids if i not in rec.rows.get(old, []))
        parts = [p.strip() for p in what.split(";")]
        rec.phrases.setdefault(old, []).extend(parts if len(parts) == len(ids) else [what] * len(ids))
    return rec


def new_id_pattern(rec: Records) -> re.Pattern[str]:
    return re.compile(rf"\b(?:{'|'.join(rec.topics) or 'NONE'})-\d+\b")


def listed(root: Path) -> list[Path] | None:
    """The files git would commit under `root` (tracked, or new and not ignored), so that what `make bench` or a
    venv put in ignored folders is never read or rewritten; None outside a git work tree."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    return sorted(root / name for name in out.decode("utf-8", "surrogateescape").split("\0") if name)


def files(root: Path, paths: Iterable[str]) -> Iterator[Path]:
    known = listed(root)
    for name in paths:
        path = root / name
        if path.is_file():
            found = [path]
        elif known is not None:
            found = [p for p in known if p.is_relative_to(path) and p.suffix in SUFFIXES]
        else:
            found = sorted(p for p in path.rglob("*") if p.suffix in SUFFIXES)
        for p in found:
            rel = p.relative_to(root).as_posix()
            if rel not in EXEMPT and "__pycache__" not in p.parts and p.is_file():
                yield p


def words(text: str) -> set[str]:
    return {w.rstrip("s") for w in WORD.findall(text.lower()) if w not in FILLER}


def choose(rec: Records, old: str, context: str) -> str:
    """The new id a reference to `old` means: the row's first, unless the context shares more words with the
    title and phrase of another of its ids."""
    ids = rec.rows[old]
    near = words(context)
    scores = [len(near & words(rec.titles.get(i, "") + " " + p)) for i, p in zip(ids, rec.phrases[old], strict=True)]
    best = max(scores)
    return ids[scores.index(best)] if best > 0 and scores.count(best) == 1 else ids[0]


def span(rec: Records, start: tuple[int, str], end: tuple[int, str]) -> list[str]:
    """The old ids a range (D72-D74, D147b-D147d) spans, in order, that have rows."""
    if start[0] == end[0]:
        letters = "abcdefghijklmnopqrstuvwxyz"
        lo, hi = letters.find(start[1]), letters.find(end[1])
        return [f"D{start[0]}{c}" for c in letters[lo : hi + 1] if f"D{start[0]}{c}" in rec.rows]
    return [f"D{n}" for n in range(start[0], end[0] + 1) if f"D{n}" in rec.rows]


def render(ids: list[str]) -> str:
    """Ids joined; three or more consecutive numbers of one topic as `SHARE-1 to SHARE-6`."""
    out: list[str] = []
    run: list[str] = []

    def flush() -> None:
        out.extend([f"{run[0]} to {run[-1]}"] if len(run) >= 3 else run)
        run.clear()

    for i in ids:
        topic, n = i.rsplit("-", 1)
        if run and (run[-1].rsplit("-", 1)[0] != topic or int(run[-1].rsplit("-", 1)[1]) + 1 != int(n)):
            flush()
        run.append(i)
    flush()
    return ", ".join(out)


def rewrite_text(rec: Records, text: str) -> tuple[str, list[tuple[int, str, str]]]:
    """`text` with its old references rewritten, and those left: (line, reference, why)."""
    left: list[tuple[int, str, str]] = []
    lines = text.split("\n")
    out = []
    for n, line in enumerate(lines, 1):
        context = " ".join(lines[max(0, n - 2) : n])

        def one(m: re.Match[str], n: int = n, context: str = context) -> str:
            first = (int(m.group(1)), m.group(2))
            olds = span(rec, first, (int(m.group(3)), m.group(4))) if m.group(3) else [f"D{first[0]}{first[1]}"]
            why = ""
            if any(o in rec.doubled for o in olds):
                why = "two decisions had this number: write the topic id the sentence means (see decision-ids.md)"
            elif not olds or any(o not in rec.rows for o in olds):
                why = f"no row in {ID_MAP}: {PROCEDURE}"
            if why:
                left.append((n, m.group(0), why))
                return m.group(0)
            new: list[str] = []
            for o in olds:
                picks = rec.rows[o] if m.group(3) else [choose(rec, o, context)]
                new.extend(p for p in picks if p not in new)
            return render(new)

        new_line = OLD.sub(one, line)
        out.append(REPEATED.sub(r"\1", new_line) if new_line != line else line)
    return "\n".join(out), left


def comments(source: str) -> Iterator[tuple[int, str]]:
    """Each comment of a Python source as (first line, text): consecutive whole-line comments as one block, a
    trailing comment alone, each docstring (a string that is a statement) whole."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return
    block: list[str] = []
    start = last = 0
    prev = tokenize.NEWLINE
    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            text = tok.string.lstrip("#")
            if tok.line[: tok.start[1]].strip():
                yield tok.start[0], text
            elif block and tok.start[0] == last + 1:
                block.append(text)
            else:
                if block:
                    yield start, " ".join(block)
                block, start = [text], tok.start[0]
            last = tok.start[0]
            continue
        if tok.type == tokenize.NL:
            continue
        if block:
            yield start, " ".join(block)
            block = []
        if tok.type == tokenize.STRING and prev in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            yield tok.start[0], tok.string
        prev = tok.type
    if block:
        yield start, " ".join(block)


def id_only(text: str, new_ids: re.Pattern[str]) -> bool:
    """A comment that cites a decision and says fewer than three words of its own."""
    if not (new_ids.search(text) or OLD.search(text)):
        return False
    bare = OLD.sub(" ", new_ids.sub(" ", text))
    bare = re.sub(r"§[\d.]+|\b[A-Z]\d{3,4}\b|SPEC-v[\d.]+", " ", bare)  # section numbers and codes say nothing
    return len(words(bare)) < 3


def record_problems(rec: Records) -> list[str]:
    """What is amiss in the two records: an id heading two decisions, an old-style heading, a decision citing
    an old id or an id that is no decision, a row naming an id that is no decision."""
    problems = [f"{DECISIONS}: {i} heads two decisions: give the second the next free number" for i in rec.duplicates]
    problems += [f"{DECISIONS}: {o} is an old-style id: {PROCEDURE}" for o in rec.old_headings]
    new_ids = new_id_pattern(rec)
    for n, line in rec.body:
        problems += [f"{DECISIONS}:{n}: {m.group(0)}: cite it by its topic id ({ID_MAP})" for m in OLD.finditer(line)]
        problems += [
            f"{DECISIONS}:{n}: {m.group(0)} is no decision"
            for m in new_ids.finditer(line)
            if m.group(0) not in rec.titles
        ]
    for old, ids in sorted(rec.rows.items()):
        problems += [
            f"{ID_MAP}: the row of {old} names {i}, which {DECISIONS} has not" for i in ids if i not in rec.titles
        ]
    return problems


def reference_problems(rec: Records, root: Path = ROOT, paths: Iterable[str] = SCOPE) -> list[str]:
    """Each cited id that does not resolve: a topic id that is no decision, an old id left (with what to do)."""
    problems: list[str] = []
    new_ids = new_id_pattern(rec)
    for path in files(root, paths):
        rel = path.relative_to(root).as_posix()
        lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
        rest = rewrite_text(rec, "\n".join(lines))[1]
        problems += [f"{rel}:{n}: {ref}: {why}" for n, ref, why in rest]
        left = {n for n, _, _ in rest}
        for n, line in enumerate(lines, 1):
            problems += [
                f"{rel}:{n}: {m.group(0)} is no decision in {DECISIONS}"
                for m in new_ids.finditer(line)
                if m.group(0) not in rec.titles
            ]
            if OLD.search(line) and n not in left:
                problems.append(f"{rel}:{n}: an old id: run `python -m tools.decision_ids rewrite`")
    return problems


def comment_problems(rec: Records, root: Path = ROOT, under: str = "cogtui") -> list[str]:
    """Each comment or docstring of the Python code under `under` that cites a decision instead of explaining."""
    new_ids = new_id_pattern(rec)
    return [
        f"{path.relative_to(root).as_posix()}:{n}: the comment is only an id: say what the code does and why, "
        "the id beside it"
        for path in files(root, [under])
        if path.suffix == ".py"
        for n, body in comments(path.read_text(encoding="utf-8", errors="replace"))
        if id_only(body, new_ids)
    ]


def check(root: Path = ROOT, paths: Iterable[str] = SCOPE) -> list[str]:
    """Every problem, one line each as `file:line: what, and what to do`."""
    rec = read_records(root)
    return record_problems(rec) + reference_problems(rec, root, paths) + comment_problems(rec, root)


def rewrite(root: Path = ROOT, paths: Iterable[str] = SCOPE) -> tuple[list[str], list[str]]:
    """Rewrite every old reference under `paths`; the files changed, and the references left with why."""
    rec = read_records(root)
    changed, left = [], []
    for path in files(root, paths):
        text = path.read_text(encoding="utf-8")
        new, rest = rewrite_text(rec, text)
        rel = path.relative_to(root).as_posix()
        left += [f"{rel}:{n}: {ref}: {why}" for n, ref, why in rest]
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(rel)
    return changed, left


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("rewrite", "check"):
        print(__doc__, file=sys.stderr)
        return 2
    paths = argv[1:] or list(SCOPE)
    if argv[0] == "rewrite":
        changed, left = rewrite(ROOT, paths)
        print(f"rewrote {len(changed)} file(s)" + "".join(f"\n  {c}" for c in changed))
        print("\n".join(["left as they are:", *left]) if left else "nothing left to decide")
        return 1 if left else 0
    problems = check(ROOT, paths)
    print("\n".join(problems) if problems else "every decision id resolves; no comment is only an id")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
