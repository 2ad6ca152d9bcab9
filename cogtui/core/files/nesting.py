"""Where a document's nesting gets too deep: the position a "nested too deeply" diagnostic points at.

The parsers give up on deep nesting with a RecursionError, which carries no
position. A scan of the text finds where the nesting first passes
`NESTING_SHOWN` levels, far above any real module file and below the depth at
which a parser gives up: that is where the author has to look. It counts what
opens a level in JSON and YAML, outside strings and comments: a flow `[` or
`{`; in YAML also a block `- ` or `? ` indicator, and a line indented deeper
than the lines it is under.
"""

from __future__ import annotations

NESTING_SHOWN = 200  # levels: where the position points
TOO_DEEP_HINT = "Nothing in a module needs this depth: look for brackets or indentation that never close."


def too_deep_message(kind: str) -> str:
    """The diagnostic's message, `kind` being "YAML" or "JSON"."""
    return f"{kind} nested too deeply: over {NESTING_SHOWN} levels here"


def too_deep_position(text: str, yaml: bool) -> tuple[int, int]:
    """The 1-based line and column where the nesting passes NESTING_SHOWN levels; the start if the scan finds
    no such place (the parser gave up on something else it nests, e.g. an alias)."""
    offset = nesting_offset(text, yaml)
    if offset is None:
        return 1, 1
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


def nesting_offset(text: str, yaml: bool, limit: int = NESTING_SHOWN) -> int | None:
    """The offset of the first character that opens level `limit` + 1, or None if the nesting stays within."""
    flow = 0  # open [ and { (JSON, YAML flow style)
    indents: list[int] = []  # YAML block style: the indentation of each enclosing line
    line_levels = 0  # YAML: `- ` and `? ` indicators at the start of this line
    in_prefix = True  # YAML: only indentation and block indicators so far on this line
    indent = 0
    quote = ""
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 2
                continue
            if ch == quote:
                if quote == "'" and text.startswith("''", i):
                    i += 2
                    continue
                quote = ""
            i += 1
            continue
        if ch == "\n":
            in_prefix, indent, line_levels = True, 0, 0
            i += 1
            continue
        if yaml and in_prefix and flow == 0:
            if ch == " ":
                if not line_levels:
                    indent += 1
                i += 1
                continue
            if ch in "-?" and text[i + 1 : i + 2] in (" ", "\n", ""):
                if not line_levels:
                    _enter(indents, indent)
                line_levels += 1
                i += 1
                if flow + len(indents) + line_levels > limit:
                    return i - 1
                continue
            if ch == "#":
                i = _line_end(text, i)
                continue
            in_prefix = False
            if not line_levels:
                _enter(indents, indent)
        if ch in "[{":
            flow += 1
        elif ch in "]}":
            flow = max(0, flow - 1)
        elif ch == '"' or (ch == "'" and yaml):
            quote = ch
        elif yaml and ch == "#" and (i == 0 or text[i - 1] in " \t"):
            i = _line_end(text, i)
            continue
        if flow + len(indents) + line_levels > limit:
            return i
        i += 1
    return None


def _enter(indents: list[int], indent: int) -> None:
    """A line starts at `indent`: it closes the lines indented as deep or deeper, and opens its own level."""
    while indents and indents[-1] >= indent:
        indents.pop()
    indents.append(indent)


def _line_end(text: str, i: int) -> int:
    end = text.find("\n", i)
    return len(text) if end < 0 else end
