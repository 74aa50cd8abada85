"""The DuckDB ledger: raw deliveries in, derived table-day rows out, all idempotent.

Invariants (each checked by tests):
1. Loading the same deliveries again changes nothing (keyed by source and position).
2. Derived rows of a table-day depend only on the set of deliveries for it, so loading a day
   whole, in halves, or in either order gives identical query results.
3. A table-day's derived rows are replaced in one transaction: readers never see half a day.
4. Every derived row keeps the ids of the events it came from.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pandas as pd

from pipeline.events.model import TableEvent
from pipeline.ledger.migrations import DERIVED_TABLES, MIGRATIONS
from pipeline.replay.findings import Finding
from pipeline.replay.rows import ReplayResult

DATE_FIELDS = frozenset({"gaming_date"})


class LedgerError(RuntimeError):
    """The ledger file cannot be used as it is; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class Delivery:
    """One event as it arrived: where from (``source``, ``position``) and what."""

    source: str
    position: int
    event: TableEvent


def gaming_date_of(occurred_at_micros: int, day_starts: time) -> date:
    """The gaming day an instant (UTC microseconds) belongs to: days run from ``day_starts``
    to the next ``day_starts``."""
    offset = (day_starts.hour * 3600 + day_starts.minute * 60) * 1_000_000
    return _day((occurred_at_micros - offset) // 86_400_000_000)


@functools.lru_cache(maxsize=4096)
def _day(days_since_epoch: int) -> date:
    return _EPOCH_DATE + timedelta(days=days_since_epoch)


_EPOCH_DATE = date(1970, 1, 1)


def _fields_from_json(text: str) -> dict[str, Any]:
    fields: dict[str, Any] = orjson.loads(text)
    for name in DATE_FIELDS & fields.keys():
        if fields[name] is not None:
            fields[name] = date.fromisoformat(fields[name])
    return fields


class Ledger:
    """A connection to the ledger file. Writers migrate it; readers open it read-only."""

    def __init__(self, path: Path | str, *, read_only: bool = False) -> None:
        self.path = Path(path)
        if read_only and not self.path.exists():
            raise LedgerError(
                f"{self.path}: no ledger here yet; run `baccarat-audit demo` or "
                "`baccarat-audit ingest` first"
            )
        try:
            self.con = duckdb.connect(str(self.path), read_only=read_only)
        except duckdb.IOException as err:
            raise LedgerError(
                f"{self.path}: cannot open the ledger ({err}). Another process "
                "may hold the write lock; readers should open it read-only."
            ) from err
        if not read_only:
            self.migrate()

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ schema
    def schema_version(self) -> int:
        exists = self.con.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_name = 'schema_migrations'"
        ).fetchone()
        if not exists or not exists[0]:
            return 0
        row = self.con.execute("SELECT max(version) FROM schema_migrations").fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    def migrate(self) -> int:
        self.con.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY "
            "KEY, name VARCHAR, applied_at TIMESTAMP)"
        )
        current = self.schema_version()
        latest = MIGRATIONS[-1][0]
        if current > latest:
            raise LedgerError(
                f"{self.path} is at schema version {current}, newer than this "
                f"program ({latest}); upgrade baccarat-audit"
            )
        for version, name, sql in MIGRATIONS:
            if version <= current:
                continue
            with self.transaction():
                self.con.execute(sql)
                self.con.execute(
                    "INSERT INTO schema_migrations VALUES (?, ?, now())", [version, name]
                )
        return latest

    @contextmanager
    def transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        self.con.execute("BEGIN TRANSACTION")
        try:
            yield self.con
        except BaseException:
            self.con.execute("ROLLBACK")
            raise
        self.con.execute("COMMIT")

    # ------------------------------------------------------------------ raw deliveries
    def add_deliveries(
        self,
        deliveries: Sequence[Delivery],
        day_starts: time,
    ) -> set[tuple[str, date]]:
        """Store new deliveries; return the (table_id, gaming_date) pairs they touched.

        Call inside :meth:`transaction` to commit them with the rows they produce.
        """
        if not deliveries:
            return set()
        events = [d.event for d in deliveries]
        frame = pd.DataFrame(
            {
                "source": [d.source for d in deliveries],
                "position": [d.position for d in deliveries],
                "event_id": [e.event_id for e in events],
                "table_id": [e.table_id for e in events],
                "device_id": [e.device_id for e in events],
                "seq": [e.seq for e in events],
                "occurred_at": [e.occurred_at for e in events],
                "gaming_date": [gaming_date_of(e.occurred_at, day_starts) for e in events],
                "payload_type": [e.payload_type for e in events],
                "fields_json": [orjson.dumps(e.fields).decode() for e in events],
            }
        )
        self.con.register("incoming", frame)
        try:
            touched = self.con.execute(
                "SELECT DISTINCT i.table_id, i.gaming_date::DATE FROM incoming i "
                "ANTI JOIN deliveries d USING (source, position)"
            ).fetchall()
            self.con.execute(
                "INSERT INTO deliveries SELECT i.source, i.position, i.event_id, i.table_id, "
                "i.device_id, i.seq, i.occurred_at, i.gaming_date::DATE, i.payload_type, "
                "i.fields_json FROM incoming i ANTI JOIN deliveries d USING (source, position)"
            )
        finally:
            self.con.unregister("incoming")
        return {(str(t), d) for t, d in touched}

    def record_input_file(self, source: str, sha256: str, size: int, events: int) -> None:
        """Remember an input file's digest; the day close chains it (tamper evidence)."""
        self.con.execute(
            "INSERT INTO input_files VALUES (?, ?, ?, ?, now()) ON CONFLICT DO UPDATE SET "
            "sha256 = excluded.sha256, bytes = excluded.bytes, events = excluded.events",
            [source, sha256, size, events],
        )

    def holds_input_file(self, source: str, sha256: str) -> bool:
        row = self.con.execute(
            "SELECT count(*) FROM input_files WHERE source = ? AND sha256 = ?", [source, sha256]
        ).fetchone()
        return bool(row and row[0])

    def add_dead_letters(
        self, rows: Iterable[tuple[str, int, str, str, str | None, bytes | None, date | None]]
    ) -> int:
        """Store dead letters in bulk; one already stored (same source and position) is kept."""
        rows = list(rows)
        if not rows:
            return 0
        frame = pd.DataFrame.from_records(
            rows,
            columns=[
                "source",
                "position",
                "reason",
                "detail",
                "device_id",
                "raw_bytes",
                "received_on",
            ],
        ).drop_duplicates(["source", "position"])
        self.con.register("letters", frame)
        try:
            self.con.execute(
                "INSERT INTO dead_letters SELECT source, position, reason, detail, device_id, "
                "raw_bytes::BLOB, received_on::DATE FROM letters ON CONFLICT DO NOTHING"
            )
        finally:
            self.con.unregister("letters")
        return len(rows)

    def events_for(self, table_id: str, gaming_date: date) -> list[TableEvent]:
        """Every delivery of a table-day, in a fixed order (source, position)."""
        rows = self.con.execute(
            "SELECT event_id, table_id, device_id, seq, occurred_at, payload_type, fields_json "
            "FROM deliveries WHERE table_id = ? AND gaming_date = ? ORDER BY source, position",
            [table_id, gaming_date],
        ).fetchall()
        return [
            TableEvent(r[0], r[1], r[2], int(r[3]), int(r[4]), r[5], _fields_from_json(r[6]))
            for r in rows
        ]

    def table_days_present(self, keys: Iterable[tuple[str, date]]) -> set[tuple[str, date]]:
        """Which of these (table_id, gaming_date) pairs already have deliveries."""
        wanted = set(keys)
        if not wanted:
            return set()
        tables = sorted({t for t, _ in wanted})
        rows = self.con.execute(
            "SELECT DISTINCT table_id, gaming_date FROM deliveries WHERE table_id IN "
            f"({', '.join('?' * len(tables))})",
            tables,
        ).fetchall()
        return {(str(t), d) for t, d in rows} & wanted

    def table_days(self) -> list[tuple[str, date]]:
        return [
            (str(t), d)
            for t, d in self.con.execute(
                "SELECT DISTINCT table_id, gaming_date FROM deliveries ORDER BY 2, 1"
            ).fetchall()
        ]

    # ------------------------------------------------------------------ derived rows
    def replace_table_day(self, table_id: str, gaming_date: date, result: ReplayResult) -> None:
        """Replace every derived row of one table-day. Call inside :meth:`transaction`."""
        for table in DERIVED_TABLES:
            self.con.execute(
                f"DELETE FROM {table} WHERE table_id = ? AND gaming_date = ?",
                [table_id, gaming_date],
            )
        day = gaming_date
        self._insert(
            "rounds",
            [
                (
                    r.table_id,
                    day,
                    r.shoe_id,
                    r.round_id,
                    r.round_number,
                    r.simulated,
                    r.status,
                    r.player_cards,
                    r.banker_cards,
                    r.player_points,
                    r.banker_points,
                    r.winner,
                    r.total_cards,
                    r.natural,
                    r.dragon_7,
                    r.announced,
                    r.options_taken,
                    r.started_at,
                    r.started_event,
                )
                for r in result.rounds
            ],
        )
        self._insert(
            "cards",
            [
                (
                    c.table_id,
                    day,
                    c.shoe_id,
                    c.round_id,
                    c.position,
                    c.rank,
                    c.suit,
                    c.hand,
                    c.event_id,
                )
                for c in result.cards
            ],
        )
        self._insert(
            "wagers",
            [
                (
                    w.table_id,
                    day,
                    w.round_id,
                    w.seat,
                    w.patron_id,
                    w.wager,
                    w.amount_cents,
                    w.late,
                    list(w.event_ids),
                )
                for w in result.wagers
            ],
        )
        self._insert(
            "settlements",
            [
                (
                    s.table_id,
                    day,
                    s.round_id,
                    s.seat,
                    s.patron_id,
                    s.wager,
                    s.stake_cents,
                    s.expected_result,
                    s.expected_paid_cents,
                    s.expected_vig_cents,
                    s.recorded_result,
                    s.recorded_paid_cents,
                    s.rule_code,
                    list(s.event_ids),
                )
                for s in result.settlements
            ],
        )
        self._insert(
            "vig_ledger",
            [
                (
                    v.table_id,
                    day,
                    v.shoe_id,
                    v.round_id,
                    v.seat,
                    v.patron_id,
                    v.kind,
                    v.amount_cents,
                    v.balance_after_cents,
                    v.occurred_at,
                    v.event_id,
                )
                for v in result.vig_ledger
            ],
        )
        self._insert(
            "comp_vig_forms",
            [
                (
                    f.table_id,
                    day,
                    f.serial,
                    f.status,
                    f.amount_cents,
                    f.patron_name,
                    f.patron_id,
                    f.gaming_date,
                    f.pit,
                    f.table_location,
                    f.dealer_signature,
                    f.pit_boss_signature,
                    f.pit_clerk_signature,
                    f.patron_signature,
                    f.signature_missing_reason,
                    f.marked_void,
                    f.event_id,
                )
                for f in result.forms
            ],
        )
        self._insert(
            "form_series",
            [
                (s.table_id, day, s.first_serial, s.last_serial, s.used, s.voided, s.event_id)
                for s in result.form_series
            ],
        )
        self._insert(
            "form_events",
            [
                (
                    f.table_id,
                    day,
                    f.serial,
                    f.kind,
                    f.amount_cents,
                    f.patron_name,
                    f.table_location,
                    f.gaming_date,
                    f.marked_void,
                    f.matched,
                    f.event_id,
                )
                for f in result.form_events
            ],
        )
        self._insert("exceptions", [_exception_row(f, day) for f in result.findings])
        summary = result.summary
        if summary is not None:
            self._insert(
                "table_day_summary",
                [
                    (
                        table_id,
                        day,
                        summary.rules_id,
                        summary.game,
                        summary.pit,
                        summary.location,
                        summary.dealer_id,
                        summary.shoes,
                        summary.rounds,
                        result.event_count,
                        summary.duplicates,
                        summary.handle_cents,
                        summary.vig_expected_cents,
                        summary.vig_collected_cents,
                        summary.vig_uncollected_cents,
                        summary.comp_vig_cents,
                        len(result.findings),
                        datetime.now(UTC),
                    )
                ],
            )
            self.con.execute(
                """
                INSERT INTO table_day_win
                SELECT table_id, gaming_date, wager,
                  sum(CASE expected_result WHEN 'LOSE' THEN stake_cents
                       WHEN 'WIN' THEN -expected_paid_cents ELSE 0 END),
                  sum(CASE recorded_result WHEN 'LOSE' THEN stake_cents
                       WHEN 'WIN' THEN -recorded_paid_cents ELSE 0 END)
                FROM settlements WHERE table_id = ? AND gaming_date = ?
                GROUP BY ALL""",
                [table_id, day],
            )

    def _insert(self, table: str, rows: list[tuple[Any, ...]]) -> None:
        """Bulk insert through a DataFrame: DuckDB's executemany is row-at-a-time."""
        if not rows:
            return
        frame = pd.DataFrame.from_records(rows)
        self.con.register("batch", frame)
        try:
            self.con.execute(f"INSERT INTO {table} SELECT * FROM batch")
        finally:
            self.con.unregister("batch")

    # ------------------------------------------------------------------ shards
    def merge_shard(self, shard: Path) -> tuple[set[tuple[str, date]], set[tuple[str, date]]]:
        """Merge a shard ledger written by a worker (same schema, its own deliveries and the
        rows it derived from them). Call inside :meth:`transaction`.

        Returns (touched, stale): the table-days that received new deliveries, and those of
        them the ledger already held deliveries for before this shard, whose rows the
        shard cannot know and the caller must re-derive from all deliveries. For the others
        the shard's derived rows are final and copied in with set-based SQL.
        """
        self.con.execute(f"ATTACH '{shard}' AS shard (READ_ONLY)")
        try:
            keys = {
                (str(t), d)
                for t, d in self.con.execute(
                    "SELECT DISTINCT table_id, gaming_date FROM shard.deliveries"
                ).fetchall()
            }
            before = self.table_days_present(keys)
            touched = {
                (str(t), d)
                for t, d in self.con.execute(
                    "SELECT DISTINCT s.table_id, s.gaming_date FROM shard.deliveries s "
                    "ANTI JOIN deliveries d USING (source, position)"
                ).fetchall()
            }
            self.con.execute(
                "INSERT INTO deliveries SELECT s.* FROM shard.deliveries s "
                "ANTI JOIN deliveries d USING (source, position)"
            )
            self.con.execute(
                "INSERT INTO dead_letters SELECT * FROM shard.dead_letters ON CONFLICT DO NOTHING"
            )
            self.con.execute(
                "INSERT INTO input_files SELECT * FROM shard.input_files "
                "ON CONFLICT DO UPDATE SET sha256 = excluded.sha256, "
                "bytes = excluded.bytes, events = excluded.events"
            )
            for table_id, day in sorted(touched - before):
                for table in DERIVED_TABLES:
                    params = [table_id, day]
                    self.con.execute(
                        f"DELETE FROM {table} WHERE table_id = ? AND gaming_date = ?", params
                    )
                    self.con.execute(
                        f"INSERT INTO {table} SELECT * FROM shard.{table} "
                        "WHERE table_id = ? AND gaming_date = ?",
                        params,
                    )
        finally:
            self.con.execute("DETACH shard")
        return touched, touched & before

    # ------------------------------------------------------------------ Kafka offsets
    def stored_offsets(self, group: str, topic: str) -> dict[int, int]:
        return {
            int(p): int(o)
            for p, o in self.con.execute(
                "SELECT partition, next_offset FROM consumer_offsets WHERE consumer_group = ? AND "
                "topic = ?",
                [group, topic],
            ).fetchall()
        }

    def store_offsets(self, group: str, topic: str, offsets: dict[int, int]) -> None:
        """Call inside the transaction that wrote the rows these offsets produced."""
        for partition, next_offset in offsets.items():
            self.con.execute(
                "INSERT INTO consumer_offsets VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET "
                "next_offset = excluded.next_offset",
                [group, topic, partition, next_offset],
            )


def _exception_row(f: Finding, day: date) -> tuple[Any, ...]:
    return (
        f.finding_id,
        f.table_id,
        day,
        f.code,
        f.section,
        f.severity.name,
        int(f.severity),
        f.shoe_id,
        f.round_id,
        f.seat,
        f.patron_id,
        f.serial,
        f.expected_cents,
        f.actual_cents,
        f.message,
        list(f.event_ids),
    )
