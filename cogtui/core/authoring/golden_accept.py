"""Accepting a failing golden case's actual answer as its new expected file, on purpose (GOLD-11).

When a model changes and answers better, the golden is out of date. `plan_accept` says what accepting would
write (the diff of the expected file as it is against the new one) or why it is refused:

- the answer breaks the module's contract (a runtime failure, E3xxx, a run stopped early): no golden;
- it came from the replay provider: a copy of what the module already holds, not a model's answer;
- the expected file is a rule (`$validate`, or a `$judge` rubric), not an answer: the rule is edited by hand;
- the case passes already, or did not run (its files are unreadable).

`accept` writes the new file atomically (a FileTransaction) after keeping the old one in
`<data dir>/backups/<module>/accept-<time>/`, and `undo` puts it back while the file is still what was
written (an edit made since is never overwritten). The expected file drops the meta the runtime fills, as a
golden saved from the run screen does (manifest_policy.without_runtime_meta).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cogtui.core.authoring.golden_save import save_refusal
from cogtui.core.files.transaction import FileTransaction
from cogtui.core.module.model import UNPARSED, Module
from cogtui.core.rules.envelope_rules import check_envelope
from cogtui.core.rules.golden_contract import is_contract
from cogtui.core.rules.judge_spec import KEY as JUDGE_KEY
from cogtui.core.run.manifest_policy import without_runtime_meta


class AcceptError(Exception):
    """Why the file could not be written or put back (a file system refusal, an edit made since)."""


@dataclass(frozen=True)
class AcceptPlan:
    """What accepting a case's answer would do: the file, its text now and after, and their diff; or why not."""

    module: str
    case: str
    path: Path | None = None  # the expected file
    refusal: str | None = None
    before: bytes = b""
    after: bytes = b""
    diff: str = ""
    root: Path | None = None  # the module folder (where the write is confined)

    @property
    def refused(self) -> bool:
        return self.refusal is not None


@dataclass(frozen=True)
class Accepted:
    """One accepted case: what the file held and holds now, and where the old one is kept."""

    module: str
    case: str
    path: Path
    root: Path
    before: bytes
    after: bytes
    backup: Path


def plan_accept(
    module: Module, case: str, envelope: dict[str, Any] | None, provider: str, passed: bool, interrupted: bool = False
) -> AcceptPlan:
    """What accepting `envelope` (the answer `provider` gave for golden `case`) would write, or why it is refused."""

    def refuse(why: str, path: Path | None = None) -> AcceptPlan:
        return AcceptPlan(module.name, case, path, why)

    test = next((t for t in module.tests if t.name == case), None)
    if test is None or test.expected_path is None or test.expected is UNPARSED or envelope is None:
        return refuse(f"{case} did not run (its files are missing or unreadable): there is no answer to accept")
    path = test.expected_path
    expected = test.expected
    if isinstance(expected, dict) and is_contract(expected):
        return refuse(
            f"{path.name} is a rule ($validate: schemas the answer must satisfy), not an answer: edit the rule "
            "instead of replacing it",
            path,
        )
    if isinstance(expected, dict) and JUDGE_KEY in expected:
        return refuse(
            f"{path.name} has a $judge rubric: it is judged by the rubric, not compared with an answer; edit the "
            "rubric (or remove it) instead",
            path,
        )
    if passed:
        return refuse(f"{case} passes: there is nothing to accept", path)
    if provider == "replay":
        return refuse(
            "this answer came from the replay provider: a copy of what the module already holds, not a model's "
            "answer. Run the case on a model to accept what it says",
            path,
        )
    if (why := save_refusal(envelope, interrupted)) is not None:
        return refuse(why, path)
    broken = check_envelope(envelope, module)
    if broken:
        return refuse(f"the answer breaks the module's contract ({broken[0].message}): it is no golden", path)
    try:
        before = path.read_bytes()
    except OSError as exc:
        return refuse(f"cannot read {path.name}: {exc.strerror or exc}", path)
    after = (json.dumps(without_runtime_meta(envelope), indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    import difflib  # only when a diff is shown

    diff = "\n".join(
        difflib.unified_diff(
            before.decode("utf-8", "replace").splitlines(),
            after.decode("utf-8").splitlines(),
            f"{path.name} (expected now)",
            f"{path.name} (the answer)",
            lineterm="",
        )
    )
    return AcceptPlan(module.name, case, path, None, before, after, diff, module.path)


def accept(plan: AcceptPlan, root: Path | None = None, backups: Path | None = None) -> Accepted:
    """Write the plan's file atomically (inside `root`, else the plan's module folder), the old one kept first;
    AcceptError says why not (nothing changed then)."""
    root = root or plan.root
    if plan.refusal is not None or plan.path is None or root is None:
        raise AcceptError(plan.refusal or "nothing to accept")
    rel = plan.path.relative_to(root).as_posix()
    if backups is None:
        from cogtui.core.settings.locations import backups_dir

        backups = backups_dir()
    stamp = time.strftime("%Y%m%dT%H%M%S") + f"-{time.time_ns() % 1_000_000_000:09d}"
    folder = backups / plan.module / f"accept-{stamp}"
    try:
        current = plan.path.read_bytes()
        if current != plan.before:
            raise AcceptError(f"{plan.path.name} changed since the case ran: run it again, then accept")
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(plan.before)
        tx = FileTransaction(root)
        tx.write(rel, plan.after)
        tx.commit()
    except OSError as exc:
        raise AcceptError(f"could not write {plan.path.name}: {exc.strerror or exc}") from None
    return Accepted(plan.module, plan.case, plan.path, root, plan.before, plan.after, folder / rel)


def undo(done: Accepted) -> None:
    """Put the old expected file back, if the file is still what `accept` wrote; AcceptError otherwise."""
    try:
        current = done.path.read_bytes()
    except OSError as exc:
        raise AcceptError(f"cannot read {done.path.name}: {exc.strerror or exc}") from None
    if current != done.after:
        raise AcceptError(
            f"{done.path.name} was edited after it was accepted: it is left as it is (the old one is at {done.backup})"
        )
    try:
        tx = FileTransaction(done.root)
        tx.write(done.path.relative_to(done.root).as_posix(), done.before)
        tx.commit()
    except OSError as exc:
        raise AcceptError(
            f"could not put {done.path.name} back: {exc.strerror or exc} (it is at {done.backup})"
        ) from None


__all__ = ["AcceptError", "AcceptPlan", "Accepted", "accept", "plan_accept", "undo"]
