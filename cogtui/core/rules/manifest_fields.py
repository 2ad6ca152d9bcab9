"""Manifest fields cogtui cannot honour, or honours only in part: warning M020 naming the field.

"Declared means done": every field the spec defines either changes what the
runtime does (docs/manifest-fields.md lists where) or `cogn validate` and the
details pane say here why it does not. Checks that need the chosen provider
(structured_output, preferred_capabilities, modalities.output against
`cogn capabilities`) happen again at run time and land in `meta.warnings`.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from cogtui.core.files.written import as_written
from cogtui.core.module.memo import memo
from cogtui.core.module.model import Module
from cogtui.core.rules.contract_base import schema_file_unusable

# Keys the spec defines inside each section; anything else there is kept and ignored, so it is said.
SECTION_KEYS: dict[str, frozenset[str]] = {
    "failure": frozenset({"contract", "partial_allowed", "must_return_error_schema"}),
    "compat": frozenset({"accepts_v21_payload", "runtime_auto_wrap", "schema_output_alias", "accepts_v22_payload"}),
    "invocation": frozenset({"user_invocable", "agent_invocable"}),
    "response": frozenset({"mode", "chunk_type", "buffer_size"}),
    "runtime_requirements": frozenset({"structured_output", "max_input_tokens", "preferred_capabilities"}),
    "overflow": frozenset({"enabled", "recoverable", "max_items", "require_suggested_mapping"}),
    "enums": frozenset({"strategy", "unknown_tag"}),
    "modalities": frozenset({"input", "output"}),
    "tools": frozenset({"policy", "allowed", "denied"}),
}
# What cogtui's providers can be asked for (providers.declarations.KNOWN_FEATURES; the rules layer cannot import it).
KNOWN_CAPABILITIES = ("json_mode", "long_context", "streaming", "vision", "documents")

Finding = tuple[str, tuple[Hashable, ...]]  # (message, manifest path)


def _shown(module: Module, value: Any, *parts: Hashable, key: bool = False, quote: bool = True) -> str:
    """A manifest value as its author wrote it (CODE-9)."""
    manifest = module.files.manifest if module.files else None
    src = module.sources.get(manifest) if manifest else None
    return as_written(value, src, parts, key=key, quote=quote)


def unhonoured(module: Module) -> list[Finding]:
    """(message, path in the manifest) for each field that will not do all it says."""
    man = module.manifest
    out: list[Finding] = []
    for section, keys in SECTION_KEYS.items():
        value = man.get(section)
        if isinstance(value, dict):
            for key in value:
                if str(key) not in keys:
                    shown = _shown(module, key, section, key, key=True, quote=False)
                    out.append((f"{section}.{shown} is not a field the spec defines; it has no effect", (section, key)))
    out += _failure(module) + _compat(module) + _enums(module) + _runtime(module) + _tools(module)
    return out


def _failure(module: Module) -> list[Finding]:
    f = module.failure
    out: list[Finding] = []
    if "contract" in f and f["contract"] != "error_union":
        out.append(
            (
                f"failure.contract {_shown(module, f['contract'], 'failure', 'contract')}: the only failure "
                "contract is error_union, which is what runs",
                ("failure", "contract"),
            )
        )
    if (
        f.get("must_return_error_schema") is True
        and module.schemas.error is None
        and module.format.is_v2
        and not schema_file_unusable(module)  # its own diagnostic says it; "has no error schema" would be wrong
    ):
        out.append(
            (
                "failure.must_return_error_schema: schema.json has no error schema, so a model's error is held "
                "to the standard shape (code, message) only",
                ("failure", "must_return_error_schema"),
            )
        )
    return out


def _compat(module: Module) -> list[Finding]:
    c = module.compat
    out: list[Finding] = []
    alias = c.get("schema_output_alias")
    if "schema_output_alias" in c and alias != "data":
        out.append(
            (
                f"compat.schema_output_alias {_shown(module, alias, 'compat', 'schema_output_alias')}: the only "
                "alias is data; schema.json's output is read "
                "as data whenever data is absent (SPEC-v2.2 §3.1)",
                ("compat", "schema_output_alias"),
            )
        )
    if c.get("accepts_v22_payload") is False:
        out.append(
            (
                "compat.accepts_v22_payload: false cannot be honoured: a v2.2 envelope is a v2.5 sync envelope",
                ("compat", "accepts_v22_payload"),
            )
        )
    if not module.format.has_envelope_contract:
        for key in ("accepts_v21_payload", "runtime_auto_wrap"):
            if c.get(key) is False:
                out.append(
                    (
                        f"compat.{key}: false has no effect on a {module.format.value} module, whose answers are "
                        "bare payloads and are always wrapped",
                        ("compat", key),
                    )
                )
    return out


def _enums(module: Module) -> list[Finding]:
    tag = module.enums.get("unknown_tag")
    if isinstance(tag, str) and tag != "custom":
        return [
            (
                f"enums.unknown_tag {tag!r}: the runtime, the prompt and strict enums use {{{tag}, reason}}; "
                "the insights dashboard still counts only {custom, reason}",
                ("enums", "unknown_tag"),
            )
        ]
    return []


def _runtime(module: Module) -> list[Finding]:
    out: list[Finding] = []
    preferred = module.runtime_requirements.get("preferred_capabilities")
    if isinstance(preferred, list):
        for i, name in enumerate(preferred):
            if str(name) not in KNOWN_CAPABILITIES:
                out.append(
                    (
                        "runtime_requirements.preferred_capabilities: no provider declares "
                        f"{_shown(module, name, 'runtime_requirements', 'preferred_capabilities', i)} "
                        f"(known: {', '.join(KNOWN_CAPABILITIES)})",
                        ("runtime_requirements", "preferred_capabilities", i),
                    )
                )
    output = module.modalities.get("output")
    if isinstance(output, list):
        media = [_shown(module, m, "modalities", "output", i, quote=False) for i, m in enumerate(output) if m != "text"]
        if media:
            out.append(
                (
                    f"modalities.output {', '.join(media)}: no provider of cogtui generates media; such output "
                    "can only arrive as a URL or base64 the model writes into its JSON",
                    ("modalities", "output"),
                )
            )
    return out


def _tools(module: Module) -> list[Finding]:
    allowed = module.tools.get("allowed")
    if isinstance(allowed, list) and allowed:
        return [("tools.allowed: cogtui gives the model no tools, so none of these can be used", ("tools", "allowed"))]
    return []


def unhonoured_messages(module: Module) -> list[str]:
    """The messages of `unhonoured`, worked out once per loaded module (memo.py): every run warns with them."""
    found = memo(module, "unhonoured_messages", lambda: tuple(message for message, _ in unhonoured(module)))
    return list(found)


__all__ = ["KNOWN_CAPABILITIES", "SECTION_KEYS", "unhonoured", "unhonoured_messages"]
