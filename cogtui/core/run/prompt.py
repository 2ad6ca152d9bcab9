"""Building what the model sees: argument substitution, the contract, the input block.

Only explicit context reaches the model (SPEC-v0.1): the module's own text,
its contract, this run's input and args, and the results of its own @call:
subagents. Nothing from earlier runs.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

from cogtui.core.module.memo import memo
from cogtui.core.module.model import Module
from cogtui.core.records import record
from cogtui.core.rules.declared_rules import unknown_tag
from cogtui.core.rules.media_walk import find_media

_ARGS = re.compile(r"\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS(?![A-Za-z0-9_\[])|\$(\d+)")
CALL = re.compile(r"@call:([A-Za-z0-9][A-Za-z0-9_.-]*)(?:\(([^()\n]*)\))?")


def split_args(args: str) -> list[str]:
    """Space-separated (SPEC-v0.1), with shell-style quotes when they balance."""
    try:
        return shlex.split(args)
    except ValueError:
        return args.split()


def substitute_args(text: str, args: str | None) -> str:
    """One pass, so `$1` never eats `$10` and substituted text is never substituted again."""
    raw = args or ""
    parts = split_args(raw)

    def repl(m: re.Match[str]) -> str:
        index = m.group(1) or m.group(2)
        if index is None:
            return raw
        i = int(index)
        return parts[i] if i < len(parts) else ""

    return _ARGS.sub(repl, text)


@record
class SubagentCall:
    """An `@call:module(args)` in a prompt, and where it is."""

    module: str
    args: str | None
    span: tuple[int, int]
    text: str


def find_calls(prompt: str) -> list[SubagentCall]:
    return [SubagentCall(m.group(1), m.group(2), m.span(), m.group(0)) for m in CALL.finditer(prompt)]


def render_calls(prompt: str, args: str | None) -> tuple[str, list[SubagentCall]]:
    """The prompt with `args` substituted, and its @call:s with their arguments substituted.

    Calls are found in the module's own text, the same ones the call-graph check
    walked: `--args "@call:x"` stays text, never a call that skips the depth,
    cycle and unknown-module checks. Spans refer to the returned text.
    """
    out: list[str] = []
    calls: list[SubagentCall] = []
    size = last = 0
    for m in CALL.finditer(prompt):
        out.append(substitute_args(prompt[last : m.start()], args))
        size += len(out[-1])
        call_args = substitute_args(m.group(2), args) if m.group(2) is not None else None
        text = f"@call:{m.group(1)}" + (f"({call_args})" if call_args is not None else "")
        out.append(text)
        calls.append(SubagentCall(m.group(1), call_args, (size, size + len(text)), text))
        size += len(text)
        last = m.end()
    out.append(substitute_args(prompt[last:], args))
    return "".join(out), calls


def inject_results(prompt: str, results: list[tuple[SubagentCall, dict[str, Any]]]) -> str:
    """Replace each @call: with the child's envelope, as a fenced JSON block."""
    out, last = [], 0
    for call, envelope in sorted(results, key=lambda r: r[0].span):
        out.append(prompt[last : call.span[0]])
        body = json.dumps(envelope, ensure_ascii=False, indent=2)
        out.append(f"[result of {call.text}]\n```json\n{body}\n```")
        last = call.span[1]
    out.append(prompt[last:])
    return "".join(out)


def call_placeholders(prompt: str, calls: list[SubagentCall]) -> str:
    """Each @call: as the prompt-as-sent shows it without running the subagent (D256): a placeholder naming the
    call where its result would be."""
    out, last = [], 0
    for call in sorted(calls, key=lambda c: c.span):
        out.append(prompt[last : call.span[0]])
        out.append(f"[result of {call.text}: the envelope {call.module} answers goes here; not run for the preview]")
        last = call.span[1]
    out.append(prompt[last:])
    return "".join(out)


def _bullets(items: Any) -> str:
    if isinstance(items, dict):
        return "\n".join(
            f"- {k}: {json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else v}" for k, v in items.items()
        )
    return "\n".join(f"- {x}" for x in items)


def system_prompt(module: Module) -> str:
    """The static part of every run's prompt (contract, envelope rules, schemas): built once per module."""
    return memo(module, "system_prompt", lambda: _system_prompt(module))


def _system_prompt(module: Module) -> str:
    lines = [
        f"You are running the Cognitive Module `{module.name}`"
        + (f" version {module.version}." if module.version else ".")
    ]
    if module.responsibility:
        lines.append(f"Responsibility: {module.responsibility}")
    if module.excludes:
        lines += ["", "You must NOT do any of the following:", _bullets(module.excludes)]
    if module.policies:
        lines += ["", "Policies:", _bullets(module.policies)]
    if module.constraints:
        lines += ["", "Constraints:", _bullets(module.constraints)]
        if module.constraints.get("no_inventing_data"):
            lines.append('Never invent data: write "unknown" for anything the input does not tell you.')
    lines += ["", contract_text(module)]
    return "\n".join(lines)


def contract_text(module: Module) -> str:
    data_schema = json.dumps(module.schemas.data or {"type": "object"}, ensure_ascii=False, indent=2)
    defs = module.schemas.root.get("$defs") if isinstance(module.schemas.root, dict) else None
    defs_text = (
        f"\n`#/$defs` referenced above:\n```json\n{json.dumps(defs, ensure_ascii=False, indent=2)}\n```" if defs else ""
    )
    c = module.contract
    if module.format.has_envelope_contract:
        insights = (
            f"- `data.extensions.insights`: at most {c.overflow_max_items.value} observations that do not fit the schema, "
            "each {text, suggested_mapping, evidence}"
            if c.overflow_enabled.value
            else "- do not add `extensions.insights`"
        )
        enums = (
            f'Enum fields that allow it may take `{{"{unknown_tag(module)}": "...", "reason": "..."}}` '
            "for a value not in the list."
            if c.enum_strategy.value == "extensible"
            else "Enum fields take only their listed values."
        )
        return f"""## Response format (envelope v2.2)
Reply with ONLY one JSON object, no prose:
{{"ok": true, "meta": {{"confidence": <0..1>, "risk": "none"|"low"|"medium"|"high", "explain": "<at most 280 characters>"}}, "data": {{...}}}}
- `meta` is the control plane: confidence for routing, risk for review, explain as a short summary.
- `data` must match this JSON Schema, and always include `rationale` (your full reasoning):
```json
{data_schema}
```{defs_text}
{insights}
{enums}
If you cannot do the task, reply {{"ok": false, "meta": {{...}}, "error": {{"code": "...", "message": "..."}}, "partial_data": {{...}}}}."""
    return f"""## Response format
Reply with ONLY one JSON object, no prose, matching this JSON Schema (include `rationale` and `confidence` from 0 to 1):
```json
{data_schema}
```{defs_text}"""


MAX_SOURCE = 200  # a URL or path longer than this is cut in the placeholder


def media_placeholder(index: int, ref: dict[str, Any]) -> str:
    """What the prompt text shows in place of the `index`-th (1-based) MediaInput (D31)."""
    from cogtui.core.rules.media_rules import mime_from_path, normalize_mime  # only for an input that holds media

    declared = ref.get("media_type")
    mime = normalize_mime(declared) if isinstance(declared, str) and declared.strip() else None
    kind, source = ref.get("type"), None
    if kind == "url" and isinstance(ref.get("url"), str):
        source = ref["url"]
        mime = mime or mime_from_path(re.split(r"[?#]", source, maxsplit=1)[0])
    elif kind == "file" and isinstance(ref.get("path"), str):
        source = ref["path"]
        mime = mime or mime_from_path(source)
    text = f"[media {index}: {mime or 'type unknown'}, attached"
    if source:
        text += f", from {source[:MAX_SOURCE]}" + ("..." if len(source) > MAX_SOURCE else "")
    return text + "]"


def prompt_input(input_value: Any) -> Any:
    """The input as the prompt shows it: each MediaInput replaced by its placeholder.

    The media themselves travel as attachments (numbered in the same document
    order as `$MEDIA_INPUTS`), so base64 `data` is never sent a second time as text.
    """
    refs = list(find_media(input_value))
    if not refs:
        return input_value
    if refs[0][0] == ():
        return media_placeholder(1, refs[0][1])
    out = _copy_containers(input_value)
    for n, (path, ref) in enumerate(refs, start=1):
        parent = out
        for step in path[:-1]:
            parent = parent[step]
        parent[path[-1]] = media_placeholder(n, ref)
    return out


def _copy_containers(value: Any) -> Any:
    """A copy of the dicts and lists (leaves shared: they are never modified)."""
    if isinstance(value, dict):
        return {k: _copy_containers(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy_containers(v) for v in value]
    return value


def input_text(input_value: Any) -> str:
    """The JSON the prompt's `## Input` block holds; also what max_input_tokens should be estimated on."""
    return json.dumps(prompt_input(input_value), ensure_ascii=False, indent=2)


def user_prompt(module: Module, prompt_body: str, input_value: Any, media_note: str = "") -> str:
    body = prompt_body.replace("$MEDIA_INPUTS", media_note or "(no media)")
    return f"{body.rstrip()}\n\n## Input\n```json\n{input_text(input_value)}\n```\n"


def estimate_tokens(text: str) -> int:
    """About four bytes of UTF-8 per token; CJK text costs about one token per character."""
    return max((len(text.encode("utf-8", "surrogatepass")) + 3) // 4, sum(1 for ch in text if ord(ch) > 0x2E80))
