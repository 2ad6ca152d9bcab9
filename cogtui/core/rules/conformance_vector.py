"""A public conformance vector (`{"$test": {...}, "envelope": {...}}`, spec README): its envelope is what is
judged, and the verdict is compared with what the vector's `$test` expects (ENV-17).

`$test.expects` is "accept" or "reject"; a rejecting vector may name the `error_codes` a conforming checker
reports. The verdict agrees when an accepting vector's envelope is valid, or when a rejecting vector's is
invalid with at least the codes it names.
"""

from __future__ import annotations

from typing import Any

from cogtui.core.records import record

VECTOR_KEYS = ("$test", "envelope")


@record
class VectorExpectation:
    """What a conformance vector's `$test` says the verdict on its envelope must be."""

    name: str | None
    expects: str | None  # "accept", "reject", or None when `$test.expects` is neither
    error_codes: tuple[str, ...] = ()

    def compare(self, valid: bool, codes: list[str]) -> VectorOutcome:
        """Whether a verdict (valid, and the E-codes found) is the one this vector expects, and why not."""
        if self.expects is None:
            return VectorOutcome(self, None, "its $test.expects is neither accept nor reject: nothing to compare")
        if self.expects == "accept":
            return VectorOutcome(self, valid, "" if valid else "the vector expects its envelope to be accepted")
        if valid:
            return VectorOutcome(self, False, "the vector expects its envelope to be rejected")
        missing = [c for c in self.error_codes if c not in codes]
        if missing:
            return VectorOutcome(self, False, f"the vector expects {', '.join(missing)}, not reported")
        return VectorOutcome(self, True, "")


@record
class VectorOutcome:
    """A conformance vector's expectation and whether the verdict on its envelope meets it."""

    expectation: VectorExpectation
    agrees: bool | None  # None when the vector expects nothing usable
    reason: str  # why it does not agree (empty when it does)

    def summary(self) -> str:
        exp = self.expectation
        wanted = exp.expects or "?"
        if exp.expects == "reject" and exp.error_codes:
            wanted += f" ({', '.join(exp.error_codes)})"
        head = f"conformance vector {exp.name or '(unnamed)'} expects {wanted}"
        if self.agrees is None:
            return f"{head}: {self.reason}"
        return f"{head}: the verdict agrees" if self.agrees else f"{head}: the verdict disagrees, {self.reason}"

    def to_json(self) -> dict[str, Any]:
        exp = self.expectation
        out: dict[str, Any] = {
            "name": exp.name,
            "expects": exp.expects,
            "error_codes": list(exp.error_codes),
            "agrees": self.agrees,
        }
        if self.reason:
            out["reason"] = self.reason
        return out


def split_vector(doc: Any) -> tuple[VectorExpectation, Any] | None:
    """(the expectation, the envelope) when `doc` is a conformance vector: an object with a `$test` object and
    an `envelope`; None otherwise. A `$test` that is not an object makes no vector (it is judged as it is).
    Other top-level keys are not read (the spec README's vectors have none)."""
    if not isinstance(doc, dict) or not all(k in doc for k in VECTOR_KEYS) or not isinstance(doc["$test"], dict):
        return None
    spec = doc["$test"]
    name = spec.get("name")
    expects = spec.get("expects")
    codes = spec.get("error_codes")
    expectation = VectorExpectation(
        name=name if isinstance(name, str) else None,
        expects=expects if expects in ("accept", "reject") else None,
        error_codes=tuple(c for c in codes if isinstance(c, str)) if isinstance(codes, list) else (),
    )
    return expectation, doc["envelope"]


__all__ = ["VectorExpectation", "VectorOutcome", "split_vector"]
