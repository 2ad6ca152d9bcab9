"""Which regular expressions can backtrack catastrophically.

A repeated group whose body can begin with a repetition (`(a+)+`,
`(\\w+\\s?)*`, `((a*))*`) takes exponential time in a backtracking engine (the
Python and JavaScript reference runtimes) on a near-miss value: each outer
iteration can split the same characters between the inner repetitions in
many ways. A group that begins with a fixed token (`(/[^/]*)*`) cannot, and
is not reported. cogtui's schema engine matches such patterns in linear time,
but a module is shared with other runtimes, so `validate` warns (S008).
Back-references and look-around need a backtracking engine everywhere; cogtui
runs them under a step budget. The pure-Python fallback engine refuses both
kinds outright. This is a screen, not a proof: it errs towards silence.
"""

from __future__ import annotations


class _Group:
    """An open group of the pattern being scanned (a plain class: scratch state that is never compared or
    shown, and a dataclass costs about a millisecond to build at import, on every validate)."""

    def __init__(self, start: int) -> None:
        self.start = start
        self.first_done = False  # the body's first atom has been seen
        self.first_repeats = False  # ... and it is an unbounded repetition
        self.atoms_since_alt = 0
        self.alternatives_start_repeating: list[bool] = []


def backtracking_hazard(pattern: str) -> str | None:
    """Why `pattern` may backtrack catastrophically, or None when it cannot."""
    stack: list[_Group] = []
    feature: str | None = None
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "(":
            if pattern.startswith(("(?=", "(?!", "(?<=", "(?<!"), i):
                feature = feature or "look-around"
            stack.append(_Group(i))
            i += _group_prefix(pattern, i)
            continue
        if c == "|" and stack:
            _end_alternative(stack[-1])
            i += 1
            continue
        if c == ")" and stack:
            group = stack.pop()
            _end_alternative(group)
            end = i + 1
            repeats = _unbounded_at(pattern, end)
            if repeats and any(group.alternatives_start_repeating):
                return "a repeated group begins with a repetition (nested quantifiers)"
            _atom_done(stack, repeats or any(group.alternatives_start_repeating))
            i = _skip_quantifier(pattern, end)
            continue
        if c == "\\":
            nxt = pattern[i + 1 : i + 2]
            if (nxt.isdigit() and nxt != "0") or nxt == "k":
                feature = feature or "a back-reference"
            end = i + 2
        elif c == "[":
            end = _class_end(pattern, i)
        else:
            end = i + 1
        _atom_done(stack, _unbounded_at(pattern, end))
        i = _skip_quantifier(pattern, end)
    return f"{feature} needs a backtracking engine" if feature else None


def _atom_done(stack: list[_Group], repeats: bool) -> None:
    if stack and not stack[-1].first_done:
        stack[-1].first_done = True
        stack[-1].first_repeats = repeats


def _end_alternative(group: _Group) -> None:
    group.alternatives_start_repeating.append(group.first_repeats)
    group.first_done = group.first_repeats = False


def _group_prefix(pattern: str, i: int) -> int:
    """Length of `(`, `(?:`, `(?<name>`, `(?=` ... so the body starts after it."""
    if not pattern.startswith("(?", i):
        return 1
    for prefix in ("(?:", "(?=", "(?!", "(?<=", "(?<!"):
        if pattern.startswith(prefix, i):
            return len(prefix)
    close = pattern.find(">", i)
    return close - i + 1 if pattern.startswith(("(?<", "(?P<"), i) and close > i else 2


def _class_end(pattern: str, i: int) -> int:
    j = i + 1
    if pattern[j : j + 1] == "^":
        j += 1
    if pattern[j : j + 1] == "]":
        j += 1
    while j < len(pattern) and pattern[j] != "]":
        j += 2 if pattern[j] == "\\" else 1
    return j + 1


def _unbounded_at(pattern: str, i: int) -> bool:
    if i >= len(pattern):
        return False
    c = pattern[i]
    if c in "+*":
        return True
    if c == "{":
        close = pattern.find("}", i)
        body = pattern[i + 1 : close] if close > i else ""
        return "," in body and not body.split(",", 1)[1].strip()
    return False


def _skip_quantifier(pattern: str, i: int) -> int:
    if i < len(pattern) and pattern[i] in "+*?":
        i += 1
    elif i < len(pattern) and pattern[i] == "{":
        close = pattern.find("}", i)
        i = close + 1 if close > i else i + 1
    if i < len(pattern) and pattern[i] in "?+":  # lazy or possessive
        i += 1
    return i
