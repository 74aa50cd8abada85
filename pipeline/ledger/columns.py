"""Ledger rows as Arrow tables, built without a connection to the ledger.

Workers build them in their own processes; the single writer only inserts them
(:meth:`~pipeline.ledger.store.Ledger.merge_batch`). Arrow tables cross a process boundary
(or travel between machines as Arrow IPC or Parquet files) without a per-row cost, and DuckDB
scans them without a copy. Columns are in the order of the ledger table they go into, as
:mod:`pipeline.ledger.tables` declares it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

import orjson
import pyarrow as pa

from pipeline.events.model import TableEvent
from pipeline.ledger.tables import TABLE
from pipeline.replay.findings import Finding
from pipeline.replay.rows import ReplayResult
from pipeline.rules.gaming_day import GamingDay

TableDay = tuple[str, date]
Row = tuple[Any, ...]


DeliveryKey = tuple[str, str, int, int]
"""A delivery's identity: (source, event_id, seq, occurrence)."""


@dataclass(frozen=True, slots=True)
class Delivery:
    """One event as it arrived: where from (``source``: a file's full resolved path, or
    ``kafka:<topic>:<partition>``), where in it (``position``: index in the file, or offset),
    what (``event``), and which delivery of that event from that source it is
    (``occurrence``: for a file, how many earlier copies of the same event id and seq the
    file holds, see :class:`Occurrences`; for Kafka, the offset)."""

    source: str
    position: int
    event: TableEvent
    occurrence: int

    @property
    def key(self) -> DeliveryKey:
        """What the ledger keys the delivery by: loading it again adds nothing."""
        return (self.source, self.event.event_id, self.event.seq, self.occurrence)

    @property
    def arrival(self) -> tuple[str, int, str, int, int]:
        """The order deliveries are replayed in, as the ledger sorts them: by source and
        position, ties (versions of a file) broken by the key."""
        return (self.source, self.position, self.event.event_id, self.event.seq, self.occurrence)


class Occurrences:
    """Numbers the deliveries of one source by occurrence: how many earlier ones it made of
    the same event id and seq (a device's duplicate is a delivery of its own)."""

    def __init__(self) -> None:
        self._first_seq: dict[str, int] = {}
        """Each event id's seq when it first came (most events come once: no tuple made)."""
        self._copies: dict[tuple[str, int], int] = {}
        """Deliveries so far of each (event id, seq) whose event id came again."""

    def delivery(self, source: str, position: int, event: TableEvent) -> Delivery:
        event_id, seq = event.event_id, event.seq
        if event_id not in self._first_seq:
            self._first_seq[event_id] = seq
            return Delivery(source, position, event, 0)
        identity = (event_id, seq)
        occurrence = self._copies.get(identity, int(self._first_seq[event_id] == seq))
        self._copies[identity] = occurrence + 1
        return Delivery(source, position, event, occurrence)


def source_deliveries(source: str, events: Iterable[TableEvent]) -> list[Delivery]:
    """``events`` as one source delivered them, in order: positions from 0, and occurrences
    (:class:`Occurrences`)."""
    numbered = Occurrences()
    return [numbered.delivery(source, i, e) for i, e in enumerate(events)]


ARRIVAL_ORDER_SQL = "source, position, event_id, seq, occurrence"
""":attr:`Delivery.arrival` as an ORDER BY list of ``deliveries``."""

DELIVERY_KEY_SQL = "source, event_id, seq, occurrence"
""":attr:`Delivery.key` as a column list of ``deliveries``."""


def arrow_rows(rows: Sequence[Row]) -> pa.Table:
    """Row tuples as an Arrow table with positional column names (types inferred)."""
    columns = [pa.array(column) for column in zip(*rows, strict=True)]
    return pa.Table.from_arrays(columns, names=[f"c{i}" for i in range(len(columns))])


def delivery_table(deliveries: Sequence[Delivery], gaming_day: GamingDay) -> pa.Table:
    """Rows for ``deliveries``: the event's envelope, its gaming date and its fields as JSON."""
    events = [d.event for d in deliveries]
    return pa.table(
        {
            "source": pa.array([d.source for d in deliveries], pa.string()),
            "position": pa.array([d.position for d in deliveries], pa.int64()),
            "event_id": pa.array([e.event_id for e in events], pa.string()),
            "table_id": pa.array([e.table_id for e in events], pa.string()),
            "device_id": pa.array([e.device_id for e in events], pa.string()),
            "seq": pa.array([e.seq for e in events], pa.int64()),
            "occurred_at": pa.array([e.occurred_at for e in events], pa.int64()),
            "gaming_date": pa.array(
                [gaming_day.date_of(e.occurred_at) for e in events], pa.date32()
            ),
            "payload_type": pa.array([e.payload_type for e in events], pa.string()),
            "fields_json": pa.array([orjson.dumps(e.fields).decode() for e in events], pa.string()),
            "occurrence": pa.array([d.occurrence for d in deliveries], pa.int64()),
        }
    )


DeadLetterRow = tuple[str, int, str, str, str | None, bytes | None, date | None]

ARROW_TYPES: dict[str, pa.DataType] = {
    "VARCHAR": pa.string(),
    "VARCHAR[]": pa.list_(pa.string()),
    "BLOB": pa.binary(),
    "BOOLEAN": pa.bool_(),
    "INTEGER": pa.int32(),
    "BIGINT": pa.int64(),
    "BIGINT[]": pa.list_(pa.int64()),
    "BOOLEAN[]": pa.list_(pa.bool_()),
    "DOUBLE[]": pa.list_(pa.float64()),
    "DATE": pa.date32(),
    "TIMESTAMP": pa.timestamp("us"),
}
"""The Arrow type a ledger column of each DuckDB type is built as."""


def arrow_schema(table: str) -> pa.Schema:
    """The Arrow schema of rows of ``table``: its declared columns, in order
    (:mod:`pipeline.ledger.tables`)."""
    return pa.schema([(c.name, ARROW_TYPES[c.type]) for c in TABLE[table].columns])


DEAD_LETTER_SCHEMA = arrow_schema("dead_letters")

INPUT_FILE_SCHEMA = arrow_schema("input_files")


def dead_letter_table(rows: Iterable[DeadLetterRow]) -> pa.Table:
    """Dead letters, not resolved yet, the first of any with the same (source, position)
    kept."""
    first: dict[tuple[str, int], DeadLetterRow] = {}
    for row in rows:
        first.setdefault((row[0], row[1]), row)
    return pa.Table.from_pylist(
        [
            dict(zip(DEAD_LETTER_SCHEMA.names, (*r, None, None), strict=True))
            for r in first.values()
        ],
        schema=DEAD_LETTER_SCHEMA,
    )


def input_file_table(source: str, sha256: str, size: int, events: int) -> pa.Table:
    return pa.Table.from_pylist(
        [
            {
                "source": source,
                "sha256": sha256,
                "bytes": size,
                "events": events,
                "loaded_at": datetime.now(UTC).replace(tzinfo=None),
            }
        ],
        schema=INPUT_FILE_SCHEMA,
    )


@dataclass
class LedgerBatch:
    """Ledger rows made outside the ledger: the raw inputs and, for each table-day, the rows
    derived from them (the ledger computes ``table_day_win`` itself)."""

    deliveries: pa.Table
    dead_letters: pa.Table = field(default_factory=DEAD_LETTER_SCHEMA.empty_table)
    input_files: pa.Table = field(default_factory=INPUT_FILE_SCHEMA.empty_table)
    derived: dict[TableDay, dict[str, pa.Table]] = field(default_factory=dict)


def exception_rows(findings: Iterable[Finding], day: date) -> list[Row]:
    """Findings as rows of ``exceptions`` for gaming day ``day``."""
    return [exception_row(f, day) for f in findings]


def exception_row(f: Finding, day: date) -> Row:
    """A finding as a row of ``exceptions`` (the replay's, the pit's and the pattern stage's
    alike)."""
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


def _summary_rows(table_id: str, day: date, result: ReplayResult) -> list[Row]:
    s = result.summary
    if s is None:
        return []
    return [
        (
            table_id,
            day,
            s.rules_id,
            s.game,
            s.pit,
            s.location,
            s.dealer_id,
            s.shoes,
            s.rounds,
            result.event_count,
            s.duplicates,
            s.handle_cents,
            s.vig_expected_cents,
            s.vig_collected_cents,
            s.vig_uncollected_cents,
            s.comp_vig_cents,
            len(result.findings),
            datetime.now(UTC).replace(tzinfo=None),
        )
    ]


DERIVED_ROWS: dict[str, Callable[[str, date, ReplayResult], list[Row]]] = {
    "rounds": lambda t, day, result: [
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
            r.dealer_id,
        )
        for r in result.rounds
    ],
    "cards": lambda t, day, result: [
        (c.table_id, day, c.shoe_id, c.round_id, c.position, c.rank, c.suit, c.hand, c.event_id)
        for c in result.cards
    ],
    "wagers": lambda t, day, result: [
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
    "settlements": lambda t, day, result: [
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
    "vig_ledger": lambda t, day, result: [
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
    "comp_vig_forms": lambda t, day, result: [
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
    "form_series": lambda t, day, result: [
        (s.table_id, day, s.first_serial, s.last_serial, s.used, s.voided, s.event_id)
        for s in result.form_series
    ],
    "form_events": lambda t, day, result: [
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
    "table_practices": lambda t, day, result: [
        (
            p.table_id,
            day,
            p.pit,
            p.game,
            p.subject,
            p.practice,
            p.breaks,
            p.shoe_id,
            p.round_id,
            p.detail,
            list(p.event_ids),
        )
        for p in result.practices
    ],
    "exceptions": lambda t, day, result: exception_rows(result.findings, day),
    "table_day_summary": _summary_rows,
}
"""How each derived table's rows come from a table-day's replay, in the table's columns."""


def derived_tables(table_id: str, day: date, result: ReplayResult) -> dict[str, pa.Table]:
    """The derived rows of one table-day, one Arrow table per ledger table that has any."""
    tables = {}
    for name, rows_of in DERIVED_ROWS.items():
        rows = rows_of(table_id, day, result)
        if rows:
            tables[name] = arrow_rows(rows)
    return tables


def derived_batch(
    results: Mapping[TableDay, ReplayResult],
) -> dict[TableDay, dict[str, pa.Table]]:
    """:func:`derived_tables` for every table-day of a prepared batch."""
    return {(t, day): derived_tables(t, day, result) for (t, day), result in results.items()}
