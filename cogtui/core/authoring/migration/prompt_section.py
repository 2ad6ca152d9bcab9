"""The "Response Format (Envelope v2.2)" section added to prompt.md (SPEC-v2.2 §1, module-formats.md).

The section is appended, separated by a blank line, in the prompt file's own
line endings; the old response format above it is rewritten to agree with it
first (prompt_rewrite.py). It mentions meta,
confidence, risk, explain and rationale, which is what `validate` rule V005
looks for (docs/spec-decisions.md FMT-15).
"""

from __future__ import annotations

import re

from cogtui.core.authoring.migration.schema_upgrade import OverflowSettings
from cogtui.core.rules.contract_checks import ENVELOPE_WORDS

SECTION_TITLE = "## Response Format (Envelope v2.2)"
_ENVELOPE_HEADING = re.compile(r"^#{1,6}[^\n]*envelope", re.I | re.M)


def describes_envelope(prompt: str) -> bool:
    """True when the prompt already has an envelope section that names every word V005 checks."""
    lower = prompt.lower()
    return bool(_ENVELOPE_HEADING.search(prompt)) and all(w in lower for w in ENVELOPE_WORDS)


def envelope_section(overflow: OverflowSettings, confidence_in_result: bool = True) -> str:
    """The section, LF line ends, starting with its heading and ending with a newline. `confidence_in_result`:
    the prompt above may still ask for confidence in the result, so the section says where it goes."""
    if overflow.enabled:
        mapping = (
            " and `suggested_mapping` (the schema field or enum value that would capture it)"
            if overflow.require_mapping
            else " (and `suggested_mapping` when you can name the schema field it belongs in)"
        )
        insights = (
            f"- `extensions.insights`: at most {overflow.max_items} observations that do not fit the schema, "
            f"each with `text`{mapping}"
        )
    else:
        insights = "- no `extensions`: this module does not return overflow insights"
    redirect = (
        "\nIf the instructions above ask for `confidence` in the result, report it as `meta.confidence`.\n"
        if confidence_in_result
        else ""
    )
    return f"""{SECTION_TITLE}

You MUST wrap your response in the v2.2 envelope:
`{{"ok": true, "meta": {{...}}, "data": {{...}}}}` on success, and
`{{"ok": false, "meta": {{...}}, "error": {{"code": "...", "message": "..."}}, "partial_data": {{...}}}}` on failure.

### meta (Control Plane)
- `confidence`: 0-1, how sure you are; used for routing decisions
- `risk`: "none" | "low" | "medium" | "high" (the highest risk of any change you propose)
- `explain`: a short summary for middleware and UI, at most 280 characters

### data (Data Plane)
- the result fields described above
- `rationale`: your detailed reasoning, for audit (no length limit)
{insights}
{redirect}"""


def append_section(prompt: str, section_lf: str, newline: str) -> str:
    """`prompt` verbatim, then the section after one blank line, in `newline` line endings."""
    lf_prompt = prompt.replace("\r\n", "\n")
    if not lf_prompt.strip() or lf_prompt.endswith("\n\n"):
        glue = ""
    elif lf_prompt.endswith("\n"):
        glue = "\n"
    else:
        glue = "\n\n"
    return prompt + (glue + section_lf).replace("\n", newline)
