"""The acknowledgement journal: who acknowledged, escalated or assigned which exception, when,
and why.

Why a journal file and not the ledger's ``acknowledgements`` table
------------------------------------------------------------------
The dashboards read the ledger read-only, and DuckDB lets one process write a database file
while no other process has it open at all. A long-running writer (the Kafka consumer holds
its ledger for its whole life) would therefore refuse every acknowledgement an analyst tries to
store, and a dashboard that opened the ledger for writing would stall ingestion. So an
acknowledgement is appended to a JSON-lines file next to the ledger
(``<ledger stem>.acknowledgements.jsonl``, or ``$BACCARAT_ACKS``):

- append-only: records are added under an exclusive ``flock`` and ``fsync``-ed; nothing in
  this module rewrites or deletes one, and a later action on the same exception (escalate,
  then acknowledge) is a new record. The last action stands: ACKNOWLEDGE then ESCALATE leaves
  the exception escalated, and blocking if critical;
- assignments are records of the same chain: an ASSIGN record names who holds the exception
  (``assignee``) besides who assigned it (``actor``) and why (``note``). Who holds an
  exception and whether it is acknowledged are separate questions, so an assignment never
  changes the status (:meth:`AckJournal.latest_actions` reads ACKNOWLEDGE and ESCALATE
  only, :meth:`AckJournal.holders` ASSIGN only), and the close does not import it;
- audited: each record states the exception, the action, the note, the actor and where the
  name came from (``actor_source``: "command line", "proxy header X-Forwarded-User from
  127.0.0.1", "OIDC sign-in", ...), and the UTC time;
- authenticated: each record carries an HMAC-SHA-256 (:mod:`pipeline.config.keys`, the
  application's key) of its content and of the record before it. Without the key nobody can
  write a line that verifies, so an edited line (ESCALATE turned into ACKNOWLEDGE), a line
  added by hand (even with a correct unkeyed SHA-256 chain), a removed line and reordered
  lines are all named, by line number, by :meth:`AckJournal.verify`;
- refused when broken: :meth:`AckJournal.import_into` (run by the gaming-day close) imports
  nothing and raises :class:`JournalError` when the journal does not verify, or when an
  acknowledgement already imported into the ledger is no longer in it unchanged
  (:func:`journal_problems`, which ``verify`` reports too), so a journal emptied or truncated
  after a close is found.

Journals written before the records were authenticated (lines carrying ``sha256`` and
``prev_sha256`` but no ``hmac``) do not verify: nothing proves who wrote them. They are
refused, line by line, until a person who has reviewed them re-signs them with
``baccarat-audit ack --db LEDGER --re-sign-unkeyed --actor ADMIN --note WHY``
(:meth:`AckJournal.re_sign_unkeyed`): the unkeyed SHA-256 chain must still be intact, the
original file is kept beside the journal, and each re-signed line names the reviewer.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields, replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from pipeline.config.keys import authentic, authenticate

if TYPE_CHECKING:  # only annotations: the CLI imports this module for `ack --help`
    import duckdb

ACKNOWLEDGE = "ACKNOWLEDGE"
ESCALATE = "ESCALATE"
ASSIGN = "ASSIGN"
DISPOSITIONS: tuple[str, ...] = (ACKNOWLEDGE, ESCALATE)
"""ACKNOWLEDGE clears an exception from the queue (and, if critical, from the close's blocking
list); ESCALATE hands it on and keeps it open and blocking. The last of these stands."""
ACTIONS: tuple[str, ...] = (*DISPOSITIONS, ASSIGN)
"""The dispositions, and ASSIGN: someone (``assignee``) holds the exception from now on."""

GENESIS = "0" * 64
"""The ``prev_hmac`` of the first record."""

_DOMAIN = b"baccarat-audit acknowledgement v2\n"
"""Prefixed to what is authenticated, so that no other HMAC the application makes with the
same key (a seal, an anchor) can pass for a journal line."""

_LEDGER_COLUMNS = ("exception_id", "action", "note", "actor", "acted_at")
_OPTIONAL = frozenset({"table_id", "gaming_date", "assignee"})
_ABSENT_WHEN_NONE = frozenset({"assignee"})
"""Fields added after journals were first written: a record without one leaves it out of its
line and of what its HMAC covers, so the records written before still verify."""


class JournalError(ValueError):
    """An acknowledgement that cannot be recorded as given, or a journal that cannot be used;
    the message says why, where and what to do."""


@dataclass(frozen=True, slots=True)
class AckRecord:
    ack_id: str
    exception_id: str
    action: str
    note: str
    actor: str
    actor_source: str  # where the actor's name came from
    acted_at: str  # ISO 8601, UTC, microseconds
    table_id: str | None
    gaming_date: str | None
    prev_hmac: str
    hmac: str
    assignee: str | None = None
    """Who holds the exception from this record on (ASSIGN records only)."""

    @property
    def acted_at_utc(self) -> datetime:
        return datetime.fromisoformat(self.acted_at)

    def authenticated_content(self) -> bytes:
        """What the HMAC covers: every field but ``hmac`` (so also the previous record's
        tag), as canonical JSON."""
        body = {k: v for k, v in _stored(self).items() if k != "hmac"}
        return _DOMAIN + json.dumps(body, sort_keys=True, separators=(",", ":")).encode()

    def ledger_values(self) -> tuple[str, str, str, str, datetime]:
        """The record as the ledger's ``acknowledgements`` row stores it (naive UTC time)."""
        acted = self.acted_at_utc.astimezone(UTC).replace(tzinfo=None)
        return (self.exception_id, self.action, self.note, self.actor, acted)


@dataclass(frozen=True, slots=True)
class _Line:
    record: AckRecord | None
    problem: str | None


def journal_path_for(ledger_path: Path | str) -> Path:
    """Where the journal of a ledger lives: ``$BACCARAT_ACKS``, else next to the ledger."""
    override = os.environ.get("BACCARAT_ACKS")
    if override:
        return Path(override)
    path = Path(ledger_path)
    return path.with_name(f"{path.stem}.acknowledgements.jsonl")


class AckJournal:
    """An append-only JSON-lines journal of acknowledgements, each line authenticated with
    the application's key and chained to the one before it."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)

    @classmethod
    def for_ledger(cls, ledger_path: Path | str) -> AckJournal:
        return cls(journal_path_for(ledger_path))

    # ------------------------------------------------------------------ writing
    def append(
        self,
        *,
        exception_id: str,
        action: str,
        note: str,
        actor: str,
        actor_source: str,
        table_id: str | None = None,
        gaming_date: date | str | None = None,
        assignee: str | None = None,
        now: datetime | None = None,
    ) -> AckRecord:
        """Record one action on one exception; returns the stored record. ``assignee``: who
        holds the exception, for ASSIGN (and only for it). Whether ``actor`` may act is the
        caller's check (:func:`pipeline.config.roles.authorize`)."""
        action = action.strip().upper()
        holder = (assignee or "").strip()
        problems = []
        if not exception_id.strip():
            problems.append("which exception is acknowledged is required")
        if action not in ACTIONS:
            problems.append(f"action must be one of {', '.join(ACTIONS)}, not {action!r}")
        if action == ASSIGN and not holder:
            problems.append("an assignment names who holds the exception (assignee)")
        if action != ASSIGN and holder:
            problems.append(f"only {ASSIGN} names a holder; {action} does not take an assignee")
        if not note.strip():
            problems.append("a note saying why is required")
        if not actor.strip():
            problems.append("who acts is required (name or badge id)")
        if not actor_source.strip():
            problems.append("where the actor's name came from (actor_source) is required")
        if problems:
            raise JournalError("; ".join(problems))
        moment = (now or datetime.now(UTC)).astimezone(UTC)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._locked() as fo:
            fo.seek(0)
            lines = _scan(fo.read())
            unsigned = AckRecord(
                ack_id=uuid.uuid4().hex,
                exception_id=exception_id.strip(),
                action=action,
                note=note.strip(),
                actor=actor.strip(),
                actor_source=actor_source.strip(),
                acted_at=moment.isoformat(timespec="microseconds"),
                table_id=table_id,
                gaming_date=gaming_date.isoformat()
                if isinstance(gaming_date, date)
                else gaming_date,
                prev_hmac=_last_tag(lines),
                hmac="",
                assignee=holder or None,
            )
            record = _signed(unsigned)
            fo.seek(0, os.SEEK_END)
            fo.write(_line_text(record))
            fo.flush()
            os.fsync(fo.fileno())
        return record

    def re_sign_unkeyed(self, reviewer: str, reviewer_source: str, note: str) -> int:
        """Authenticate a journal written before its lines carried an HMAC, after a person
        has reviewed it; returns how many records were re-signed.

        Refused unless every line is an unkeyed record and their SHA-256 chain is intact (a
        chain that no longer holds was changed after it was written, and no review can
        tell by whom). The original is kept as ``<journal>.unkeyed-<UTC time>``; each
        re-signed record's ``actor_source`` says who re-signed it, when and why."""
        if not note.strip():
            raise JournalError("re-signing needs a note saying what was reviewed")
        if not reviewer.strip():
            raise JournalError("re-signing needs the reviewer's name")
        with self._locked() as fo:
            fo.seek(0)
            text = fo.read()
            unkeyed, problems = _unkeyed_records(self.path.name, text)
            if problems:
                raise JournalError(f"{self.path}: not re-signed: " + "; ".join(problems))
            moment = datetime.now(UTC).isoformat(timespec="seconds")
            backup = self.path.with_name(f"{self.path.name}.unkeyed-{moment}")
            backup.write_text(text, encoding="utf-8")
            previous = GENESIS
            signed_lines = []
            for old in unkeyed:
                values: dict[str, Any] = {f.name: old.get(f.name) for f in fields(AckRecord)}
                values.update(
                    actor_source=f"{old['actor_source']}; unkeyed record re-signed by "
                    f"{reviewer.strip()} ({reviewer_source}) at {moment}: {note.strip()}",
                    prev_hmac=previous,
                    hmac="",
                )
                record = _signed(AckRecord(**values))
                previous = record.hmac
                signed_lines.append(_line_text(record))
            fo.seek(0)
            fo.truncate()
            fo.write("".join(signed_lines))
            fo.flush()
            os.fsync(fo.fileno())
        return len(signed_lines)

    @contextmanager
    def _locked(self) -> Iterator[IO[str]]:
        with self.path.open("a+", encoding="utf-8") as fo:
            fcntl.flock(fo.fileno(), fcntl.LOCK_EX)
            try:
                yield fo
            finally:
                fcntl.flock(fo.fileno(), fcntl.LOCK_UN)

    # ------------------------------------------------------------------ reading
    def _lines(self) -> list[_Line]:
        if not self.path.exists():
            return []
        return _scan(self.path.read_text(encoding="utf-8"), self.path.name)

    def records(self) -> list[AckRecord]:
        """Every record that parses, oldest first, authenticated or not (:meth:`verify`
        says which are not)."""
        return [line.record for line in self._lines() if line.record is not None]

    def verify(self) -> list[str]:
        """Problems with the journal, each naming its line (empty: every line written by
        this application, chained in order, none missing between them)."""
        return [line.problem for line in self._lines() if line.problem is not None]

    def latest_actions(self) -> dict[str, AckRecord]:
        """The most recent ACKNOWLEDGE or ESCALATE per exception id: the action that stands
        (an assignment changes who holds it, not its status)."""
        return _latest(self.records(), DISPOSITIONS)

    def holders(self) -> dict[str, AckRecord]:
        """The most recent ASSIGN per exception id: who holds it (``assignee``), who
        assigned it, when and why."""
        return _latest(self.records(), (ASSIGN,))

    # ------------------------------------------------------------------ against the ledger
    def problems_against(self, con: duckdb.DuckDBPyConnection) -> list[str]:
        """The journal's own problems (:meth:`verify`), and every acknowledgement already
        imported into the ledger that the journal no longer holds unchanged: one removed,
        edited, or the journal emptied or replaced after a close; or a row inserted into the
        ledger's table by hand."""
        problems = self.verify()
        by_id = {r.ack_id: r for r in self.records()}
        by_values = {r.ledger_values() for r in by_id.values()}
        # SELECT *: a ledger opened read-only before migration 7 has no ack_id or record_hmac
        cursor = con.execute("SELECT * FROM acknowledgements ORDER BY acted_at, exception_id")
        names = [d[0] for d in cursor.description or ()]
        for row in cursor.fetchall():
            stored = dict(zip(names, row, strict=True))
            ack_id, record_hmac = stored.get("ack_id"), stored.get("record_hmac")
            values = tuple(stored[c] for c in _LEDGER_COLUMNS)
            what = f"{values[1]} of exception {values[0]} by {values[3]} at {values[4]}"
            if ack_id is None:
                if values not in by_values:
                    problems.append(
                        f"ledger acknowledgements: {what} has no record in {self.path.name} "
                        "(inserted into the ledger by hand, or its journal line was removed)"
                    )
                continue
            record = by_id.get(ack_id)
            if record is None:
                problems.append(
                    f"ledger acknowledgements: {what} (ack {ack_id}) is no longer in "
                    f"{self.path.name}: the journal was truncated, emptied or replaced since "
                    "it was imported; restore it from a backup"
                )
            elif record.ledger_values() != values or record.hmac != record_hmac:
                problems.append(
                    f"ledger acknowledgements: {what} (ack {ack_id}) differs from its record "
                    f"in {self.path.name}"
                )
        return problems

    def import_into(self, con: duckdb.DuckDBPyConnection, gaming_date: date | None = None) -> int:
        """Copy records not yet there into the ledger's ``acknowledgements`` table; returns
        how many. Call from the process that holds the ledger for writing (the gaming-day
        close does, just before counting what blocks). With ``gaming_date``, only the
        records of that day's exceptions are copied: an acknowledgement of a day already
        closed waits for that day's reopening instead of changing its sealed rows.

        Raises :class:`JournalError`, importing nothing, when :meth:`problems_against`
        finds anything: a close must not count an acknowledgement nobody can vouch for.
        Idempotent: a record already present (same ``ack_id``, or the same values in a row
        imported before the ledger kept ``ack_id``) is not inserted again."""
        problems = self.problems_against(con)
        if problems:
            raise JournalError(
                f"the acknowledgement journal {self.path} does not verify, so no "
                f"acknowledgement was imported and the close was not made: "
                + "; ".join(problems)
                + ". Restore the journal from a backup, or, for a journal written before its "
                "lines were authenticated, review it and re-sign it (baccarat-audit ack "
                "--re-sign-unkeyed); then close again"
            )
        present = {
            str(a)
            for (a,) in con.execute(
                "SELECT ack_id FROM acknowledgements WHERE ack_id IS NOT NULL"
            ).fetchall()
        }
        # rows imported before migration 7 have no ack_id: they are known by their values
        imported_unkeyed = set(
            con.execute(
                f"SELECT {', '.join(_LEDGER_COLUMNS)} FROM acknowledgements WHERE ack_id IS NULL"
            ).fetchall()
        )
        new = [
            r
            for r in self.records()
            if r.action in DISPOSITIONS
            and r.ack_id not in present
            and r.ledger_values() not in imported_unkeyed
        ]
        if gaming_date is not None:
            of_day = {
                str(e)
                for (e,) in con.execute(
                    "SELECT exception_id FROM exceptions WHERE gaming_date = ?", [gaming_date]
                ).fetchall()
            }
            new = [r for r in new if r.exception_id in of_day]
        for r in new:
            con.execute(
                f"INSERT INTO acknowledgements ({', '.join(_LEDGER_COLUMNS)}, ack_id, "
                "actor_source, record_hmac) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [*r.ledger_values(), r.ack_id, r.actor_source, r.hmac],
            )
        return len(new)


def journal_problems(ledger_path: Path | str, con: duckdb.DuckDBPyConnection) -> list[str]:
    """What ``verify`` reports about a ledger's acknowledgements: the journal's own problems
    and every imported acknowledgement it no longer holds unchanged."""
    return AckJournal.for_ledger(ledger_path).problems_against(con)


def _latest(records: list[AckRecord], actions: tuple[str, ...]) -> dict[str, AckRecord]:
    latest: dict[str, AckRecord] = {}
    for record in records:
        if record.action in actions:
            latest[record.exception_id] = record
    return latest


def _stored(record: AckRecord) -> dict[str, Any]:
    """The record's fields as its line holds them (see :data:`_ABSENT_WHEN_NONE`)."""
    return {k: v for k, v in asdict(record).items() if not (v is None and k in _ABSENT_WHEN_NONE)}


def _signed(record: AckRecord) -> AckRecord:
    return replace(record, hmac=authenticate(record.authenticated_content()))


def _line_text(record: AckRecord) -> str:
    return json.dumps(_stored(record), sort_keys=True, separators=(",", ":")) + "\n"


def _scan(text: str, name: str = "journal") -> list[_Line]:
    """Each non-blank line parsed and checked: authentic, and chained to the line before."""
    out = []
    previous = GENESIS
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{name} line {number}"
        data = _json_object(line)
        if data is None or not data.keys() >= _REQUIRED:
            if data is not None and "sha256" in data and "hmac" not in data:
                unreadable = (
                    f"{where}: an unkeyed record (SHA-256 only, written before acknowledgements "
                    "were authenticated, or by hand); review the journal and re-sign it: "
                    "baccarat-audit ack --db LEDGER --re-sign-unkeyed --actor ADMIN --note WHY"
                )
            else:
                unreadable = f"{where}: not an acknowledgement record"
            out.append(_Line(None, unreadable))
            continue
        try:
            record = _typed(data)
            valid = authentic(record.authenticated_content(), record.hmac)
        except (TypeError, ValueError):
            out.append(_Line(None, f"{where}: not an acknowledgement record"))
            continue
        what = f"{record.action} of exception {record.exception_id} by {record.actor}"
        if not valid:
            problem: str | None = (
                f"{where}: {what} is not authenticated by the application's key: written "
                "without it, or changed after it was written"
            )
        elif record.prev_hmac != previous:
            problem = (
                f"{where}: {what} is out of its chain: a line before it was removed, or the "
                "lines were reordered"
            )
        else:
            problem = None
        out.append(_Line(record, problem))
        previous = record.hmac
    return out


_REQUIRED = frozenset(f.name for f in fields(AckRecord)) - _ABSENT_WHEN_NONE


def _typed(data: dict[str, Any]) -> AckRecord:
    """The record a parsed line holds; TypeError or ValueError when a field is not of its
    type (text; the table, the gaming date and the assignee may be null; the time ISO
    8601)."""
    values: dict[str, Any] = {f.name: data.get(f.name) for f in fields(AckRecord)}
    for name, value in values.items():
        if not (isinstance(value, str) or (value is None and name in _OPTIONAL)):
            raise TypeError(f"{name} is {type(value).__name__}")
    record = AckRecord(**values)
    record.acted_at_utc.astimezone(UTC)  # a time this module cannot read is no record
    return record


def _json_object(line: str) -> dict[str, Any] | None:
    try:
        data = json.loads(line)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def _last_tag(lines: list[_Line]) -> str:
    tags = [line.record.hmac for line in lines if line.record is not None]
    return tags[-1] if tags else GENESIS


def _unkeyed_records(name: str, text: str) -> tuple[list[dict[str, Any]], list[str]]:
    """The records of a journal written before lines were authenticated, and the problems
    that forbid re-signing it (a line of another kind, or a broken SHA-256 chain)."""
    unkeyed_fields = _REQUIRED - {"hmac", "prev_hmac"}
    records: list[dict[str, Any]] = []
    problems = []
    previous = GENESIS
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        data = _json_object(line)
        if data is None or not unkeyed_fields | {"sha256", "prev_sha256"} <= data.keys():
            problems.append(f"{name} line {number}: not an unkeyed acknowledgement record")
            continue
        body = {k: v for k, v in data.items() if k != "sha256"}
        content = json.dumps(body, sort_keys=True, separators=(",", ":")).encode()
        if hashlib.sha256(content).hexdigest() != data["sha256"]:
            problems.append(f"{name} line {number}: changed after it was written")
        elif data["prev_sha256"] != previous:
            problems.append(f"{name} line {number}: its SHA-256 chain is broken")
        previous = str(data["sha256"])
        records.append(data)
    if not records and not problems:
        problems.append(f"{name}: no records to re-sign")
    return records, problems
