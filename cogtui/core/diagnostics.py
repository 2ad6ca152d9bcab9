"""Located diagnostics: what `cogn validate` reports and the editor underlines.

Every code is listed in CATALOGUE with its default severity and a one-line
summary; docs/diagnostics.md documents each one (a test keeps them in step).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable
from enum import StrEnum
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from cogtui.core.records import asdict, field, record

T = TypeVar("T")


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "info": 2}[self.value]


def plural(n: int, noun: str) -> str:
    """A count and its noun, for messages: "1 error", "2 errors", "1,000 runs"."""
    return f"{n:,} {noun}{'s' * (n != 1)}"


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """The suggestion `; did you mean 'x'?` naming the choice nearest to a mistyped `word`; "" when none is near."""
    import difflib

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


@record
class Diagnostic:
    """One finding about a module: its code, severity and message, located in a file (1-based line and column)."""

    severity: Severity
    code: str
    message: str
    file: Path | None
    line: int | None
    column: int | None
    hint: str = ""
    # The one fact it states, when another rule can state it too: what kind of finding about which field
    # (`missing meta.confidence`, `enum meta.risk`); empty when no other rule can (D192). Not shown.
    fact: str = field(default="", repr=False, compare=False)

    def __post_init__(self) -> None:
        # Validators quote the value they judged: a whole golden or envelope would fill the screen.
        object.__setattr__(self, "message", short_values(self.message))
        object.__setattr__(self, "hint", short_values(self.hint))

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        del out["fact"]
        out["severity"] = self.severity.value
        out["file"] = str(self.file) if self.file is not None else None
        return out

    @property
    def location(self) -> str:
        return format_location(self.file, self.line, self.column)

    def sort_key(self) -> tuple[Any, ...]:
        return (str(self.file or ""), self.line or 0, self.column or 0, self.severity.rank, self.code)


EXCERPT_CHARS = 60  # a quoted object, array or string longer than this is shortened


def _closing(text: str, start: int) -> int:
    """Index of the bracket closing the one at `start` (quotes respected), or -1."""
    pairs = {"{": "}", "[": "]"}
    stack: list[str] = []
    quote = ""
    index = start
    while index < len(text):
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in pairs:
            stack.append(pairs[char])
        elif stack and char == stack[-1]:
            stack.pop()
            if not stack:
                return index
        index += 1
    return -1


def _cut(value: str, closer: str) -> str:
    head = value[: EXCERPT_CHARS - 4]
    comma = head.rfind(", ")
    if comma > EXCERPT_CHARS // 3:
        head = head[:comma]
    return f"{head}, …{closer}" if closer else f"{head}…"


_OPENING = re.compile("[{\\['\"]")  # where a quoted value may start


def short_values(message: str) -> str:
    """`message` with every quoted object, array or string longer than EXCERPT_CHARS cut to a short excerpt.

    `{'verdict': 'approve', 'summary': '…', …} is not valid under any of the given schemas` instead of the
    whole object; the rest of the message is untouched.
    """
    if len(message) <= EXCERPT_CHARS:
        return message
    out: list[str] = []
    index = 0
    while True:
        opening = _OPENING.search(message, index)  # the text up to it is kept as it is
        if opening is None:
            out.append(message[index:])
            return "".join(out)
        at = opening.start()
        out.append(message[index:at])
        char = message[at]
        end = _closing(message, at) if char in "{[" else -1
        if char in "'\"" and (at == 0 or not message[at - 1].isalnum()):
            end = message.find(char, at + 1)
            while end > 0 and message[end - 1] == "\\":
                end = message.find(char, end + 1)
        if end > at and end - at + 1 > EXCERPT_CHARS:
            span = message[at : end + 1]
            out.append(_cut(span[:-1], "") + span[-1] if char in "'\"" else _cut(span[:-1], span[-1]))
            index = end + 1
        else:
            out.append(char)
            index = at + 1


def format_location(file: Path | None, line: int | None, column: int | None) -> str:
    """`file:line:col` as editors and terminals link it; `-` without a file."""
    if file is None:
        return "-"
    if line is None:
        return str(file)
    return f"{file}:{line}:{column or 1}"


class CodeInfo(NamedTuple):
    """A diagnostic code of the CATALOGUE: its default severity and one-line summary.

    A NamedTuple: immutable, and made once per code when the catalogue is read."""

    code: str
    severity: Severity
    summary: str


def _catalogue(rows: str) -> dict[str, CodeInfo]:
    out: dict[str, CodeInfo] = {}
    for line in rows.strip().splitlines():
        code, sev, summary = (p.strip() for p in line.split("|"))
        out[code] = CodeInfo(code, Severity(sev), summary)
    return out


# Default severities. `--v22` raises the V-codes that are warnings to errors.
CATALOGUE: dict[str, CodeInfo] = _catalogue(
    """
P001 | error | YAML syntax error
P002 | error | JSON syntax error
P003 | error | a file the module needs is missing or unreadable
P004 | error | a file has the wrong top-level shape (for example a list where a mapping is expected)
P005 | error | a file is not valid UTF-8
P006 | error | MODULE.md or module.md has no YAML frontmatter
P007 | error | a YAML document is over the size or alias-expansion limit
P008 | error | a key appears twice in one YAML mapping or JSON object
F001 | error | a module file leads outside the module folder (symlink or path)
F002 | error | a module file is not a regular file (FIFO, socket, device)
F003 | error | a module file is over the size limit
F004 | error | a module file is a symlink loop
M001 | error | a required manifest field is missing
M002 | error | version is not a semantic version
M003 | error | tier is not exec, decision or exploration
M004 | error | schema_strictness is not high, medium or low
M005 | error | enums.strategy is not strict or extensible
M006 | warning | excludes is empty
M007 | error | a manifest field has the wrong type
M008 | info | the manifest has a field the spec does not define
M009 | warning | the manifest name differs from the folder name
M010 | error | response.mode or response.chunk_type has an illegal value
M011 | error | modalities lists an unknown modality
M012 | error | context is not fork or main
M013 | error | error_codes declares a code outside E5000-E9999
M014 | warning | the v0 six-file layout is deprecated
M015 | error | overflow settings have illegal values
M016 | warning | a policy or constraint value is not recognised
M020 | warning | a manifest field is not honoured, or only in part, by this runtime
M021 | warning | runtime_requirements the chosen provider cannot meet (structured output, preferred capabilities)
S001 | error | a schema is not valid JSON Schema
S002 | error | a $ref does not resolve
S003 | error | an io reference in module.yaml does not resolve
S004 | error | the input schema is missing
S005 | error | the data (output) schema is missing
S006 | warning | schema.json has both data and output; output is ignored
S007 | error | a $ref points outside the module (remote refs are never fetched)
S008 | warning | a pattern can backtrack catastrophically in other runtimes
S009 | warning | a schema keyword belongs to another draft than the one the schema is read as
S010 | error | a v2.1/v2.2/v2.5 module has no schema.json
V000 | error | the module is not in v2.2 format (with --v22)
V001 | error | schema.json has no meta schema
V002 | error | the meta schema does not require confidence, risk and explain
V003 | error | meta.explain has no maxLength of at most 280
V004 | error | the data schema does not require rationale
V005 | warning | prompt.md does not describe the v2.2 envelope
V006 | warning | overflow.max_items disagrees with the insights maxItems in the schema
V007 | warning | overflow.require_suggested_mapping disagrees with the insights schema
V008 | warning | the tier is incoherent with schema_strictness, overflow or enums
V009 | warning | overflow is enabled but the data schema has no extensions.insights
V010 | warning | the enum strategy disagrees with the extensible enums in the schema
V011 | error | module.yaml has no overflow or enums (with --v22)
T001 | error | a golden test or example input does not match the input schema
T002 | error | a golden test's expected output is not a valid envelope (a warning in v2.x unless --strict)
T003 | error | an expected output's data does not match the data schema (a warning in v2.x unless --strict)
T004 | error | a test listed in module.yaml does not exist
T005 | error | a test path escapes the module folder
T006 | error | a tests entry is not of the form `input -> expected`
T007 | info | the module has no golden tests or examples
T008 | warning | a test input has no matching expected file
T009 | warning | a golden's $judge rubric cannot be used (a warning in v2.x unless --strict)
R001 | warning | prompt.md names an input field the input schema does not declare
R002 | info | a required input field the prompt never mentions
R003 | error | an @call: names a module that is not on the search path
R004 | warning | the prompt alone is over runtime_requirements.max_input_tokens
L001 | warning | the v1 output schema does not require confidence
L002 | warning | the v1 output schema does not require rationale
L003 | error | an example output does not match the output schema
"""
)


def diag(
    code: str,
    message: str,
    file: Path | None,
    line: int | None = None,
    column: int | None = None,
    hint: str = "",
    severity: Severity | None = None,
    fact: str = "",
) -> Diagnostic:
    info = CATALOGUE[code]
    return Diagnostic(severity or info.severity, code, message, file, line, column, hint, fact)


# Codes that judge a narrower part than the codes after them, which can state the same fact: an expected output's
# data against the data schema (T003, L003) is narrower than the whole envelope (T002).
NARROWER_FIRST = ("T003", "L003", "T002")


def one_fact_each(items: list[Diagnostic]) -> list[Diagnostic]:
    """`items` with each fact said once (D192): of the diagnostics at one place (file, line, column) that state
    one fact (the same `fact`: the same kind of finding about the same field), the most severe is kept, then the
    one whose code judges the narrowest part (NARROWER_FIRST), then the first found (a rule the spec names runs
    before the schema that restates it). Diagnostics without a fact are all kept, in their order."""
    return one_each(items, lambda d: (str(d.file), d.line, d.column, d.fact) if d.fact else None, _rank)


def one_each(items: list[T], key: Callable[[T], Hashable | None], rank: Callable[[T], tuple[int, ...]]) -> list[T]:
    """`items` in their order, keeping of those with one `key` the one of lowest `rank` (the first of equals);
    an item whose key is None is always kept."""
    best: dict[Hashable, int] = {}
    for index, item in enumerate(items):
        k = key(item)
        if k is None:
            continue
        kept = best.get(k)
        if kept is None or rank(item) < rank(items[kept]):
            best[k] = index
    keep = set(best.values())
    return [item for index, item in enumerate(items) if key(item) is None or index in keep]


def _rank(d: Diagnostic) -> tuple[int, int]:
    narrow = NARROWER_FIRST.index(d.code) if d.code in NARROWER_FIRST else len(NARROWER_FIRST)
    return d.severity.rank, narrow


def counts(diagnostics: list[Diagnostic] | tuple[Diagnostic, ...]) -> tuple[int, int]:
    """(errors, warnings)."""
    errors = sum(1 for d in diagnostics if d.severity is Severity.ERROR)
    warnings = sum(1 for d in diagnostics if d.severity is Severity.WARNING)
    return errors, warnings
