"""A YAML syntax error in the author's words, placed where the problem starts (CODE-7).

PyYAML and libyaml report where they gave up, which is often not where the
author went wrong: an unclosed quote is reported at the end of the file, an
unclosed `[` at the next key, a quoted value closed too late at the line where
the closing quote finally sits. `explain_yaml_error` turns the parser's
context and problem (the C and the pure-Python loader word them differently)
into one sentence and a hint, and moves the position to the token the problem
starts at: the opening quote or bracket, the key that lacks its `:`, the first
character of a key indented too deep. Every other error keeps the parser's
position and its own words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import yaml


class YamlProblem(NamedTuple):
    """Where the problem starts (0-based line and column, as the parser's marks) and what to say about it."""

    line: int
    column: int
    message: str
    hint: str


GENERIC_HINT = "Check indentation and quoting near this position."


def explain_yaml_error(exc: yaml.MarkedYAMLError, text: str, loader: type, line_offset: int = 0) -> YamlProblem:
    """The author's sentence for a parser error of `text`, read by `loader` (the class that failed); lines named
    in the sentence count `line_offset` lines before the text (a frontmatter's place in its file)."""
    context, problem = exc.context or "", exc.problem or ""
    at, here = exc.context_mark, exc.problem_mark
    mark = here or at
    line, column = (mark.line, mark.column) if mark else (0, 0)
    lines = text.splitlines()

    if "quoted scalar" in context and ("end of stream" in problem or "document" in problem) and at is not None:
        quote = _char(lines, at.line, at.column) or '"'
        inside = 'write \\" for a quote inside "…"' if quote == '"' else "write '' for a quote inside '…'"
        return YamlProblem(
            at.line,
            at.column,
            f"the {quote} that starts this value is never closed",
            f"Close the quote at the end of the value ({inside}).",
        )
    if "unknown escape" in problem and here is not None:
        column = here.column - 1 if _char(lines, here.line, here.column) != "\\" else here.column
        escape = (_char(lines, here.line, column) + _char(lines, here.line, column + 1)).strip()
        return YamlProblem(
            here.line,
            max(column, 0),
            f"{escape} is not an escape YAML knows in a double-quoted value",
            "Write \\\\ for a backslash, or use single quotes, where a backslash is an ordinary character.",
        )
    if "flow sequence" in context or "flow mapping" in context:
        opening, closing = ("[", "]") if "sequence" in context else ("{", "}")
        if at is not None and here is not None and at.line < here.line:
            return YamlProblem(
                at.line,
                at.column,
                f"the {opening} that starts here is never closed",
                f"Close it with {closing} after the last item; items are separated by commas.",
            )
        return YamlProblem(line, column, f"a ',' or '{closing}' is missing here", GENERIC_HINT)
    if "simple key" in context and "':'" in problem and at is not None:
        return YamlProblem(
            at.line,
            at.column,
            "this line is neither `key: value` nor a list item: its ':' is missing",
            "Add ': ' after the key, or indent the line under the value it continues.",
        )
    if "block mapping" in context or "block collection" in context:
        return _misplaced(exc, text, lines, loader, line_offset)
    if "mapping values are not allowed" in problem and here is not None:
        return _colon(lines, here.line, here.column)
    if "cannot start any token" in problem and here is not None:
        char = _char(lines, here.line, here.column)
        if char == "\t":
            return YamlProblem(
                here.line, here.column, "a tab here", "YAML indents with spaces only: replace the tab with spaces."
            )
        return YamlProblem(
            here.line,
            here.column,
            f"{char!r} cannot start a value that is not quoted" if char else "a value cannot start here",
            'Quote the value, e.g. key: "@value".',
        )
    if "undefined alias" in problem and here is not None:
        name = _word(lines, here.line, here.column + 1)
        return YamlProblem(
            here.line,
            here.column,
            f"*{name} refers to an anchor &{name} that is not defined before it",
            f"Define &{name} on the value it names, before any *{name}, or write the value out.",
        )
    if "node content" in problem and here is not None and _char(lines, here.line, here.column) in ("]", "}"):
        char = _char(lines, here.line, here.column)
        return YamlProblem(here.line, here.column, f"this {char} closes nothing", "Remove it, or quote the value.")
    return YamlProblem(line, column, _parser_words(exc, line_offset), _hint(problem, context))


def _misplaced(exc: yaml.MarkedYAMLError, text: str, lines: list[str], loader: type, offset: int) -> YamlProblem:
    """A block mapping or list that met a line it cannot place: a quoted value closed too late (or followed by
    text), else a line indented out of step with the entries around it."""
    here, at = exc.problem_mark, exc.context_mark
    if here is None:
        return YamlProblem(0, 0, _parser_words(exc, offset), GENERIC_HINT)
    quoted = _quoted_value_ending_on(text, loader, here.line)
    if quoted is not None and quoted[0] < here.line:
        return YamlProblem(
            quoted[0],
            quoted[1],
            f"the quoted value that starts here runs on to line {here.line + 1 + offset}: a closing quote is probably missing",
            "Close the quote at the end of the value.",
        )
    if quoted is not None:
        return YamlProblem(
            here.line,
            here.column,
            "text follows the closing quote of this value",
            "Put the whole value inside the quotes.",
        )
    what = "list" if "collection" in (exc.context or "") else "mapping"
    start = f" that starts on line {at.line + 1 + offset}" if at is not None else ""
    return YamlProblem(
        here.line,
        here.column,
        f"this line does not line up with the entries of the {what}{start}",
        "Indent it with as many spaces as its sibling entries (spaces only, no tabs).",
    )


def _colon(lines: list[str], line: int, column: int) -> YamlProblem:
    """`mapping values are not allowed here`: a key indented deeper than the line above it, or a value with ': '."""
    text = lines[line] if line < len(lines) else ""
    before = text[:column]
    indent = len(before) - len(before.lstrip(" "))
    if ":" not in before and indent > 0 and _indent_above(lines, line) < indent:
        return YamlProblem(
            line,
            indent,
            "this key is indented deeper than the line above it, so YAML reads it as part of that line's value",
            "Indent it like its sibling keys.",
        )
    return YamlProblem(line, column, "a value holds ': ', which starts a mapping", 'Quote the value, e.g. key: "a: b".')


def _indent_above(lines: list[str], line: int) -> int:
    for previous in reversed(lines[:line]):
        if previous.strip() and not previous.lstrip().startswith("#"):
            return len(previous) - len(previous.lstrip(" "))
    return 0


def _quoted_value_ending_on(text: str, loader: type, line: int) -> tuple[int, int] | None:
    """Where the last quoted scalar ending on `line` starts (0-based), scanning the tokens up to the error."""
    import yaml

    found = None
    scanner = loader(text)
    try:
        while True:
            token = scanner.get_token()
            if token is None or token.start_mark.line > line:
                break
            if isinstance(token, yaml.ScalarToken) and token.style in ('"', "'") and token.end_mark.line == line:
                found = (token.start_mark.line, token.start_mark.column)
    except yaml.YAMLError:
        pass
    finally:
        scanner.dispose()
    return found


def _word(lines: list[str], line: int, column: int) -> str:
    """The anchor-like name starting at `column` (up to a space, comma or bracket)."""
    text = lines[line][column:] if 0 <= line < len(lines) else ""
    end = next((i for i, c in enumerate(text) if c in " \t,[]{}"), len(text))
    return text[:end][:40]


def _char(lines: list[str], line: int, column: int) -> str:
    if 0 <= line < len(lines) and 0 <= column < len(lines[line]):
        return lines[line][column]
    return ""


def _parser_words(exc: yaml.MarkedYAMLError, line_offset: int) -> str:
    """The parser's context and problem both ("expected a single document in the stream, but found another
    document"), with the context's line when it is not the problem's."""
    problem = exc.problem or "invalid YAML"
    if not exc.context:
        return problem
    context, at, here = exc.context, exc.context_mark, exc.problem_mark
    if at is not None and here is not None and at.line != here.line:
        context += f" (line {at.line + 1 + line_offset})"
    return f"{context}, {problem}" if exc.problem else context


def _hint(problem: str, context: str) -> str:
    if "single document" in context:
        return "A YAML file holds one document: remove the second '---' and what follows it, or merge the two."
    if "tab" in problem:
        return "YAML indents with spaces only: replace the tab with spaces."
    return GENERIC_HINT
