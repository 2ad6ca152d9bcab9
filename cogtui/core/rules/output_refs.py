"""The `$ref`s that keep a module's output contract from being used (RUN-1).

An answer is judged against the output parts of the contract: `data`, `meta`
and `error`. When one of them reaches a `$ref` that does not resolve (S002,
found by ref_checks.py), no answer can ever be validated, so a run would pay
for a model call whose answer ends as E3001 whatever it says. The run is
refused before the call instead (contract_status.run_blockers, E4000 naming
the `$ref` and where it is). Reaching is followed the way the engine follows
it: from each part's schema, through every `$ref` that resolves (into `$defs`,
into other files of the module), so a broken `$ref` only the input uses, or
one in a `$defs` entry nothing uses, does not count here (the input's keeps
E1006 before the call, RUN-1; `validate` reports every one as S002).
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from cogtui.core.diagnostics import Diagnostic
from cogtui.core.files.json_pointer import pointer_path, value_at
from cogtui.core.module.memo import memo
from cogtui.core.module.model import Module
from cogtui.core.rules.ref_checks import RefReport, ref_problems, ref_target, walk_refs

__all__ = ["OUTPUT_PARTS", "UnusableRef", "unusable_output_refs"]

OUTPUT_PARTS = ("data", "meta", "error")  # what an answer is judged against

Place = tuple[Path, tuple[str | int, ...]]  # a schema file (resolved) and the path of a schema in it


class UnusableRef(NamedTuple):
    """A `$ref` an output part reaches that does not resolve: the part, the `$ref` as written, validate's S002."""

    part: str
    ref: str
    diagnostic: Diagnostic


def unusable_output_refs(module: Module) -> list[UnusableRef]:
    """The unresolvable `$ref`s the output parts reach, each once, in part order; computed once per module."""
    return memo(module, "unusable_output_refs", lambda: _find(module))


def _find(module: Module) -> list[UnusableRef]:
    report = ref_problems(module)
    if not report.unresolved:
        return []
    root = module.path.resolve()
    found: dict[Place, UnusableRef] = {}
    for part in OUTPUT_PARTS:
        loc = module.schemas.locations.get(part)
        if loc is not None:
            path, pointer = loc
            for where, ref, diagnostic in _reached(report, (path.resolve(), tuple(pointer)), root):
                found.setdefault(where, UnusableRef(part, ref, diagnostic))
    return list(found.values())


def _reached(report: RefReport, start: Place, root: Path) -> list[tuple[Place, str, Diagnostic]]:
    """The unresolvable `$ref`s reached from the schema at `start`, following every `$ref` that resolves."""
    out: list[tuple[Place, str, Diagnostic]] = []
    seen: set[Place] = set()
    queue = [start]
    while queue:
        place = queue.pop()
        if place in seen:
            continue
        seen.add(place)
        file, at = place
        doc = report.documents.get(file)
        own_id = doc.get("$id") if isinstance(doc, dict) else None
        for where, ref in walk_refs(value_at(doc, at), at):
            broken = report.unresolved.get((file, where))
            if broken is not None:
                out.append(((file, where), *broken))
                continue
            try:
                target = ref_target(ref, file, own_id, root)
            except ValueError:
                continue
            if target.file is None or target.outside:  # S007: already a blocker of its own
                continue
            next_at = pointer_path(report.documents.get(target.file), target.fragment)
            if next_at is not None:
                queue.append((target.file, next_at))
    return out
