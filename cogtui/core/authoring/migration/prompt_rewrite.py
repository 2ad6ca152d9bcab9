"""The old response format in a prompt, rewritten to agree with the v2.2 section the migration appends (MIG-7).

A v2.1 or v1 prompt says how to answer in its own words: "Return `{"ok": true,
"data": {...}}`", a result field list with "- `confidence`: 0-1", "Return JSON
with `sections`, `rationale` and `confidence`". Appending the v2.2 envelope
section beside them would leave the prompt saying two things. What can be
rewritten without guessing is:

- an envelope written in the v2.1 shape (`{"ok": true, "data": …}`, `{ok,
  data}`, `{"ok": false, "error": …}`) gains `meta` before its `data` or
  `error`, in the literal's own quoting;
- a list item that only gives `confidence` its range ("- `confidence`: 0-1;",
  "- `confidence`：0-1 的置信度") is removed: confidence is meta's now, and the
  appended section says so;
- `confidence` in a list of result fields written in backticks ("`sections`,
  `rationale` and `confidence`") is taken out of the list.

Every other line that still mentions confidence is left as it is and quoted
back to the author to review (a confirm note), since only they can tell an
instruction about the value ("lower confidence below 0.6") from one that asks
for it in the result.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# `{"ok": true, "data"` / `{ok, data}` / `{'ok': false, 'error'`: ok directly followed by data or error.
_V21_ENVELOPE = re.compile(
    r"""(?P<open>\{\s*)(?P<q>["']?)ok(?P=q)(?P<value>\s*:\s*(?i:true|false))?(?P<sep>\s*,\s*)"""
    r"""(?=(?P<k>["']?)(?:data|error)\b(?P=k))"""
)
_CONFIDENCE_ITEM = re.compile(r"^(?P<indent>\s*)[-*+]\s+`?confidence`?\s*[:：]\s*(?P<rest>.*)$", re.IGNORECASE)
# What a list item says when it only gives the range: "0-1", "number from 0 to 1", "0-1 的置信度".
_RANGE_ONLY = re.compile(
    r"^(?:an?\s+)?(?:number|float|score|value)?\s*(?:\(|from|between)?\s*0(?:\.0+)?\s*(?:-|–|to|and|~|～|至)\s*"
    r"1(?:\.0+)?\s*\)?\s*(?:的?置信度|confidence)?\s*[.;,。；，]?$",
    re.IGNORECASE,
)
_CODE_LIST = re.compile(
    r"`[^`\n]{1,60}`(?:(?:\s*,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+|\s*[、，]\s*|\s*[和及]\s*)`[^`\n]{1,60}`)+"
)
_SEPARATOR = re.compile(r"`[^`\n]{1,60}`")
_MENTION = re.compile(r"\bconfidence\b|置信度", re.IGNORECASE)


class PromptRewrite(NamedTuple):
    """The prompt with its old response format rewritten, what changed (for the plan's notes, each naming its line
    in the new text), and the lines of the new text that still mention confidence, (line number, text)."""

    text: str
    changes: list[str]
    review: list[tuple[int, str]]


def rewrite_response_format(prompt: str) -> PromptRewrite:
    """`prompt` (its own line ends kept) with the v2.1 response format it states rewritten for the v2.2 envelope."""
    out: list[str] = []
    changes: list[str] = []
    lines = prompt.splitlines(keepends=True)
    index = 0
    while index < len(lines):
        line = lines[index]
        body, end = _split_end(line)
        item = _CONFIDENCE_ITEM.match(body)
        if item is not None:
            continued = _continuation(lines, index + 1, len(item.group("indent")))
            rest = " ".join([item.group("rest"), *(_split_end(c)[0].strip() for c in continued)]).strip()
            if _RANGE_ONLY.match(rest):
                _end_list_where_it_ended(out, lines, index + 1 + len(continued), body)
                changes.append(f"the result field {body.strip()!r} is removed: confidence is meta.confidence now")
                index += 1 + len(continued)
                continue
        new = _V21_ENVELOPE.sub(_with_meta, body)
        if new != body:
            changes.append(f"line {len(out) + 1}: the envelope gains meta ({new.strip()[:80]!r})")
        listed = _without_confidence_in_lists(new)
        if listed != new:
            changes.append(f"line {len(out) + 1}: `confidence` is taken out of the result fields it lists")
        out.append(listed + end)
        index += 1
    text = "".join(out)
    review = [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1) if _MENTION.search(line)]
    return PromptRewrite(text, changes, review)


def _split_end(line: str) -> tuple[str, str]:
    body = line.rstrip("\r\n")
    return body, line[len(body) :]


def _continuation(lines: list[str], start: int, indent: int) -> list[str]:
    """The lines that continue a list item indented `indent`: non-blank, indented deeper, not a new item."""
    out = []
    for line in lines[start:]:
        body = _split_end(line)[0]
        stripped = body.lstrip()
        if not stripped or len(body) - len(stripped) <= indent or stripped[:2] in ("- ", "* ", "+ "):
            break
        out.append(line)
    return out


def _end_list_where_it_ended(out: list[str], lines: list[str], after: int, removed: str) -> None:
    """When the removed item was its list's last, the item before it takes its closing punctuation
    (`…wording;` becomes `…wording.`)."""
    following = _split_end(lines[after])[0].lstrip() if after < len(lines) else ""
    if following[:2] in ("- ", "* ", "+ ") or not out:
        return
    last, end = _split_end(out[-1])
    closing = removed.rstrip()[-1:]
    if last.rstrip()[-1:] in (";", ",", "；", "，") and closing in (".", "。"):
        out[-1] = last.rstrip()[:-1] + closing + end


def _with_meta(found: re.Match[str]) -> str:
    q, k = found.group("q"), found.group("k")
    meta = f"{k}meta{k}" + (": {...}" if found.group("value") else "")
    return f"{found.group('open')}{q}ok{q}{found.group('value') or ''}{found.group('sep')}{meta}{found.group('sep')}"


def _without_confidence_in_lists(line: str) -> str:
    return _CODE_LIST.sub(_drop_confidence, line)


def _drop_confidence(found: re.Match[str]) -> str:
    """`a`, `b` and `confidence` -> `a` and `b`: the item goes with the separator before it (the one after it, for
    the first item); the list's last separator ("and") stays last."""
    text = found.group(0)
    items: list[str] = _SEPARATOR.findall(text)
    seps: list[str] = _SEPARATOR.split(text)[1:-1]
    names = [item.strip("`").strip().lower() for item in items]
    if "confidence" not in names or len(items) < 2:
        return text
    i = names.index("confidence")
    del items[i]
    if i == 0:
        del seps[0]
    elif i == len(seps):  # the last item: the separator before it ("and") replaces the one before that
        last = seps.pop()
        if seps:
            seps[-1] = last
    else:
        del seps[i - 1]
    if len(seps) == 1 and re.fullmatch(r"\s*,\s*(?:and|or)\s+", seps[0]):
        seps[0] = seps[0].replace(",", "", 1)  # two items take no serial comma: `a` and `b`
    return str(items[0]) + "".join(sep + item for sep, item in zip(seps, items[1:], strict=True))
