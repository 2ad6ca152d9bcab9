"""Saving a run as a golden test pair (`ctrl+g` on the run screen): the input and the envelope it produced.

The pair is `tests/NAME.input.json` and `tests/NAME.expected.json` (NAME is
`saved-1`, `saved-2`, … the first free one), written in one FileTransaction,
so a failure leaves nothing behind. The expected envelope drops the meta the
runtime fills (`trace_id`, `model`, `latency_ms`, `warnings`, `model_calls`):
a model never writes them and golden tests never compare them. When
module.yaml lists its tests as a block list, the pair is appended to it in
place (comments and layout kept); otherwise the folder's pairing finds it
(D98).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cogtui.core.files.module_folder import lexists
from cogtui.core.files.sourcemap import ParseFailure, parse_yaml
from cogtui.core.files.transaction import FileTransaction
from cogtui.core.module.model import Module
from cogtui.core.rules.error_codes import normalize_code
from cogtui.core.run.manifest_policy import RUNTIME_META

TESTS = "tests"
STEM = "saved"


class GoldenSaveError(Exception):
    """Why the pair could not be saved (no envelope yet, a file system refusal)."""


@dataclass(frozen=True)
class SavedGolden:
    name: str
    input_path: Path
    expected_path: Path
    listed: bool  # appended to module.yaml's `tests:` list


def expected_envelope(envelope: dict[str, Any]) -> dict[str, Any]:
    """The envelope as a golden expects it: without the meta the runtime fills."""
    out = dict(envelope)
    if isinstance(out.get("meta"), dict):
        out["meta"] = {k: v for k, v in out["meta"].items() if k not in RUNTIME_META}
    return out


# Failures the runtime makes, not answers of the module (D150): the run was stopped or timed out (E2002,
# E2003, E2010, E2011), the runtime judged the model's answer to break the contract (E3xxx), or the
# runtime or provider failed (E4xxx). A golden holding one would expect that failure of every later run.
RUNTIME_FAILURES = ("E2002", "E2003", "E2010", "E2011")


def save_refusal(envelope: dict[str, Any], interrupted: bool = False) -> str | None:
    """Why this run's envelope is no golden's expected answer, or None when it is one (an ok envelope, or an
    error the module itself answered with: an input error, E2004, a module's own code)."""
    error = envelope.get("error") if envelope.get("ok") is False else None
    code = normalize_code(str(error.get("code", ""))) if isinstance(error, dict) else ""
    runtime_made = code in RUNTIME_FAILURES or code[:2] in ("E3", "E4")
    if not interrupted and not runtime_made:
        return None
    what = "was stopped before it finished" if interrupted or code == "E2010" else f"failed with {code}"
    message = str(error.get("message", "")) if isinstance(error, dict) else ""
    return (
        f"this run {what}{f' ({message})' if message else ''}: that is not an answer the module should give, "
        "so it is no golden. Run it again; an expected error of the module's own is saved from a run that "
        "answered with it."
    )


def free_name(module: Module, stem: str = STEM) -> str:
    """`stem-N`, the first N whose files do not exist and that no test of the module is named."""
    taken = {t.name for t in module.tests}
    folder = module.path / TESTS
    n = 1
    while True:
        name = f"{stem}-{n}"
        if name not in taken and not any(lexists(folder / f"{name}.{kind}.json") for kind in ("input", "expected")):
            return name
        n += 1


def _json_bytes(value: Any) -> bytes:
    return (json.dumps(value, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def manifest_with_test(text: str, path: Path, entry: str) -> str | None:
    """module.yaml's text with `entry` appended to its block-style `tests:` list, or None when it has no such
    list (none, empty or flow style) or the edit would change anything else."""
    try:
        src = parse_yaml(text, path)
    except ParseFailure:
        return None
    value = src.value
    tests = value.get("tests") if isinstance(value, dict) else None
    if not isinstance(tests, list) or not tests:
        return None
    line, col = src.locate((TESTS, len(tests) - 1))
    lines = text.splitlines(keepends=True)
    row = lines[line - 1]
    newline = "\r\n" if row.endswith("\r\n") else "\n"
    dash = col - 3  # "  - value": the value at column col (1-based), its dash two columns before
    if dash < 0 or row[dash : dash + 2] != "- ":
        return None
    end = line  # after the entry and any lines that continue it (a mapping entry's other keys)
    while end < len(lines) and lines[end].strip() and len(lines[end]) - len(lines[end].lstrip(" ")) > dash:
        end += 1
    before = "".join(lines[:end])
    if not before.endswith("\n"):
        before += newline
    new_text = f"{before}{' ' * dash}- {entry}{newline}{''.join(lines[end:])}"
    try:
        new_value = parse_yaml(new_text, path).value
    except ParseFailure:
        return None
    return new_text if new_value == {**value, TESTS: [*tests, entry]} else None


def save_golden(
    module: Module,
    input_value: Any,
    envelope: dict[str, Any] | None,
    name: str | None = None,
    interrupted: bool = False,
) -> SavedGolden:
    """Write the pair (and the manifest's new entry) atomically; GoldenSaveError says why not."""
    if not isinstance(envelope, dict):
        raise GoldenSaveError("no envelope to save yet: run the module first")
    if (refusal := save_refusal(envelope, interrupted)) is not None:
        raise GoldenSaveError(refusal)
    name = name or free_name(module)
    input_rel, expected_rel = f"{TESTS}/{name}.input.json", f"{TESTS}/{name}.expected.json"
    tx = FileTransaction(module.path)
    tx.write(input_rel, _json_bytes(input_value))
    tx.write(expected_rel, _json_bytes(expected_envelope(envelope)))
    manifest = module.path / "module.yaml"
    source = module.sources.get(manifest)
    new_manifest = (
        manifest_with_test(source.text, manifest, f"{input_rel} -> {expected_rel}") if source is not None else None
    )
    if new_manifest is not None:
        tx.write("module.yaml", new_manifest.encode("utf-8"))
    try:
        tx.commit()
    except OSError as exc:
        raise GoldenSaveError(f"could not write the golden pair: {exc.strerror or exc}") from None
    return SavedGolden(name, module.path / input_rel, module.path / expected_rel, new_manifest is not None)
