"""`cogn check`: judge one JSON document against the spec, offline.

Kinds: envelope, chunk, stream (JSON array or NDJSON of chunks) and input (a
module's input, with the multimodal rules). Without an explicit kind the
document's shape decides.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cogtui.core.files.json_extract import loads_finite
from cogtui.core.rules.chunk_rules import check_chunk, check_stream, looks_like_chunk
from cogtui.core.rules.envelope_rules import Violation, check_envelope, dotted
from cogtui.core.rules.envelope_shape import shape_notes
from cogtui.core.rules.media_address import refused_without_lookup
from cogtui.core.rules.media_rules import check_media
from cogtui.core.rules.media_walk import find_media

if TYPE_CHECKING:
    from cogtui.core.diagnostics import Diagnostic
    from cogtui.core.module.model import Module
    from cogtui.core.module.schema_engine import SchemaError

KINDS = ("envelope", "chunk", "stream", "input")  # what a document checked by `cogn check` can be


class UnusableDocument(Exception):
    """The text is not JSON (nor NDJSON): exit code 2 territory."""


class UnusableModule(Exception):
    """The module's contract cannot be known (D142): nothing can be judged against it, exit code 2 territory."""

    def __init__(self, module: Module, problems: list[Diagnostic]) -> None:
        first = problems[0]
        super().__init__(
            f"module {module.name}'s contract (schema) cannot be loaded: {first.code} {first.location}  {first.message}"
        )
        self.module = module
        self.problems = problems


@dataclass
class CheckResult:
    """What `cogn check` found about a document: its kind, violations and warnings."""

    kind: str
    violations: list[Violation] = field(default_factory=list)
    warnings: list[Violation] = field(default_factory=list)  # tolerated shapes (D39, D41): valid, but noted

    @property
    def valid(self) -> bool:
        return not self.violations

    @property
    def codes(self) -> list[str]:
        return sorted({v.code for v in self.violations})

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "valid": self.valid,
            "codes": self.codes,
            "violations": [v.to_json() for v in self.violations],
        }
        if self.warnings:  # tolerated shapes only; absent otherwise, so the output keeps its old shape
            out["warnings"] = [w.to_json() for w in self.warnings]
        return out


def parse_document(text: str) -> Any:
    """A JSON value, or a list for NDJSON (several JSON lines)."""
    stripped = text.strip()
    if not stripped:
        raise UnusableDocument("the document is empty")
    try:
        return loads_finite(stripped)  # NaN and Infinity are not JSON (D33), here as in the runtime
    except json.JSONDecodeError as first:
        lines = [ln for ln in stripped.splitlines() if ln.strip()]
        if len(lines) > 1:
            items = []
            for n, line in enumerate(lines, start=1):
                try:
                    items.append(loads_finite(line))
                except json.JSONDecodeError as exc:
                    raise UnusableDocument(f"line {n} is not JSON: {exc.msg} (column {exc.colno})") from None
                except (ValueError, RecursionError) as exc:
                    raise UnusableDocument(f"line {n} is not usable JSON: {exc}") from None
            return _Ndjson(items)
        raise UnusableDocument(f"not JSON: {first.msg} at line {first.lineno}, column {first.colno}") from None
    except RecursionError:
        raise UnusableDocument("JSON nested too deeply") from None
    except ValueError as exc:  # an integer over Python's 4300-digit conversion limit
        raise UnusableDocument(f"not usable JSON: {exc}") from None


class _Ndjson(list):  # type: ignore[type-arg]
    """A list that came from NDJSON: always a stream."""


def detect_kind(doc: Any) -> str:
    if isinstance(doc, list):
        return "stream"
    if isinstance(doc, dict):
        if looks_like_chunk(doc):
            return "chunk"
        if "ok" in doc or ("meta" in doc and ("data" in doc or "error" in doc)):
            return "envelope"
        return "input"
    return "envelope"


def check_input(doc: Any, module: Module | None) -> list[Violation]:
    """Why `doc` is not an input `module` takes; raises UnusableModule when its contract cannot be known."""
    out: list[Violation] = []
    if module is not None:
        from cogtui.core.module.schemas import RefError, schemas_for
        from cogtui.core.rules.contract_status import contract_problems

        unknowable = contract_problems(module)
        if unknowable:  # no input can be judged, and the module will not run (D142): say that, not "no input schema"
            raise UnusableModule(module, unknowable)
        if module.schemas.input is None:
            out.append(Violation("E1001", "input.schema.missing", (), f"module {module.name} has no input schema"))
        else:
            try:
                for err in schemas_for(module).iter_errors("input", doc):
                    out.append(input_violation(err))
            except RefError as exc:
                out.append(Violation("E1006", "input.schema.ref", (), str(exc)))
    accepted = module.input_modalities if module is not None and module.modalities else None
    for path, ref in find_media(doc):
        problems = check_media(ref, path, accepted)
        for p in problems:
            out.append(Violation(p.code, f"media.{p.code}", p.path, p.message))
        url = ref.get("url") if ref.get("type") == "url" else None
        refused = refused_without_lookup(url) if isinstance(url, str) and not problems else None
        if refused is not None:  # the runtime's address rule, as far as it can be told offline (D66)
            out.append(Violation("E1012", "media.E1012", (*path, "url"), refused))
    return out


def input_violation(err: SchemaError) -> Violation:
    """E1002 for a missing required field, E1003 for a type mismatch, E1001 otherwise; naming the field."""
    path = err.path
    if err.keyword == "required":
        missing = err.missing
        where = dotted((*path, missing)) if missing else dotted(path)
        return Violation(
            "E1002", "input.required", (*path, missing) if missing else path, f"missing required field {where}"
        )
    if err.keyword == "type":
        expected = err.expected if not isinstance(err.expected, list) or len(err.expected) != 1 else err.expected[0]
        return Violation(
            "E1003", "input.type", path, f"{dotted(path)}: expected {expected}, got {type(err.instance).__name__}"
        )
    return Violation("E1001", f"input.{err.keyword}", path, f"{dotted(path)}: {err.message}")


def check_document(doc: Any, kind: str | None = None, module: Module | None = None) -> CheckResult:
    """The verdict on `doc`; raises UnusableModule when `module`'s contract cannot be known (never a pass)."""
    if module is not None:
        from cogtui.core.rules.contract_status import contract_problems

        problems = contract_problems(module)
        if problems:
            raise UnusableModule(module, problems)
    if kind is None:
        kind = detect_kind(doc)
    if kind == "stream":
        if not isinstance(doc, list):
            return CheckResult(
                kind, [Violation("E3001", "stream.array", (), "a stream is a JSON array or NDJSON of chunks")]
            )
        return CheckResult(kind, check_stream(list(doc), module))
    if isinstance(doc, _Ndjson):
        return CheckResult(
            kind, [Violation("E3001", "document.ndjson", (), "NDJSON holds several documents; use --kind stream")]
        )
    if kind == "chunk":
        return CheckResult(kind, check_chunk(doc, module))
    if kind == "input":
        return CheckResult(kind, check_input(doc, module))
    notes = [Violation(_note_code(p), "envelope.shape", p, message) for p, message in shape_notes(doc, module)]
    return CheckResult("envelope", check_envelope(doc, module), notes)


def _note_code(path: tuple[str | int, ...]) -> str:
    return "E3001" if path[:1] != ("error",) else "E4000"
