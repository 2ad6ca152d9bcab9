"""The outbox: runs that could not be recorded, kept on this machine until their history takes them.

A run whose history write fails (the database down, refusing, timed out, the
connection killed, the disk full) is appended to the outbox of that history
in cogtui's data folder (`outbox/<id>.ndjson`, one file per history location),
one JSON line per run, written and fsynced before the run's command ends. A
line holds the run exactly as the store would keep it and the store's key
(`RunRecord.key`, the `run_digest` column), so delivering it is idempotent:
`History` delivers its outbox each time it opens (any command, the TUI) and
`cogn history flush` does it on demand, storing each run with `skip_known`, so
a run that reached the database before its failure was reported is not stored
twice. A line that cannot be read back as the run it claims to be is moved to
`<id>.set-aside.ndjson` with its line number and the reason, and reported;
never dropped in silence. So is a run the history refuses (a value it cannot
hold, a constraint: `HistoryError.refused`), and delivery goes on with the next
ones (HIST-7); a history that fails (unreachable, no privilege, a timeout) stops
the delivery, and that run and every later one stay kept, in order.

Appends and deliveries of one outbox take an exclusive lock on `<id>.lock`
(flock), so two processes never deliver the same line or lose an append to
a rewrite. A delivery that finds another one under way leaves it to that one.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Protocol

from cogtui.core.files.journal import fsync_dir
from cogtui.core.history.location import HistoryLocation
from cogtui.core.history.records import OUTCOMES, HistoryError, RunRecord, iso_utc
from cogtui.core.settings import locations as paths

try:
    import fcntl
except ImportError:  # not on Windows: appends there rely on O_APPEND alone
    fcntl = None  # type: ignore[assignment]

FORMAT = 1
BATCH = 200  # runs per delivery transaction: a long outbox is delivered in steps, each step kept once stored
RUN_FIELDS = tuple(f.name for f in fields(RunRecord) if f.name != "id")


class Deliverable(Protocol):
    """What delivery needs of a History (outbox.py cannot import store.py: store.py imports it)."""

    where: Path | str

    def record_many(self, runs: Sequence[RunRecord], skip_known: bool = False) -> list[int]: ...


class Damaged(ValueError):
    """An outbox line that is not the run it claims to be."""


def identity(location: HistoryLocation) -> str:
    """What names one history whatever the spelling: the SQLite file's absolute path, or the PostgreSQL
    server, port, user and database (not the password, options or SSL settings of the URL)."""
    if location.url is None:
        assert location.path is not None
        return "sqlite:" + str(location.path.expanduser().absolute())
    try:
        from psycopg.conninfo import conninfo_to_dict

        given = conninfo_to_dict(location.url)
        parts = {k: str(given[k]) for k in ("service", "user", "host", "hostaddr", "port", "dbname") if given.get(k)}
        return "postgresql:" + json.dumps(parts, sort_keys=True)
    except Exception:  # noqa: BLE001 - no driver or a URL libpq cannot read: the URL itself, as shown
        return f"postgresql:{location.display}"


def encode(run: RunRecord, where: str, why: str) -> str:
    """One outbox line: the run's fields as the store takes them, its key, and (for people) where and why."""
    body = {name: getattr(run, name) for name in RUN_FIELDS}
    body["input_digest"] = run.input_hash  # the digest of the input as given, what the key is made from
    record = {"outbox": FORMAT, "key": run.key, "history": where, "kept_at": iso_utc(time.time()), "why": why}
    # ASCII JSON: lone surrogates and any control character come back exactly, and the line is one line.
    return json.dumps({**record, "run": body}, ensure_ascii=True, default=str, separators=(",", ":"))


def decode(text: str) -> RunRecord:
    """An outbox line back as its run; Damaged if it is not JSON, not a run, or not the run its key names."""
    try:
        record = json.loads(text)
    except ValueError as exc:
        raise Damaged(f"not JSON ({exc})") from None
    if not isinstance(record, dict) or record.get("outbox") != FORMAT or not isinstance(record.get("run"), dict):
        raise Damaged("not an outbox record of this cogtui")
    body = record["run"]
    missing = [name for name in RUN_FIELDS if name not in body]
    if missing:
        raise Damaged(f"the run lacks {', '.join(missing)}")
    started = body["started_at"]
    if body["outcome"] not in OUTCOMES or not isinstance(body["envelope"], dict):
        raise Damaged("the run's outcome or envelope is not one a run has")
    if isinstance(started, bool) or not isinstance(started, (int, float)):
        raise Damaged("the run's time is not a number")
    try:
        run = RunRecord(**{**{name: body[name] for name in RUN_FIELDS}, "started_at": float(started)})
        key = run.key
    except (TypeError, ValueError, OverflowError) as exc:
        raise Damaged(f"the run cannot be rebuilt ({exc})") from None
    if key != record.get("key"):
        raise Damaged("the run does not match its key (changed after it was written)")
    return run


@dataclass
class Kept:
    """A readable outbox line: its number, its text, and the run it holds."""

    number: int
    text: str
    run: RunRecord


@dataclass
class Delivery:
    """What one delivery did."""

    delivered: int = 0  # stored now
    already: int = 0  # found stored already: a write that reached the store before its failure was reported
    set_aside: list[tuple[int, str]] = field(default_factory=list)  # (line number, why), unreadable, moved aside
    refused: list[tuple[int, str]] = field(default_factory=list)  # (line number, the history's words), moved aside
    waiting: int = 0  # left in the outbox
    problem: str | None = None  # why runs are left (the history's error), None when all went

    def notes(self, outbox: Outbox) -> list[str]:
        """What to tell the user about it, one sentence each."""
        out = []
        stored = self.delivered + self.already
        if stored:
            out.append(f"{_runs(stored)} kept in {outbox.path} {'was' if stored == 1 else 'were'} recorded")
        for number, why in self.set_aside:
            out.append(f"{outbox.path}:{number}: a kept run cannot be read ({why}); moved to {outbox.set_aside_path}")
        for number, why in self.refused:
            out.append(
                f"{outbox.path}:{number}: the history refused a kept run ({why}); moved to {outbox.set_aside_path}"
            )
        if self.waiting:
            out.append(f"{_runs(self.waiting)} waiting in {outbox.path}: {self.problem or 'not delivered yet'}")
        return out


def _runs(n: int) -> str:
    return f"{n:,} run{'s' * (n != 1)}"


class Outbox:
    """The outbox of one history location."""

    def __init__(self, location: HistoryLocation, folder: Path | None = None) -> None:
        self.where = str(location.display)
        folder = folder or paths.outbox_dir()
        name = hashlib.sha256(identity(location).encode("utf-8")).hexdigest()[:16]
        self.folder = folder
        self.path = folder / f"{name}.ndjson"
        self.lock_path = folder / f"{name}.lock"
        self.set_aside_path = folder / f"{name}.set-aside.ndjson"

    # ------------------------------------------------------------ keeping

    def keep(self, run: RunRecord, why: str) -> int:
        """Append the run, durably, and return how many runs are waiting. Raises OSError if it cannot."""
        line = encode(run, self.where, why) + "\n"
        new_folder = not self.folder.exists()
        self.folder.mkdir(parents=True, exist_ok=True)
        with self._locked(wait=True) as locked:
            assert locked
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                if _ends_unterminated(fd):  # a line cut short by a crash stays one line of its own
                    line = "\n" + line
                os.write(fd, line.encode("ascii"))
                os.fsync(fd)
            finally:
                os.close(fd)
            fsync_dir(self.folder)
            if new_folder:
                fsync_dir(self.folder.parent)
            return self.waiting()

    def waiting(self) -> int:
        """How many runs the outbox holds (0 when it has none or cannot be read)."""
        try:
            with self.path.open("rb") as fh:
                return sum(1 for raw in fh if raw.strip())
        except OSError:
            return 0

    # ------------------------------------------------------------ delivering

    def deliver(self, history: Deliverable, wait: bool = False) -> Delivery:
        """Store every kept run in `history` (already stored ones are skipped), in batches; what is left stays.
        If another process is delivering this outbox, leave it to that one, or with `wait`, wait for it first."""
        if not self.path.exists():  # the common case: one stat
            return Delivery()
        try:
            return self._deliver(history, wait)
        except OSError as exc:  # the lock, the set-aside file or the rewrite: what was stored stays stored
            return Delivery(waiting=self.waiting(), problem=f"the outbox cannot be updated ({exc.strerror or exc})")

    def _deliver(self, history: Deliverable, wait: bool) -> Delivery:
        report = Delivery()
        with self._locked(wait=wait) as locked:
            if not locked:  # another process is delivering this outbox now
                report.waiting = self.waiting()
                report.problem = "another cogtui process is recording them now"
                return report
            try:
                lines = self._read()
            except OSError as exc:
                report.problem = f"the outbox cannot be read ({exc.strerror or exc})"
                report.waiting = self.waiting()
                return report
            good: list[Kept] = []
            for number, text in lines:
                try:
                    good.append(Kept(number, text, decode(text)))
                except Damaged as exc:
                    self._set_aside(number, text, str(exc))
                    report.set_aside.append((number, str(exc)))
            left = self._store(history, good, report)
            self._rewrite(left)
            report.waiting = len(left)
        return report

    def _store(self, history: Deliverable, good: list[Kept], report: Delivery) -> list[str]:
        """Store the runs batch by batch; returns the lines of those not stored (from where the history failed).
        A batch the history refuses is stored one run at a time, so only the runs it refuses are set aside."""
        for start in range(0, len(good), BATCH):
            batch = good[start : start + BATCH]
            try:
                ids = history.record_many([kept.run for kept in batch], skip_known=True)
            except HistoryError as exc:
                if not exc.refused:
                    report.problem = str(exc)
                    return [kept.text for kept in good[start:]]
                stopped = self._store_each(history, batch, report)
                if stopped is not None:
                    return [kept.text for kept in good[start + stopped :]]
                continue
            report.delivered += sum(1 for i in ids if i)
            report.already += sum(1 for i in ids if not i)
        return []

    def _store_each(self, history: Deliverable, batch: list[Kept], report: Delivery) -> int | None:
        """The batch one run at a time: a refused run set aside, the others stored; the index in the batch where
        the history failed (those from there on stay kept), None when the batch is through."""
        for index, kept in enumerate(batch):
            try:
                (stored,) = history.record_many([kept.run], skip_known=True)
            except HistoryError as exc:
                if not exc.refused:
                    report.problem = str(exc)
                    return index
                self._set_aside(kept.number, kept.text, f"the history refused it: {exc}")
                report.refused.append((kept.number, str(exc)))
                continue
            if stored:
                report.delivered += 1
            else:
                report.already += 1
        return None

    def _read(self) -> list[tuple[int, str]]:
        with self.path.open("rb") as fh:
            raw_lines = fh.read().split(b"\n")
        out = []
        for number, raw in enumerate(raw_lines, start=1):
            if raw.strip():
                out.append((number, raw.decode("utf-8", "replace")))
        return out

    def _set_aside(self, number: int, text: str, why: str) -> None:
        record = {"line": number, "why": why, "set_aside_at": iso_utc(time.time()), "text": text}
        fd = os.open(self.set_aside_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, (json.dumps(record, ensure_ascii=True) + "\n").encode("ascii"))
            os.fsync(fd)
        finally:
            os.close(fd)

    def _rewrite(self, left: list[str]) -> None:
        """The outbox holding only `left`: replaced atomically (a crash keeps the old file: delivery is
        idempotent), or removed when nothing is left."""
        if not left:
            self.path.unlink(missing_ok=True)
        else:
            temp = self.path.with_suffix(".tmp")
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            try:
                os.write(fd, "".join(line + "\n" for line in left).encode("utf-8"))
                os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(temp, self.path)
        fsync_dir(self.folder)

    @contextmanager
    def _locked(self, wait: bool) -> Iterator[bool]:
        """Hold the outbox's lock; yields False (without waiting) when `wait` is off and another holds it."""
        if fcntl is None:
            yield True
            return
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            yield True
        finally:
            os.close(fd)  # closing releases the lock


def _ends_unterminated(fd: int) -> bool:
    size = os.fstat(fd).st_size
    return size > 0 and os.pread(fd, 1, size - 1) != b"\n"


def outbox_for(location: HistoryLocation) -> Outbox:
    return Outbox(location)


__all__ = ["Damaged", "Delivery", "Outbox", "decode", "encode", "identity", "outbox_for"]
