"""`cogn check`: judge one JSON document against the spec, offline.

Kinds: envelope, chunk, stream (JSON array, NDJSON or SSE of chunks) and input
(a module's input, with the multimodal rules). Without an explicit kind the
document's shape decides. A conformance vector (`{"$test", "envelope"}`) is
judged as its envelope, and the verdict compared with its `$test` (ENV-17).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cogtui.core.records import field, record
from cogtui.core.rules.chunk_rules import check_chunk, check_stream, looks_like_chunk
from cogtui.core.rules.conformance_vector import VectorOutcome, split_vector
from cogtui.core.rules.envelope_rules import Violation, check_envelope, dotted
from cogtui.core.rules.envelope_shape import shape_notes
from cogtui.core.rules.media_address import refused_without_lookup
from cogtui.core.rules.media_rules import check_media
from cogtui.core.rules.media_walk import find_media
from cogtui.core.rules.stream_text import StreamText, check_sse_events
from cogtui.core.rules.stream_text import UnusableDocument as UnusableDocument  # re-exported: callers' one import
from cogtui.core.rules.stream_text import parse_document as parse_document
from cogtui.core.rules.violation import json_type

if TYPE_CHECKING:
    from cogtui.core.diagnostics import Diagnostic
    from cogtui.core.files.positions import PositionMap
    from cogtui.core.module.model import Module
    from cogtui.core.module.schema_engine import SchemaError

KINDS = ("envelope", "chunk", "stream", "input")  # what a document checked by `cogn check` can be


class UnjudgedInput(Exception):
    """An input with no module to judge it against, in which the module-free (media) rules found nothing (ENV-18):
    no verdict, exit code 2 territory. `detected` is True when no kind was given and the shape said input."""

    def __init__(self, detected: bool) -> None:
        if detected:
            what = (
                "it is not an envelope (no `ok`, nor `meta` with `data` or `error`), a stream chunk, a stream or a"
                " conformance vector (`$test` and `envelope`), and as an input it needs"
            )
        else:
            what = "an input needs"
        super().__init__(f"cannot be judged: {what} a module's input schema: add --module NAME")
        self.detected = detected


class UnusableModule(Exception):
    """The module's contract cannot be known (ENV-19): nothing can be judged against it, exit code 2 territory."""

    def __init__(
        self, module: Module, problems: list[Diagnostic], what: str = "contract (schema) cannot be loaded"
    ) -> None:
        first = problems[0]
        super().__init__(f"module {module.name}'s {what}: {first.code} {first.location}  {first.message}")
        self.module = module
        self.problems = problems


@record(frozen=False)
class CheckResult:
    """What `cogn check` found about a document: its kind, violations and warnings."""

    kind: str
    violations: list[Violation] = field(default_factory=list)
    warnings: list[Violation] = field(default_factory=list)  # tolerated shapes (ENV-4, CODE-2): valid, but noted
    vector: VectorOutcome | None = None  # a conformance vector's expectation, met or not (ENV-17)
    lines: list[int] | None = None  # a stream read from NDJSON or SSE text: the line each chunk began on
    positions: PositionMap | None = field(default=None, repr=False, compare=False)  # a JSON document's text's
    under: tuple[str, ...] = ()  # where the judged value is in the document (a conformance vector's envelope)

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
        if self.lines is not None:
            for v, entry in zip(self.violations, out["violations"], strict=True):
                if (line := self.line_of(v)) is not None:
                    entry["line"] = line
        elif self.positions is not None:
            for v, entry in zip(self.violations, out["violations"], strict=True):
                entry["line"], entry["column"] = self.positions.position((*self.under, *v.path))
        if self.warnings:  # tolerated shapes only; absent otherwise, so the output keeps its old shape
            out["warnings"] = [w.to_json() for w in self.warnings]
        if self.vector is not None:
            out["vector"] = self.vector.to_json()
        return out

    def line_of(self, violation: Violation) -> int | None:
        """The line a violation is about, when known: of the value at its path in a JSON document, or where the
        chunk it is about began in stream text."""
        if self.positions is not None:
            return self.positions.position((*self.under, *violation.path))[0]
        index = violation.path[0] if violation.path else None
        if self.lines is None or not isinstance(index, int) or not 0 <= index < len(self.lines):
            return None
        return self.lines[index]


def detect_kind(doc: Any) -> str:
    if isinstance(doc, list):
        return "stream"
    if isinstance(doc, dict):
        if looks_like_chunk(doc):
            return "chunk"
        if "ok" in doc or ("meta" in doc and ("data" in doc or "error" in doc)) or split_vector(doc) is not None:
            return "envelope"  # a conformance vector is judged as its envelope
        return "input"
    return "envelope"


def check_input(doc: Any, module: Module | None) -> list[Violation]:
    """Why `doc` is not an input `module` takes; raises UnusableModule when its contract cannot be known."""
    out: list[Violation] = []
    if module is not None:
        from cogtui.core.module.schemas import RefError, schemas_for
        from cogtui.core.rules.contract_status import contract_problems

        unknowable = contract_problems(module)
        # no input can be judged, and the module will not run (ENV-19, RUN-1): say that, not "no input schema"
        if unknowable:
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
        if refused is not None:  # the runtime's address rule, as far as it can be told offline (SEC-4)
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
        expected = " or ".join(map(str, err.expected)) if isinstance(err.expected, list) else err.expected
        return Violation(
            "E1003", "input.type", path, f"{dotted(path)}: expected {expected}, got {json_type(err.instance)}"
        )
    return Violation("E1001", f"input.{err.keyword}", path, f"{dotted(path)}: {err.message}")


def check_document(
    doc: Any, kind: str | None = None, module: Module | None = None, positions: PositionMap | None = None
) -> CheckResult:
    """The verdict on `doc`; raises UnusableModule when `module`'s contract cannot be known (never a pass), and
    UnjudgedInput for an input without a module in which nothing was found (no verdict either, ENV-18).
    `positions`, the map of the JSON text `doc` was read from, locates each violation (line and column)."""
    result = _judge(doc, kind, module)
    if positions is not None and not isinstance(doc, StreamText):
        result.positions = positions
    return result


def _judge(doc: Any, kind: str | None, module: Module | None) -> CheckResult:
    if module is not None:
        from cogtui.core.rules.contract_status import contract_problems

        problems = contract_problems(module)
        if problems:
            raise UnusableModule(module, problems)
    vector = split_vector(doc) if kind in (None, "envelope") else None
    if vector is not None:  # a conformance vector: its envelope is judged, then compared with its $test
        expectation, envelope = vector
        _require_usable_output(module)
        result = _check_envelope(envelope, module)
        result.vector = expectation.compare(result.valid, result.codes)
        result.under = ("envelope",)
        return result
    detected = kind is None
    if kind is None:
        kind = detect_kind(doc)
    if kind != "input":
        _require_usable_output(module)
    if kind == "stream":
        if not isinstance(doc, list):
            return CheckResult(
                kind, [Violation("E3001", "stream.array", (), "a stream is a JSON array, NDJSON or SSE of chunks")]
            )
        if not isinstance(doc, StreamText):
            return CheckResult(kind, check_stream(list(doc), module))
        found = check_stream(list(doc), module) + check_sse_events(doc)
        return CheckResult(kind, found, lines=doc.lines)
    if isinstance(doc, StreamText):
        return CheckResult(
            kind,
            [
                Violation(
                    "E3001",
                    f"document.{doc.transport}",
                    (),
                    f"{doc.transport.upper()} holds several documents; use --kind stream",
                )
            ],
        )
    if kind == "chunk":
        return CheckResult(kind, check_chunk(doc, module))
    if kind == "input":
        found = check_input(doc, module)
        if module is None and not found:
            raise UnjudgedInput(detected)
        return CheckResult(kind, found)
    return _check_envelope(doc, module)


def _require_usable_output(module: Module | None) -> None:
    """Raises UnusableModule when an output part of `module` reaches a `$ref` that does not resolve (ENV-19): no
    envelope, chunk or stream can be judged against that contract, so there is no verdict (as a run is refused
    before the call, RUN-1), rather than an E3001 that blames the document for the module's schema."""
    if module is None:
        return
    from cogtui.core.rules.output_refs import unusable_output_refs

    unusable = unusable_output_refs(module)
    if unusable:
        parts = ", ".join(dict.fromkeys(u.part for u in unusable))
        raise UnusableModule(module, [u.diagnostic for u in unusable], f"output contract ({parts}) cannot be used")


def _check_envelope(doc: Any, module: Module | None) -> CheckResult:
    notes = [Violation(_note_code(p), "envelope.shape", p, message) for p, message in shape_notes(doc, module)]
    return CheckResult("envelope", check_envelope(doc, module), notes)


def _note_code(path: tuple[str | int, ...]) -> str:
    return "E3001" if path[:1] != ("error",) else "E4000"
