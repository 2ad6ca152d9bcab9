"""Which regular expressions can backtrack catastrophically.

A pattern with a quantified group that itself holds an unbounded quantifier
(`(a+)+`, `(\\w+\\s?)*`) takes exponential time in a backtracking engine (the
Python and JavaScript reference runtimes) on a near-miss value. cogtui's
schema engine matches such patterns in linear time, but a module is shared
with other runtimes, so `validate` warns (S008). Back-references and
look-around need a backtracking engine everywhere; cogtui runs them under a
step budget. The pure-Python fallback engine refuses both kinds outright.
"""

from __future__ import annotations

_UNBOUNDED = ("+", "*")


def backtracking_hazard(pattern: str) -> str | None:
    """Why `pattern` may backtrack catastrophically, or None when it cannot."""
    stack: list[bool] = []  # for each open group: does it hold an unbounded quantifier?
    i, n = 0, len(pattern)
    in_class = False
    feature: str | None = None
    while i < n:
        c = pattern[i]
        if c == "\\":
            nxt = pattern[i + 1 : i + 2]
            if not in_class and ((nxt.isdigit() and nxt != "0") or nxt == "k"):
                feature = feature or "a back-reference"
            i += 2
            continue
        if in_class:
            in_class = c != "]"
            i += 1
            continue
        if c == "[":
            in_class = True
        elif c == "(":
            if pattern.startswith(("(?=", "(?!", "(?<=", "(?<!"), i):
                feature = feature or "look-around"
            stack.append(False)
        elif c == ")" and stack:
            inner = stack.pop()
            if inner and _unbounded_at(pattern, i + 1):
                return "a repeated group holds a repetition (nested quantifiers)"
            if stack and (inner or _unbounded_at(pattern, i + 1)):
                stack[-1] = True
        elif _unbounded_at(pattern, i) and stack:
            stack[-1] = True
        i += 1
    return f"{feature} needs a backtracking engine" if feature else None


def _unbounded_at(pattern: str, i: int) -> bool:
    if i >= len(pattern):
        return False
    c = pattern[i]
    if c in _UNBOUNDED:
        return True
    if c == "{":
        close = pattern.find("}", i)
        body = pattern[i + 1 : close] if close > i else ""
        return "," in body and not body.split(",", 1)[1].strip()
    return False
