"""The readable summary of a run (`cogn run` without --json or --stream)."""

from __future__ import annotations

from typing import Any

from cogtui.core.files.terminal_text import terminal_json

from .output import Printer

CACHE_WORDS = (
    ("cache_read_tokens", "read from the prompt cache"),
    ("cache_write_tokens", "written to the prompt cache"),
)


def _json_block(p: Printer, value: Any) -> None:
    text = terminal_json(value, indent=2)
    if p.color:
        from rich.syntax import Syntax

        p.console.print(Syntax(text, "json", theme="ansi_dark", background_color="default", word_wrap=True))
    else:
        p.stream.write(text + "\n")


def print_result(p: Printer, module: Any, result: Any) -> None:
    env = result.envelope
    meta = env.get("meta") or {}
    head = [
        (module.name, "bold"),
        (f" ({module.format.badge}, {module.known_tier or 'tier unknown'})", "dim"),
        (f"  via {result.provider}", "dim"),
    ]
    if result.model and result.model != result.provider:
        head.append((f"/{result.model}", "dim"))
    p.parts(*head)
    if result.ok:
        conf = meta.get("confidence")
        p.parts(("✓ ok", "ok"), (f"  confidence {conf}", None), (f"  risk {meta.get('risk')}", None))
        if meta.get("explain"):
            p.line(f"  {meta['explain']}", "dim")
        p.line()
        _json_block(p, env.get("data"))
    else:
        e = env.get("error") or {}
        p.parts(("✗ ", "error"), (f"{e.get('code')}", "error"), (f"  {e.get('message')}", None))
        if e.get("suggestion"):
            p.parts(("  suggestion: ", "dim"), (str(e["suggestion"]), None))
        if env.get("partial_data"):
            p.line("  partial data:", "dim")
            _json_block(p, env["partial_data"])
        details = e.get("details")
        if isinstance(details, dict) and details.get("violations"):
            for v in details["violations"][:10]:
                p.line(f"  - {v.get('message')}", "dim")
    for w in result.warnings:
        p.parts(("warning: ", "warning"), (w, None))
    timing = f"{result.total_ms:.0f} ms" if result.total_ms is not None else "-"
    if result.ttfc_ms is not None:
        timing += f", first chunk {result.ttfc_ms:.0f} ms"
    usage = result.usage or {}
    tokens = f", {usage.get('input_tokens', 0)} in / {usage.get('output_tokens', 0)} out tokens" if usage else ""
    cached = [f"{usage.get(k) or 0} {what}" for k, what in CACHE_WORDS if usage.get(k)]
    tokens += f" ({', '.join(cached)})" if cached else ""
    p.line(f"{timing}{tokens}, session {result.session_id}", "dim")
