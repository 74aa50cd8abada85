"""The acknowledgement journal: who acknowledged or escalated which exception, when, and why.

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
  then acknowledge) is a new record;
- audited: each record states the exception, the action, the note, the actor (and whether
  the name came from an authenticating proxy or was typed in), and the UTC time;
- tamper-evident: each record carries the SHA-256 of its content and of the record before it,
  so an edited, removed or reordered line breaks the chain (:meth:`AckJournal.verify`);
- readable by the reports: the dashboards merge it with the ledger's table, and
  :meth:`AckJournal.import_into` copies new records into the ledger's ``acknowledgements``
  table from the writer's side (idempotently), where the gaming-day close counts them.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields
from datetime import UTC, date, datetime
from pathlib import Path
from typing import IO, Any

import duckdb

ACKNOWLEDGE = "ACKNOWLEDGE"
ESCALATE = "ESCALATE"
ACTIONS: tuple[str, ...] = (ACKNOWLEDGE, ESCALATE)
"""ACKNOWLEDGE clears an exception from the queue (and, if critical, from the close's blocking
list); ESCALATE hands it on and keeps it open and blocking."""

ACTOR_SOURCES: tuple[str, ...] = ("proxy", "self-declared")
GENESIS = "0" * 64


class JournalError(ValueError):
    """An acknowledgement that cannot be recorded as given; the message says why."""


@dataclass(frozen=True, slots=True)
class AckRecord:
    ack_id: str
    exception_id: str
    action: str
    note: str
    actor: str
    actor_source: str
    acted_at: str  # ISO 8601, UTC, microseconds
    table_id: str | None
    gaming_date: str | None
    prev_sha256: str
    sha256: str

    @property
    def acted_at_utc(self) -> datetime:
        return datetime.fromisoformat(self.acted_at)

    def content_sha256(self) -> str:
        """The SHA-256 this record must carry: every field but ``sha256``, canonical JSON."""
        body = {k: v for k, v in asdict(self).items() if k != "sha256"}
        text = json.dumps(body, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


def journal_path_for(ledger_path: Path | str) -> Path:
    """Where the journal of a ledger lives: ``$BACCARAT_ACKS``, else next to the ledger."""
    override = os.environ.get("BACCARAT_ACKS")
    if override:
        return Path(override)
    path = Path(ledger_path)
    return path.with_name(f"{path.stem}.acknowledgements.jsonl")


class AckJournal:
    """An append-only, hash-chained JSON-lines journal of acknowledgements."""

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
        actor_source: str = "self-declared",
        table_id: str | None = None,
        gaming_date: date | str | None = None,
        now: datetime | None = None,
    ) -> AckRecord:
        """Record one action on one exception; returns the stored record."""
        action = action.strip().upper()
        problems = []
        if not exception_id.strip():
            problems.append("which exception is acknowledged is required")
        if action not in ACTIONS:
            problems.append(f"action must be one of {', '.join(ACTIONS)}, not {action!r}")
        if not note.strip():
            problems.append("a note saying why is required")
        if not actor.strip():
            problems.append("who acts is required (name or badge id)")
        if actor_source not in ACTOR_SOURCES:
            problems.append(f"actor_source must be one of {ACTOR_SOURCES}")
        if problems:
            raise JournalError("; ".join(problems))
        moment = (now or datetime.now(UTC)).astimezone(UTC)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._locked() as fo:
            previous = _last_sha(fo)
            unsigned = AckRecord(
                ack_id=uuid.uuid4().hex,
                exception_id=exception_id.strip(),
                action=action,
                note=note.strip(),
                actor=actor.strip(),
                actor_source=actor_source,
                acted_at=moment.isoformat(timespec="microseconds"),
                table_id=table_id,
                gaming_date=gaming_date.isoformat()
                if isinstance(gaming_date, date)
                else gaming_date,
                prev_sha256=previous,
                sha256="",
            )
            record = _signed(unsigned)
            fo.seek(0, os.SEEK_END)
            fo.write(json.dumps(asdict(record), sort_keys=True, separators=(",", ":")) + "\n")
            fo.flush()
            os.fsync(fo.fileno())
        return record

    @contextmanager
    def _locked(self) -> Iterator[IO[str]]:
        with self.path.open("a+", encoding="utf-8") as fo:
            fcntl.flock(fo.fileno(), fcntl.LOCK_EX)
            try:
                yield fo
            finally:
                fcntl.flock(fo.fileno(), fcntl.LOCK_UN)

    # ------------------------------------------------------------------ reading
    def records(self) -> list[AckRecord]:
        """Every record, oldest first (unparseable lines are skipped; :meth:`verify` names
        them)."""
        if not self.path.exists():
            return []
        out = []
        for line in self.path.read_text(encoding="utf-8").splitlines():
            record = _parse(line)
            if record is not None:
                out.append(record)
        return out

    def verify(self) -> list[str]:
        """Problems with the journal (empty: every line intact and chained in order)."""
        if not self.path.exists():
            return []
        problems = []
        previous = GENESIS
        for number, line in enumerate(self.path.read_text(encoding="utf-8").splitlines(), 1):
            record = _parse(line)
            if record is None:
                problems.append(f"{self.path.name} line {number}: not an acknowledgement record")
                continue
            if record.content_sha256() != record.sha256:
                problems.append(
                    f"{self.path.name} line {number}: content changed after it was written "
                    f"(ack {record.ack_id})"
                )
            if record.prev_sha256 != previous:
                problems.append(
                    f"{self.path.name} line {number}: chain broken (a record before it was "
                    "removed, changed or reordered)"
                )
            previous = record.sha256
        return problems

    def latest_actions(self) -> dict[str, AckRecord]:
        """The most recent record per exception id."""
        latest: dict[str, AckRecord] = {}
        for record in self.records():
            latest[record.exception_id] = record
        return latest

    # ------------------------------------------------------------------ into the ledger
    def import_into(self, con: duckdb.DuckDBPyConnection) -> int:
        """Copy records not yet there into the ledger's ``acknowledgements`` table; returns
        how many. Idempotent: a record already present (same ``ack_id`` where the table has
        that column, else same exception, action, note, actor and time) is not inserted
        again. Call from the process that holds the ledger for writing (e.g. just before
        ``close_gaming_day``). The optional columns ``ack_id``, ``actor_source`` and
        ``record_sha256`` are filled when a migration has added them."""
        columns = {
            str(c)
            for (c,) in con.execute(
                "SELECT column_name FROM information_schema.columns "
                "WHERE table_name = 'acknowledgements'"
            ).fetchall()
        }
        extra = [c for c in ("ack_id", "actor_source", "record_sha256") if c in columns]
        added = 0
        for r in self.records():
            acted = r.acted_at_utc.astimezone(UTC).replace(tzinfo=None)
            params: list[Any] = [r.exception_id, r.action, r.note, r.actor, acted]
            if "ack_id" in columns:
                exists = con.execute(
                    "SELECT count(*) FROM acknowledgements WHERE ack_id = ?", [r.ack_id]
                ).fetchone()
            else:
                exists = con.execute(
                    "SELECT count(*) FROM acknowledgements WHERE exception_id = ? AND "
                    "action = ? AND note IS NOT DISTINCT FROM ? AND actor = ? AND acted_at = ?",
                    params,
                ).fetchone()
            if exists and exists[0]:
                continue
            values = {"ack_id": r.ack_id, "actor_source": r.actor_source, "record_sha256": r.sha256}
            names = ["exception_id", "action", "note", "actor", "acted_at", *extra]
            con.execute(
                f"INSERT INTO acknowledgements ({', '.join(names)}) "
                f"VALUES ({', '.join('?' * len(names))})",
                [*params, *(values[c] for c in extra)],
            )
            added += 1
        return added


def _signed(record: AckRecord) -> AckRecord:
    values = asdict(record)
    values["sha256"] = record.content_sha256()
    return AckRecord(**values)


def _parse(line: str) -> AckRecord | None:
    if not line.strip():
        return None
    try:
        data = json.loads(line)
        return AckRecord(**{f.name: data[f.name] for f in fields(AckRecord)})
    except (ValueError, KeyError, TypeError):
        return None


def _last_sha(fo: IO[str]) -> str:
    fo.seek(0)
    last = GENESIS
    for line in fo:
        record = _parse(line)
        if record is not None:
            last = record.sha256
    return last
