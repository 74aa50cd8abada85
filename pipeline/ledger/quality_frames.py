"""The frames the quality suites validate (:mod:`pipeline.quality.suites`): DuckDB temporary
tables of the ledger connection, read from the ledger for one gaming date, with the few
derived columns an expectation needs (a join, a window, a flattened JSON field) computed by
DuckDB, so the expectations themselves stay declarative.

Raw-event frames are read from ``deliveries`` (what the devices sent, before any replay);
ledger frames from the derived tables (what the replay made of it). Nothing outside
:mod:`pipeline.ledger` writes their SQL: the quality stage asks for a day's frames
(:func:`raw_event_frames`, :func:`ledger_frames`), counts its expectations over them
(:mod:`pipeline.ledger.quality_measures`) and is handed DataFrames of the rows GX must see
(:meth:`Frames.rows_at`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any

import pandas as pd

from pipeline.config.catalog import gaming_day_of
from pipeline.events import EventCodec
from pipeline.ledger import exceptions as ledger_exceptions
from pipeline.ledger.columns import ARRIVAL_ORDER_SQL
from pipeline.ledger.connection import stored_table
from pipeline.ledger.quality_json import is_ledger_json, suspect_sql
from pipeline.rules.config import TableRules
from pipeline.rules.gaming_day import GamingDay

if TYPE_CHECKING:
    import duckdb

    from pipeline.ledger.store import Ledger

STAKE_PAYLOADS: tuple[str, ...] = ("WagerPlaced", "BankerWager", "PlayerBancoWager", "BankBid")
BANK_ACTIONS_NOT_STAKED: tuple[str, ...] = ("BANK_UNCOVERED_WITHDRAWN",)
"""A ``PlayerBancoWager`` with one of these actions records the part of the bank no player
covered, which the Banker withdraws (N.J.A.C. 19:47-4.7(d)): an amount, not a stake, so the
table's limits do not apply to it."""
"""Payloads whose ``amount_cents`` is a stake put on the layout: the table's posted minimum and
maximum apply to each of them. Withdrawals, payouts and vigorish are only non-negative."""

FORM_SERIAL_PAYLOADS: tuple[str, ...] = (
    "CompVigFormIssued",
    "CompVigFormVoided",
    "FormOriginalCounted",
    "FormDuplicateReceived",
)
"""Payloads that name a prenumbered Complimentary Vigorish Form by its ``serial``."""


@dataclass(frozen=True)
class EventContract:
    """What the Avro contract allows, read from the codec's schema: payload types, enum
    symbols per enum type, and which payload fields are enums or amounts in cents."""

    payload_types: tuple[str, ...]
    enums: Mapping[str, frozenset[str]]
    enum_fields: Mapping[str, Mapping[str, tuple[str, ...]]]
    """field name -> enum type name -> payload types carrying that field with that enum."""
    cents_fields: Mapping[str, tuple[str, ...]]
    """field name (``*_cents``) -> payload types carrying it."""
    payload_fields: Mapping[str, tuple[str, ...]]
    """payload type -> the names of its fields."""


def event_contract(codec: EventCodec) -> EventContract:
    """What the Avro contract of ``codec`` allows, read from its schema."""
    named: dict[str, Any] = {}
    enum_fields: dict[str, dict[str, list[str]]] = {}
    cents_fields: dict[str, list[str]] = {}
    payload_fields: dict[str, tuple[str, ...]] = {}

    def short(name: str) -> str:
        return name.rpartition(".")[2]

    def walk(schema: Any) -> Iterator[str]:
        """Enum type names reachable from ``schema`` (a field type), registering named types."""
        if isinstance(schema, list):
            for member in schema:
                yield from walk(member)
        elif isinstance(schema, dict):
            if "name" in schema:
                named[short(str(schema["name"]))] = schema
            if schema.get("type") == "enum":
                yield short(str(schema["name"]))
        elif isinstance(schema, str) and short(schema) in named:
            target = named[short(schema)]
            if target.get("type") == "enum":
                yield short(schema)

    payload = next(f for f in codec.schema["fields"] if f["name"] == "payload")
    for record in payload["type"]:
        name = short(str(record["name"]))
        named[name] = record
        payload_fields[name] = tuple(str(f["name"]) for f in record["fields"])
        for fld in record["fields"]:
            for enum_name in walk(fld["type"]):
                enum_fields.setdefault(fld["name"], {}).setdefault(enum_name, []).append(name)
            if str(fld["name"]).endswith("_cents"):
                cents_fields.setdefault(fld["name"], []).append(name)
    enums = {
        n: frozenset(str(s) for s in t["symbols"])
        for n, t in named.items()
        if isinstance(t, dict) and t.get("type") == "enum"
    }
    return EventContract(
        payload_types=codec.payload_types,
        enums=enums,
        enum_fields={f: {e: tuple(p) for e, p in by.items()} for f, by in enum_fields.items()},
        cents_fields={f: tuple(p) for f, p in cents_fields.items()},
        payload_fields=payload_fields,
    )


@dataclass(frozen=True)
class TableDay:
    """A table's session on the gaming date as its TableOpened declared it."""

    table_id: str
    rules_id: str | None
    declared_gaming_date: date
    gaming_day: GamingDay
    rules: TableRules | None

    @property
    def day_micros(self) -> tuple[int, int]:
        """The declared day as [start, end) epoch microseconds: 23, 24 or 25 hours long."""
        return self.gaming_day.bounds_micros(self.declared_gaming_date)


@dataclass
class Frames:
    """Named frames for one suite, each a DuckDB temporary table of the ledger connection
    (never a pandas frame of the whole day: a day's events would not fit in memory at scale).

    A frame's rows are stored unsorted: counting what an expectation finds needs no order, and
    sorting a day's payloads cost more than all the counting. Its ``ORDER BY`` (``order``) is
    the order a DataFrame of the frame would have: "the first rows that fail" are the first in
    it, found by a top-N over the failing rows only, and a row shown to GX is indexed by its
    place in it (the rows before it). A row is named by its ``rowid`` in the frame's table
    (:data:`ROW` where a query selects it). ``index_columns`` are the columns that identify a
    failing row in reports.

    Every frame's ``ORDER BY`` is total: it ends in a key unique among the frame's rows (the
    delivery's place in arrival order, an exception's id), or in the event a derived row came
    from and then every other column (a damaged ledger may repeat a row's event, or hold none:
    rows still tied are equal in every column), so the rows a failure names are fixed by the
    data alone, whatever order the rows are stored in (which changes with the number of
    threads). It lists plain columns, ascending with nulls last, as :meth:`rows_at` counts the
    rows before a row.
    """

    con: duckdb.DuckDBPyConnection
    suite: str
    tables: dict[str, str] = field(default_factory=dict)
    order: dict[str, str] = field(default_factory=dict)
    index_columns: dict[str, list[str]] = field(default_factory=dict)
    rows: dict[str, int] = field(default_factory=dict)
    stand_ins: dict[str, StandIns] = field(default_factory=dict)
    own_columns: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Each frame's own columns, read once when it is made: the gate asks for them about 80
    times a day, and each reading of DuckDB's catalog took 4-5 ms."""

    def add(
        self,
        name: str,
        select: str,
        order_by: str,
        index_columns: list[str],
        stand_ins: StandIns | None = None,
        batches: Sequence[Mapping[str, Any]] = ({},),
    ) -> None:
        """Materialise ``select`` (the ``frame`` query, which may read ``quality_deliveries``)
        as frame ``name``, whose order is ``order_by``: a list of its columns (or of the
        order-only columns it selects), which must be total (see the class docstring). With
        ``stand_ins``, ``select`` also gives each row's :data:`SOURCE_ROW`. With ``batches``,
        the frame holds the rows ``select`` gives for each of them (its named parameters), one
        statement each."""
        if not all(_PLAIN.fullmatch(c.strip()) for c in order_by.split(",")):
            raise ValueError(
                f"frame {name}: order {order_by!r} must list plain columns (ascending, nulls "
                "last), the order rows_at counts the rows before a row in"
            )
        table = f"quality_{self.suite}_{name}"
        first, *others = batches
        self.con.execute(f"CREATE OR REPLACE TEMP TABLE {table} AS {select}", first).fetchall()
        self.tables[name] = table  # dropped with the others, even if a batch fails below
        for batch in others:
            self.con.execute(f"INSERT INTO {table} {select}", batch).fetchall()
        self.order[name] = order_by
        self.own_columns[name] = tuple(
            str(c)
            for (c,) in self.con.execute(
                f"SELECT name FROM pragma_table_info('{table}') ORDER BY cid"
            ).fetchall()
            if not str(c).startswith(HIDDEN)
        )
        if stand_ins is not None:
            self.stand_ins[name] = stand_ins
        self.index_columns[name] = [c for c in index_columns if c in self.columns(name)]
        ((counted,),) = self.con.execute(f"SELECT count(*) FROM {table}").fetchall()
        self.rows[name] = int(counted)

    def columns(self, name: str) -> list[str]:
        """The frame's own columns, in order (without the order-only ones)."""
        return list(self.own_columns[name])

    def rows_at(self, name: str, rows: Iterable[int]) -> pd.DataFrame:
        """The frame's ``rows`` (``rowid`` values), in frame order, indexed by their place in
        it: the DataFrame the whole frame would give, cut to those rows."""
        table = self.tables[name]
        order = [c.strip() for c in self.order[name].split(",")]
        wanted = sorted(set(rows))
        keyed = self.con.execute(
            f"SELECT rowid, {', '.join(order)} FROM {table} "
            "WHERE rowid IN (SELECT unnest(?::BIGINT[]))",
            [wanted],
        ).fetchall()
        place = {}
        if keyed:  # a row's place is the number of rows before it: one scan for all of them
            counts, parameters = [], []
            for _, *values in keyed:
                before, given = _before(order, values)
                counts.append(f"count(*) FILTER (WHERE {before})")
                parameters += given
            (found,) = self.con.execute(
                f"SELECT {', '.join(counts)} FROM {table}", parameters
            ).fetchall()
            place = {int(r): int(n) for (r, *_), n in zip(keyed, found, strict=True)}
        columns = ", ".join(quoted(c) for c in self.columns(name))
        stand_ins = self.stand_ins.get(name)
        source = f", {SOURCE_ROW}" if stand_ins else ""
        frame = self.con.execute(
            f"SELECT {columns}, rowid AS {ROW}{source} FROM {table} "
            "WHERE rowid IN (SELECT unnest(?::BIGINT[]))",
            [wanted],
        ).df()
        if stand_ins:  # the rows GX sees carry their real values, read by row id
            lent = list(stand_ins.columns)
            real = self.con.execute(
                f"SELECT rowid AS {SOURCE_ROW}, {', '.join(map(quoted, lent))} "
                f"FROM {stand_ins.table} WHERE rowid IN (SELECT unnest(?::BIGINT[]))",
                [sorted({int(r) for r in frame[SOURCE_ROW]})],
            ).df()
            frame[lent] = real.set_index(SOURCE_ROW).loc[frame.pop(SOURCE_ROW), lent].to_numpy()
        frame.index = pd.Index([place[int(r)] for r in frame.pop(ROW)])
        return frame.sort_index()

    def drop(self) -> None:
        for table in self.tables.values():
            self.con.execute(f"DROP TABLE IF EXISTS {table}")


def _before(order: list[str], values: list[Any]) -> tuple[str, list[Any]]:
    """SQL of "the row comes before the row whose ``order`` columns hold ``values``" in the
    order ``ORDER BY order`` gives (ascending, nulls last), and its parameters."""
    either, parameters = [], []
    same: list[str] = []
    same_values: list[Any] = []
    for column, value in zip(order, values, strict=True):
        if value is None:  # only values come before a null
            either.append(" AND ".join([*same, f"{column} IS NOT NULL"]))
            parameters += same_values
            same.append(f"{column} IS NULL")
        else:
            either.append(" AND ".join([*same, f"{column} < ?"]))
            parameters += [*same_values, value]
            same.append(f"{column} = ?")
            same_values.append(value)
    return " OR ".join(f"({e})" for e in either), parameters


@dataclass(frozen=True)
class StandIns:
    """Columns a frame holds only on the rows that a check of them must decide; the other
    rows hold a stand-in that passes the check (as their own values would). The rows shown
    to GX carry their own values, read from ``table`` by their :data:`SOURCE_ROW`.

    The deliveries frame holds its payloads this way: they are most of a day's bytes, and a
    frame holding all of them spilled to disk from 24 tables on, slowing every scan of it
    (the payload frames read the fields they need, parsed once, instead)."""

    table: str
    columns: tuple[str, ...]


HIDDEN = "quality_"
"""Frame columns whose names start with this are not shown to GX: :data:`ORDER_ONLY`,
:data:`SOURCE_ROW`, :data:`PAYLOAD_FIELDS`."""
SOURCE_ROW = "quality_source_row"
"""The ``rowid`` of the ledger row a frame's row was read from."""
PAYLOAD_FIELDS = "quality_payload_fields"
"""A deliveries frame row's payload fields that the payload frames read (:func:`payload_paths`),
as text, parsed once for all of them (the payload frames read those of first deliveries only);
null for a payload that is not JSON. Dropped from the frame once the payload frames are
built."""
ROW = "quality_row"
"""The column naming a frame's row by its ``rowid`` in the frame's table (not its place in
the frame's order: the rows are stored unsorted)."""
ORDER_ONLY = "quality_order"
"""A column a frame's query may select to order its rows by, left out of the frame (so are
columns whose name starts with it: ``quality_order_event``, ..)."""
ORDER_EVENT = f"{ORDER_ONLY}_event"
"""The order-only column holding the event a derived ledger row came from (its tie-breaker)."""
PAYLOAD_COLUMN = "fields_json"
"""The deliveries frame's column of a delivery's payload as the ledger stores it (JSON text,
:mod:`pipeline.ledger.quality_json`): the column the raw-event suite's JSON expectation
checks."""


def table_days(
    ledger: Ledger,
    gaming_date: date,
    catalog: Mapping[str, TableRules],
) -> list[TableDay]:
    """Every table with deliveries on the date, and the rules its first TableOpened (in
    arrival order) named (a TableOpened whose payload is not JSON names none: the raw-event
    suite reports it)."""
    con = ledger.con
    deliveries = stored_table(con, "deliveries")  # a draft day's rows, named by rowid
    opened = f"SELECT rowid, fields_json FROM {deliveries} WHERE gaming_date = ? "
    opened += "AND payload_type = 'TableOpened'"
    unreadable = _unreadable(con, opened, [gaming_date])
    arrival = ", ".join(f"o.{c}" for c in ARRIVAL_ORDER_SQL.split(", "))
    rows = con.execute(
        f"""
        SELECT table_id, opened->>'$.rules_id', opened->>'$.gaming_date'
        FROM (SELECT d.table_id,
                     arg_min(o.fields_json, ({arrival})) AS opened
              FROM (SELECT DISTINCT table_id FROM {deliveries} WHERE gaming_date = ?) d
              LEFT JOIN (SELECT * FROM {deliveries}
                         WHERE rowid NOT IN (SELECT unnest(?::BIGINT[]))) o
                ON o.table_id = d.table_id AND o.gaming_date = ?
               AND o.payload_type = 'TableOpened'
              GROUP BY d.table_id)
        ORDER BY table_id""",
        [gaming_date, unreadable, gaming_date],
    ).fetchall()
    out = []
    for table_id, rules_id, declared in rows:
        rules = catalog.get(rules_id) if rules_id else None
        out.append(
            TableDay(
                str(table_id),
                str(rules_id) if rules_id is not None else None,
                date.fromisoformat(declared) if declared else gaming_date,
                gaming_day_of(catalog),
                rules,
            )
        )
    return out


def _unreadable(
    con: duckdb.DuckDBPyConnection, rows: str, parameters: list[Any] | None = None
) -> list[int]:
    """The ids of the rows whose payload is not JSON the gate can read
    (:mod:`pipeline.ledger.quality_json`), of ``rows``: a query of (id, fields_json)."""
    candidates = con.execute(
        f"SELECT * FROM ({rows}) r(id, fields_json) WHERE {suspect_sql('fields_json')}",
        parameters or [],
    ).fetchall()
    return [int(i) for i, text in candidates if not is_ledger_json(text)]


def raw_event_frames(
    ledger: Ledger,
    gaming_date: date,
    contract: EventContract,
    tables: list[TableDay],
) -> Frames:
    """Frames of the raw events of one gaming date.

    - ``deliveries``: every delivery, with ``outside_s`` (seconds before the start, negative,
      or after the end, positive, of the gaming day the table's TableOpened declared; 0
      within it, however long the day: 23 or 25 hours across a daylight-saving change) and
      ``copy_number (1 for the first delivery of an
      event_id, 2.. for a device's duplicate deliveries);
    - ``events``: first deliveries only, with ``seq_step`` (seq minus the seq delivered
      before it by the same device, in delivery order: strictly increasing means >= 1);
    - ``symbols``: every enum-typed payload field, one row per value;
    - ``amounts``: every ``*_cents`` payload field, one row per value, with ``limit_scope``
      (for a stake, the rules its table's TableOpened named, whose limits apply to it);
    - ``form_serials``: every Form serial, with ``in_received_series``;
    - ``table_days``: one row per table with the rules_id its TableOpened named.
    """
    info = pd.DataFrame.from_records(
        [(t.table_id, t.rules_id, *t.day_micros) for t in tables],
        columns=["table_id", "rules_id", "day_start_micros", "day_end_micros"],
    )
    frames = Frames(ledger.con, "raw_events")
    ledger.con.register("quality_tables", info)
    try:
        _add_raw_event_frames(frames, gaming_date, contract)
    finally:
        ledger.con.unregister("quality_tables")
    return frames


def _add_raw_event_frames(frames: Frames, gaming_date: date, contract: EventContract) -> None:
    """The frames :func:`raw_event_frames` describes, with ``quality_tables`` registered."""
    paths = payload_paths(contract)
    # the Avro decoder writes a payload's fields once each, in its schema's order: a payload
    # whose keys are those is known to repeat none (a cheaper test than counting them)
    schema_keys = (
        "CASE d.payload_type "
        + " ".join(
            f"WHEN {_sql_text(t)} THEN json_keys(d.fields_json) = "
            f"[{', '.join(map(_sql_text, names))}]::VARCHAR[]"
            for t, names in sorted(contract.payload_fields.items())
        )
        + " ELSE false END"
    )
    stored = stored_table(frames.con, "deliveries")  # a draft day's rows, named by rowid
    with _source_batches(frames.con, gaming_date) as batches:
        frames.add(
            "deliveries",
            f"""
                WITH {_arrivals_sql(stored)}
                SELECT d.source, d.position, d.event_id, d.table_id, d.device_id, d.seq,
                       d.occurrence, d.occurred_at, d.payload_type,
                       -- the payload where its check must decide; else a stand-in that passes
                       CASE WHEN {suspect_sql("d.fields_json", "d.parses", schema_keys)}
                            THEN d.fields_json
                            ELSE '{{}}' END AS fields_json,
                       (CASE WHEN d.occurred_at < t.day_start_micros
                             THEN d.occurred_at - t.day_start_micros
                             WHEN d.occurred_at >= t.day_end_micros
                             THEN d.occurred_at - t.day_end_micros + 1
                             ELSE 0 END) / 1e6 AS outside_s,
                       a.copy_number, a.arrival AS {ORDER_ONLY}, d.delivery AS {SOURCE_ROW},
                       CASE WHEN d.parses
                            THEN {paths.sql("d.payload_type", "d.fields_json")}
                            END AS {PAYLOAD_FIELDS}
                FROM (SELECT *, rowid AS delivery, json_valid(fields_json) AS parses
                      FROM {stored} WHERE gaming_date = $day
                       AND source BETWEEN $first AND $last) d
                JOIN arrivals a USING (delivery)
                JOIN quality_tables t USING (table_id)  -- every table of the date""",
            # the delivery's place in arrival order, numbered on its key columns alone (sorting
            # the payloads with them cost more than all the counting): the frames of its
            # payloads below are ordered by it too
            ORDER_ONLY,
            ["table_id", "source", "position", "seq", "occurrence"],
            stand_ins=StandIns(stored, (PAYLOAD_COLUMN,)),
            batches=[{"day": gaming_date, **source_range(sources)} for sources in batches],
        )
    deliveries = frames.tables["deliveries"]
    number_copies(frames.con, deliveries)
    # the frames below read fields out of the payloads: one that is not JSON has none for
    # them (DuckDB would stop the validation), and the deliveries frame's JSON expectation
    # reports it with its row
    unreadable = _unreadable(frames.con, f"SELECT rowid, fields_json FROM {deliveries}")
    if not unreadable:
        _add_payload_frames(frames, deliveries, contract, paths)
    else:
        skipped = f"{deliveries}_unreadable"  # the ids as a parameter, never pasted in the SQL
        frames.con.execute(
            f"CREATE OR REPLACE TEMP TABLE {skipped} AS SELECT unnest(?::BIGINT[]) AS id",
            [unreadable],
        )
        try:
            _add_payload_frames(
                frames,
                f"(SELECT * FROM {deliveries} WHERE rowid NOT IN (SELECT id FROM {skipped}))",
                contract,
                paths,
            )
        finally:
            frames.con.execute(f"DROP TABLE {skipped}")
    # the payload frames hold what they read: the deliveries frame's parsed fields were for
    # them (at 192 tables, 0.5 GB more for every later scan of the frame to spill and read)
    frames.con.execute(f"ALTER TABLE {deliveries} DROP COLUMN {PAYLOAD_FIELDS}")
    frames.add(
        "table_days", "SELECT table_id, rules_id FROM quality_tables", "table_id", ["table_id"]
    )


@dataclass(frozen=True)
class PayloadPaths:
    """The payload fields the payload frames read, per payload type: a row of the
    deliveries frame holds its own type's (:data:`PAYLOAD_FIELDS`), in this order."""

    fields: Mapping[str, tuple[str, ...]]
    """payload type -> the fields of it that are read."""

    def sql(self, payload_type: str, fields_json: str) -> str:
        """SQL of :data:`PAYLOAD_FIELDS` of a delivery: its type's fields, parsed once."""
        return (
            "CASE "
            + " ".join(
                f"WHEN {payload_type} = {_sql_text(t)} THEN json_extract_string({fields_json}, "
                f"[{', '.join(_sql_text(f'$.{name}') for name in names)}])"
                for t, names in sorted(self.fields.items())
            )
            + " END"
        )

    def place(self, payload_type: str, name: str) -> int:
        """Where field ``name`` of ``payload_type`` is in :data:`PAYLOAD_FIELDS` (from 1)."""
        return self.fields[payload_type].index(name) + 1

    def field(self, name: str) -> str:
        """SQL of field ``name`` of a deliveries frame row (text; null when its type has no
        such field or the payload lacks it)."""
        cases = [
            f"WHEN payload_type = {_sql_text(t)} THEN {PAYLOAD_FIELDS}[{self.place(t, name)}]"
            for t, names in sorted(self.fields.items())
            if name in names
        ]
        return f"CASE {' '.join(cases)} END" if cases else "NULL::VARCHAR"


def payload_paths(contract: EventContract) -> PayloadPaths:
    """What the payload frames read: every enum and ``*_cents`` field of the contract, a
    wager's ``action`` and the Form serials (:data:`FORM_SERIAL_PAYLOADS`), each from the
    payload types whose schema has it."""
    wanted = {*contract.enum_fields, *contract.cents_fields, "action"}
    wanted |= {"serial", "first_serial", "last_serial"}
    fields = {
        t: tuple(sorted(wanted.intersection(names))) for t, names in contract.payload_fields.items()
    }
    return PayloadPaths({t: names for t, names in fields.items() if names})


def hash_held_twice(key: str, table: str, where: str) -> str:
    """SQL true for a row of ``table`` whose ``key`` (SQL of its key columns) hashes as the
    key of another row meeting ``where`` does: every row whose key another row holds, and
    the rare row whose key only shares a hash (a candidate the caller's exact grouping or
    window then gives one copy). Grouping 64-bit hashes instead of the keys themselves took
    0.35 s against 0.67 s for the event ids of a 96-table day."""
    return (
        f"hash({key}) IN (SELECT hash({key}) FROM {table} WHERE {where} "
        "GROUP BY ALL HAVING count(*) > 1)"
    )


FRAME_BATCH = 1_000_000
"""Deliveries the deliveries frame is built from at a time, in whole sources (a table's day
is one file or partition). Built in one statement, a 192-table day's frame (8.0M deliveries)
spilled 6 GB through DuckDB's temporary files within :data:`~pipeline.quality.run.
FRAMES_MEMORY` (:meth:`~pipeline.ledger.store.Ledger.memory_held_to`) and took 19 s, three
times a 96-table day's."""

_SOURCES = "quality_sources"
_HELD_TWICE = "quality_held_twice"


@contextmanager
def _source_batches(
    con: duckdb.DuckDBPyConnection, gaming_date: date, most: int | None = None
) -> Iterator[list[list[str]]]:
    """The day's sources in batches of at most ``most`` deliveries (default
    :data:`FRAME_BATCH`; a source larger than that alone), each a run of consecutive sources
    in DuckDB's order (so a batch is :func:`source_range`), with what :func:`_arrivals_sql`
    reads of the whole day: each source's deliveries before it in arrival order
    (``quality_sources``), and the event ids delivered more than once
    (``quality_held_twice``: a device's duplicates, a few hundred a day, found by grouping
    the ids' hashes first)."""
    deliveries = stored_table(con, "deliveries")
    try:
        con.execute(
            f"""CREATE OR REPLACE TEMP TABLE {_SOURCES} AS
                SELECT source, n, coalesce(sum(n) OVER (
                           ORDER BY source ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)
                           AS before
                FROM (SELECT source, count(*) AS n FROM {deliveries} WHERE gaming_date = $day
                      GROUP BY source)""",
            {"day": gaming_date},
        ).fetchall()
        con.execute(
            f"""CREATE OR REPLACE TEMP TABLE {_HELD_TWICE} AS
                SELECT event_id FROM {deliveries}
                WHERE gaming_date = $day
                  AND {hash_held_twice("event_id", deliveries, "gaming_date = $day")}
                GROUP BY event_id HAVING count(*) > 1""",
            {"day": gaming_date},
        ).fetchall()
        most = most or FRAME_BATCH
        batches: list[list[str]] = []
        size = most
        for source, n in con.execute(
            f"SELECT source, n FROM {_SOURCES} ORDER BY source"
        ).fetchall():
            if size + n > most:
                batches.append([])
                size = 0
            batches[-1].append(str(source))
            size += n
        yield batches or [[]]
    finally:
        con.execute(f"DROP TABLE IF EXISTS {_SOURCES}")
        con.execute(f"DROP TABLE IF EXISTS {_HELD_TWICE}")


def source_range(sources: list[str]) -> dict[str, str | None]:
    """The parameters ``$first`` and ``$last`` that select a batch of
    :func:`_source_batches` (none for a day without sources). A range, not a list: DuckDB
    filters a range while it scans, where a list was joined after reading every delivery of
    the day for each batch (at 96 tables, 4 batches each read 4.0M rows)."""
    return {"first": sources[0] if sources else None, "last": sources[-1] if sources else None}


_SOURCE, _, _WITHIN_SOURCE = ARRIVAL_ORDER_SQL.partition(", ")
if _SOURCE != "source":  # the arrival numbering below counts each source's deliveries apart
    raise ValueError(f"arrival order must begin with the source: {ARRIVAL_ORDER_SQL}")


def _arrivals_sql(deliveries: str) -> str:
    """SQL of ``arrivals`` (a CTE), inside :func:`_source_batches`: each delivery of the day
    in ``deliveries`` (``delivery``, its ``rowid``) from the sources ``$first`` to ``$last``,
    with ``arrival``, its place in arrival order (``row_number() OVER (ORDER BY``
    :data:`ARRIVAL_ORDER_SQL` ``)``), and ``copy_number`` 1 when its event id is delivered
    once (null otherwise: :func:`number_copies`)."""
    return f"""
    batch AS (SELECT rowid AS delivery, source, event_id, {_WITHIN_SOURCE} FROM {deliveries}
              WHERE gaming_date = $day AND source BETWEEN $first AND $last),
    arrivals AS (
        SELECT b.delivery,
               s.before + row_number() OVER (PARTITION BY b.source ORDER BY {_WITHIN_SOURCE})
                   AS arrival,
               CASE WHEN b.event_id IN (SELECT event_id FROM {_HELD_TWICE}) THEN NULL
                    ELSE 1::BIGINT END AS copy_number
        FROM batch b JOIN {_SOURCES} s USING (source))"""


# The order begins with the source, so a delivery's place is the deliveries of the sources
# before its own plus its place within its source: each source is sorted on its own, never
# the whole day (at 96 tables, 4.0M deliveries, 3.0 s where the whole-day windows took 6.4 s,
# with identical numbers).


def number_copies(con: duckdb.DuckDBPyConnection, table: str) -> None:
    """Number the deliveries of ``table`` whose ``copy_number`` is null (their event id is
    delivered more than once) by their place in arrival order (:data:`ORDER_ONLY`) among the
    deliveries of their event id: 1 for the first."""
    con.execute(
        f"""UPDATE {table} f SET copy_number = c.n
            FROM (SELECT rowid AS copy, row_number() OVER (
                      PARTITION BY event_id ORDER BY {ORDER_ONLY}) AS n
                  FROM {table} WHERE copy_number IS NULL) c
            WHERE f.rowid = c.copy"""
    ).fetchall()


def _add_payload_frames(
    frames: Frames, payloads: str, contract: EventContract, paths: PayloadPaths
) -> None:
    """The frames of :func:`raw_event_frames` read from ``payloads`` (SQL of the readable
    rows of the deliveries frame), from their fields parsed once (``paths``)."""
    deliveries = frames.tables["deliveries"]
    frames.add(
        "events",
        f"""
        SELECT table_id, device_id, seq, payload_type,
               seq - lag(seq) OVER (PARTITION BY device_id ORDER BY {ORDER_ONLY}) AS seq_step,
               {ORDER_ONLY}
        FROM {deliveries} WHERE copy_number = 1""",
        ORDER_ONLY,
        ["table_id", "device_id", "seq", "payload_type"],
    )
    frames.add(
        "symbols",
        _long_fields(
            payloads,
            [
                (name, enum_name, types)
                for name, by_enum in sorted(contract.enum_fields.items())
                for enum_name, types in sorted(by_enum.items())
            ],
            paths,
            value_column="value",
            cast="VARCHAR",
        ),
        # a field may be of several enum types: one row per delivery, field and type
        f"table_id, seq, field, {ORDER_ONLY}, kind",
        ["table_id", "seq", "payload_type", "field"],
    )
    frames.add(
        "amounts",
        f"""
        SELECT a.* EXCLUDE (bank_action),
               CASE WHEN payload_type IN {_sql_list(STAKE_PAYLOADS)} AND field = 'amount_cents'
                     AND coalesce(bank_action, '') NOT IN {_sql_list(BANK_ACTIONS_NOT_STAKED)}
                    THEN t.rules_id END AS limit_scope
        FROM ({
            _long_fields(
                payloads,
                [(n, "cents", types) for n, types in sorted(contract.cents_fields.items())],
                paths,
                value_column="amount_cents",
                cast="BIGINT",
                extra_columns={"bank_action": paths.field("action")},
            )
        }) a
        LEFT JOIN quality_tables t USING (table_id)""",
        f"table_id, seq, field, {ORDER_ONLY}",
        ["table_id", "seq", "payload_type", "field"],
    )
    frames.add(
        "form_serials",
        f"""
        WITH series AS (
            SELECT table_id, {_bigint(paths.field("first_serial"))} AS first_serial,
                   {_bigint(paths.field("last_serial"))} AS last_serial
            FROM {payloads}
            WHERE copy_number = 1 AND payload_type = 'FormSeriesReceived'),
        serials AS (
            SELECT table_id, seq, payload_type,
                   {_bigint(paths.field("serial"))} AS serial, {ORDER_ONLY}
            FROM {payloads}
            WHERE copy_number = 1 AND payload_type IN {_sql_list(FORM_SERIAL_PAYLOADS)})
        SELECT s.table_id, s.seq, s.payload_type, s.serial, s.{ORDER_ONLY},
               EXISTS (SELECT 1 FROM series r WHERE r.table_id = s.table_id
                       AND s.serial BETWEEN r.first_serial AND r.last_serial)
                   AS in_received_series
        FROM serials s""",
        f"table_id, seq, {ORDER_ONLY}",
        ["table_id", "serial", "payload_type", "seq"],
    )


def _long_fields(
    deliveries: str,
    specs: list[tuple[str, str, tuple[str, ...]]],
    paths: PayloadPaths,
    *,
    value_column: str,
    cast: str,
    extra_columns: Mapping[str, str] | None = None,
) -> str:
    """One row per (event, field) for the named payload fields that are present, with
    ``extra_columns`` (name: SQL over the delivery row) beside them, and the delivery's place
    in arrival order as :data:`ORDER_ONLY` (the tie-breaker of equal table and seq:
    several devices of a table count their own seqs)."""
    extra = extra_columns or {}
    if not specs:
        return (
            f"SELECT NULL::VARCHAR AS table_id, NULL::BIGINT AS seq, NULL::VARCHAR AS "
            f"payload_type, NULL::VARCHAR AS field, NULL::VARCHAR AS kind, NULL::{cast} AS "
            f"{value_column}{''.join(f', NULL AS {c}' for c in extra)}, "
            f"NULL::BIGINT AS {ORDER_ONLY} WHERE false"
        )
    # a (payload type, field) pair picks its field's value out of the fields the deliveries
    # frame parsed once for every payload frame
    pairs = ", ".join(
        f"({_sql_text(payload)}, {_sql_text(name)}, {_sql_text(kind)}, "
        f"{paths.place(payload, name)})"
        for name, kind, payloads in specs
        for payload in payloads
    )
    payloads = tuple(sorted({payload for _, _, payloads in specs for payload in payloads}))
    raw = "d.fields[p.place]"
    convert = _bigint(raw) if cast == "BIGINT" else f"TRY_CAST({raw} AS {cast})"
    also = "".join(f", {sql} AS {c}" for c, sql in extra.items())
    return f"""
        SELECT * EXCLUDE (raw) FROM (
            SELECT d.table_id, d.seq, d.payload_type, p.field, p.kind,
                   {convert} AS {value_column}{"".join(f", d.{c}" for c in extra)},
                   d.{ORDER_ONLY}, d.fields[p.place] AS raw
            FROM (SELECT table_id, seq, payload_type, {ORDER_ONLY},
                         {PAYLOAD_FIELDS} AS fields{also}
                  FROM {deliveries}
                  WHERE copy_number = 1 AND payload_type IN {_sql_list(payloads)}) d
            JOIN (VALUES {pairs}) p(payload_type, field, kind, place) USING (payload_type))
        WHERE raw IS NOT NULL"""


def _bigint(text: str) -> str:
    """SQL of ``text`` (a JSON value as text) as BIGINT, null unless it is an int64 written
    as one: a cast would stop the validation on ``"abc"`` or ``1e400`` and round ``1.5``.
    The payloads read here are ledger JSON, whose integer fields are integers: this is a
    second guard, so that no payload the JSON check let through can stop the gate."""
    return f"CASE WHEN regexp_full_match({text}, '-?[0-9]+') THEN TRY_CAST({text} AS BIGINT) END"


def _sql_list(values: tuple[str, ...]) -> str:
    return "(" + ", ".join(_sql_text(v) for v in values) + ")"


def _sql_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def ledger_frames(ledger: Ledger, gaming_date: date) -> Frames:
    """Frames of the derived ledger rows of one gaming date, with ``round_known`` (the row's
    round exists in ``rounds`` for the same table-day; null when the row has no round) and
    ``has_summary`` (the exception's table-day has a ``table_day_summary`` row)."""
    day = f"'{gaming_date.isoformat()}'"

    def known(alias: str) -> str:
        return (
            f"CASE WHEN {alias}.round_id IS NULL THEN NULL ELSE EXISTS (SELECT 1 FROM rounds r "
            f"WHERE r.table_id = {alias}.table_id AND r.gaming_date = {alias}.gaming_date "
            f"AND r.round_id = {alias}.round_id) END AS round_known"
        )

    # the ties of a table's rows in their natural order are broken by what the replay keeps
    # one row of: a round; a card, Form or Form copy per event; a wager and a settlement per
    # round, seat and wager; an exception by its id. A damaged ledger may hold two rows of
    # one of them, or rows without their event: the frame's other columns follow, so only
    # rows equal in every column tie, and either of them quoted first reads the same
    frames = Frames(ledger.con, "ledger")
    frames.add(
        "rounds",
        "SELECT table_id, round_id, status, winner, player_points, banker_points, "
        f"total_cards FROM rounds WHERE gaming_date = {day}",
        "table_id, round_id",
        ["table_id", "round_id"],
    )
    frames.add(
        "cards",
        f"SELECT c.table_id, c.round_id, c.position, c.rank, c.suit, c.hand, {known('c')}, "
        f"c.shoe_id AS {ORDER_ONLY}, c.source_event_id AS {ORDER_EVENT} "
        f"FROM cards c WHERE c.gaming_date = {day}",
        f"table_id, {ORDER_ONLY}, position, {ORDER_EVENT}, round_id, rank, suit, hand, round_known",
        ["table_id", "round_id", "position"],
    )
    frames.add(
        "wagers",
        f"SELECT w.table_id, w.round_id, w.seat, w.wager, w.amount_cents, {known('w')} "
        f"FROM wagers w WHERE w.gaming_date = {day}",
        "table_id, round_id, seat, wager, amount_cents, round_known",
        ["table_id", "round_id", "seat", "wager"],
    )
    frames.add(
        "settlements",
        f"SELECT s.table_id, s.round_id, s.seat, s.wager, s.stake_cents, "
        f"s.expected_result, s.expected_paid_cents, s.expected_vig_cents, "
        f"s.recorded_result, s.recorded_paid_cents, {known('s')} "
        f"FROM settlements s WHERE s.gaming_date = {day}",
        "table_id, round_id, seat, wager, stake_cents, expected_result, expected_paid_cents, "
        "expected_vig_cents, recorded_result, recorded_paid_cents, round_known",
        ["table_id", "round_id", "seat", "wager"],
    )
    frames.add(
        "vig_ledger",
        "SELECT table_id, round_id, seat, kind, amount_cents, balance_after_cents, "
        f"occurred_at AS {ORDER_ONLY}, source_event_id AS {ORDER_EVENT} "
        f"FROM vig_ledger WHERE gaming_date = {day}",
        # an event writing off the shoe's deferred vigorish gives a row per seat
        f"table_id, {ORDER_ONLY}, {ORDER_EVENT}, seat, kind, round_id, amount_cents, "
        "balance_after_cents",
        ["table_id", "round_id", "seat", "kind"],
    )
    frames.add(
        "comp_vig_forms",
        f"SELECT table_id, serial, status, amount_cents, source_event_id AS {ORDER_EVENT} "
        f"FROM comp_vig_forms WHERE gaming_date = {day}",
        f"table_id, serial, {ORDER_EVENT}, status, amount_cents",
        ["table_id", "serial", "status"],
    )
    frames.add(
        "form_events",
        f"SELECT table_id, serial, kind, amount_cents, matched, source_event_id AS {ORDER_EVENT} "
        f"FROM form_events WHERE gaming_date = {day}",
        f"table_id, serial, kind, {ORDER_EVENT}, amount_cents, matched",
        ["table_id", "serial", "kind"],
    )
    frames.add(
        "exceptions",
        ledger_exceptions.quality_frame(day, ORDER_ONLY),
        f"table_id, code, {ORDER_ONLY}",
        ["table_id", "code", "round_id"],
    )
    frames.add(
        "table_day_summary",
        "SELECT table_id, rules_id, rounds, handle_cents, vig_expected_cents, "
        "vig_collected_cents, vig_uncollected_cents, comp_vig_cents "
        f"FROM table_day_summary WHERE gaming_date = {day}",
        "table_id",
        ["table_id"],
    )
    return frames


_PLAIN = re.compile(r"[a-z_][a-z0-9_]*")


def quoted(column: str) -> str:
    """``column`` as a SQL identifier; frame columns are plain lowercase names."""
    if not _PLAIN.fullmatch(column):
        raise ValueError(f"frame column {column!r} is not a plain lowercase SQL name")
    return f'"{column}"'
