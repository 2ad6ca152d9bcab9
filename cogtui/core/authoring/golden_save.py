"""Saving a run as a golden test pair (`ctrl+g` on the run screen): the input and the envelope it produced.

The pair is `tests/NAME.input.json` and `tests/NAME.expected.json` (NAME is
`saved-1`, `saved-2`, … the first free one), written in one FileTransaction,
so a failure leaves nothing behind. The expected envelope drops the meta the
runtime fills (`trace_id`, `model`, `latency_ms`, `warnings`, `model_calls`):
a model never writes them and golden tests never compare them. When
module.yaml lists its tests as a block list, the pair is appended to it in
place (comments and layout kept); otherwise the folder's pairing finds it
(GOLD-6).

Saved on purpose (GOLD-8): before anything is written, `plan_save` says what the run screen's dialog asks and
warns about: a proposed name (the author may type another: `name_problem` checks it), a golden that already has
this input (with this very answer, there is nothing new and the save is refused; with another, the author is
warned that the two goldens disagree), and where a replay answer came from (a copy of a golden, an example's
output or a minimal instance: not a model's answer).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cogtui.core.files.module_folder import lexists
from cogtui.core.files.sourcemap import ParseFailure, parse_yaml
from cogtui.core.files.transaction import FileTransaction
from cogtui.core.module.model import UNPARSED, Module
from cogtui.core.rules.error_codes import normalize_code
from cogtui.core.rules.judge_spec import without_judge
from cogtui.core.run.manifest_policy import without_runtime_meta

TESTS = "tests"
STEM = "saved"
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")  # a case name is a file name's stem: no folders, no dots only


class GoldenSaveError(Exception):
    """Why the pair could not be saved (no envelope yet, a file system refusal)."""


@dataclass(frozen=True)
class SavedGolden:
    name: str
    input_path: Path
    expected_path: Path
    listed: bool  # appended to module.yaml's `tests:` list


# Failures the runtime makes, not answers of the module (GOLD-7): the run was stopped or timed out (E2002,
# E2003, E2010, E2011), the model's answer was not JSON (E1000, PARSE_ERROR), the runtime judged the model's
# answer to break the contract (E3xxx), or the runtime or provider failed (E4xxx). A golden holding one would
# expect that failure of every later run.
RUNTIME_FAILURES = ("E1000", "E2002", "E2003", "E2010", "E2011")


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


def taken_names(module: Module) -> frozenset[str]:
    """The case names the module's tests use, and the stems of the files in its tests/ folder."""
    folder = module.path / TESTS
    stems: set[str] = {t.name for t in module.tests}
    try:
        for entry in folder.iterdir():
            for kind in (".input.json", ".expected.json"):
                if entry.name.endswith(kind):
                    stems.add(entry.name.removesuffix(kind))
    except OSError:
        pass
    return frozenset(stems)


def name_problem(name: str, taken: frozenset[str]) -> str | None:
    """Why `name` cannot name a new golden test (None when it can)."""
    if not name:
        return "type a name for the test case"
    if not NAME.fullmatch(name):
        return "a name is letters, digits, '.', '_' and '-' (up to 64), starting with a letter or digit"
    if name in taken:
        return f"{name} is a test case already: choose another name"
    return None


@dataclass(frozen=True)
class SavePlan:
    """What saving this run as a golden would do, for the author to decide on before anything is written."""

    name: str  # the proposed name
    taken: frozenset[str] = field(default_factory=frozenset)  # names a new case cannot have
    refusal: str | None = None  # why this run is no golden at all
    same_input: str | None = None  # the golden that already has this input
    same_answer: bool = False  # … and expects this very answer: nothing new to save
    replay_source: str | None = None  # where replay took its answer from ("golden case1", "minimal instance", …)

    @property
    def refused(self) -> str | None:
        """Why nothing may be saved (the run, or a duplicate), or None."""
        if self.refusal is not None:
            return self.refusal
        if self.same_input is not None and self.same_answer:
            return (
                f"golden {self.same_input} already has this input and expects this answer: there is nothing new "
                "to save. Change the input, or run it on a model, to save another case."
            )
        return None

    def notes(self) -> list[str]:
        """What the dialog warns about (the author may still save)."""
        notes = []
        if self.replay_source is not None:
            copy = {"minimal instance": "a minimal instance of the data schema"}.get(self.replay_source)
            notes.append(
                "This answer came from the replay provider, not a model: "
                + (copy or f"a copy of {self.replay_source}'s expected answer")
                + ". Save it only if it is what the module should answer for this input."
            )
        if self.same_input is not None and not self.same_answer:
            notes.append(
                f"golden {self.same_input} already has this input and expects another answer: the two goldens "
                "would disagree, and one of them fails every run."
            )
        return notes


def plan_save(
    module: Module, input_value: Any, envelope: dict[str, Any] | None, interrupted: bool = False, replay: bool = False
) -> SavePlan:
    """What saving this run would do (`replay`: the run's answer came from the replay provider)."""
    taken = taken_names(module)
    name = free_name(module)
    if not isinstance(envelope, dict):
        return SavePlan(name, taken, refusal="no envelope to save yet: run the module first")
    if (refusal := save_refusal(envelope, interrupted)) is not None:
        return SavePlan(name, taken, refusal=refusal)
    key, answer = _canonical(input_value), _canonical(without_runtime_meta(envelope))
    same = next((t for t in module.tests if t.input is not UNPARSED and _canonical(t.input) == key), None)
    expected = without_judge(same.expected) if same is not None else None  # a rubric is no part of the answer
    same_answer = isinstance(expected, dict) and _canonical(without_runtime_meta(expected)) == answer
    source = None
    if replay:
        from cogtui.core.run.providers.replay.provider import choose_answer

        _, source = choose_answer(module, input_value)
    return SavePlan(name, taken, None, same.name if same else None, same_answer, source)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


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
    if name is None:
        name = free_name(module)
    elif (problem := name_problem(name, taken_names(module))) is not None:
        raise GoldenSaveError(problem)
    input_rel, expected_rel = f"{TESTS}/{name}.input.json", f"{TESTS}/{name}.expected.json"
    tx = FileTransaction(module.path)
    tx.write(input_rel, _json_bytes(input_value))
    tx.write(expected_rel, _json_bytes(without_runtime_meta(envelope)))
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
