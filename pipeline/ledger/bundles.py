"""What an evidence bundle exports from the ledger: the derived rows and the stored
deliveries in the scope of one round, one Complimentary Vigorish Form, one exception or one
table, and the ledger's acknowledgements of their exceptions.

A scope (:class:`BundleScope`) is the predicates that select its rows, per table and for the
deliveries, written here; :mod:`pipeline.bundle.export` names the selection, writes the files
and checks them. A delivery comes back with its payload parsed (:class:`StoredDelivery`), so
the bundle re-encodes it as an event and writes it as JSON without reading the ledger's
payload column itself.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, NamedTuple

from pipeline.events.model import TableEvent
from pipeline.ledger import exceptions as ledger_exceptions
from pipeline.ledger.store import DATE_FIELDS, Ledger
from pipeline.ledger.tables import REPLAYED_TABLES, TABLES

DELIVERY_COLUMNS = (
    "source",
    "position",
    "event_id",
    "table_id",
    "device_id",
    "seq",
    "occurred_at",
    "gaming_date",
    "payload_type",
    "fields_json",
)
"""The columns of a delivery as the ledger stores it, in the order a bundle's
``deliveries.csv`` lists them; the last is the payload, as JSON."""
PAYLOAD_COLUMN = DELIVERY_COLUMNS[-1]
"""The column holding a delivery's payload as JSON (in the ledger and in ``deliveries.csv``)."""

_ROUND_TABLES = frozenset({"rounds", "cards", "wagers", "settlements", "vig_ledger"})
_FORM_TABLES = frozenset({"comp_vig_forms", "form_events"})
_CONTEXT = "table_id = ? AND gaming_date = ? AND payload_type = 'TableOpened'"
"""A table-day's opening event: the context every round or Form of it is read in."""


@dataclass
class BundleScope:
    """SQL predicates (OR-ed clauses) per derived table and for the deliveries."""

    clauses: dict[str, list[tuple[str, list[Any]]]] = field(default_factory=dict)
    events: list[tuple[str, list[Any]]] = field(default_factory=list)

    def add(self, table: str, sql: str, params: list[Any]) -> None:
        self.clauses.setdefault(table, []).append((sql, params))

    def where(self, table: str) -> tuple[str, list[Any]]:
        parts = self.clauses.get(table, [])
        if not parts:
            return "FALSE", []
        return " OR ".join(f"({sql})" for sql, _ in parts), [p for _, ps in parts for p in ps]


class StoredDelivery(NamedTuple):
    """A delivery as the ledger stores it (:data:`DELIVERY_COLUMNS`), its payload parsed."""

    source: str
    position: int
    event_id: str
    table_id: str
    device_id: str
    seq: int
    occurred_at: int
    gaming_date: date
    payload_type: str
    payload: dict[str, Any]
    """The payload's JSON value as stored (a date as its ISO text)."""

    def event(self) -> TableEvent:
        """The delivered event, its date fields as dates."""
        fields = dict(self.payload)
        for name in DATE_FIELDS & fields.keys():
            if fields[name] is not None:
                fields[name] = date.fromisoformat(fields[name])
        return TableEvent(
            str(self.event_id),
            str(self.table_id),
            str(self.device_id),
            int(self.seq),
            int(self.occurred_at),
            self.payload_type,
            fields,
        )


def _table_days(ledger: Ledger, sql: str, params: list[Any]) -> list[tuple[str, date]]:
    return [(str(t), d) for t, d in ledger.con.execute(sql, params).fetchall()]


def _narrowed(table_id: str | None, gaming_date: date | None) -> tuple[str, list[Any]]:
    """The predicate narrowing a selection to one table and one gaming day, when given."""
    sql = (" AND table_id = ?" if table_id else "") + (
        " AND gaming_date = ?" if gaming_date else ""
    )
    return sql, [v for v in (table_id, gaming_date) if v]


# ---------------------------------------------------------------------- scopes
def round_scope(
    ledger: Ledger, round_id: str, table_id: str | None, gaming_date: date | None
) -> BundleScope | None:
    """A round's evidence (of ``table_id`` and ``gaming_date`` when given): its rows, its
    exceptions, its table-day's summary, its events, its table's opening and its shoe's
    start. None: the ledger holds no such round."""
    narrow, params = _narrowed(table_id, gaming_date)
    found = _table_days(
        ledger,
        "SELECT DISTINCT table_id, gaming_date FROM rounds WHERE round_id = ?" + narrow,
        [round_id, *params],
    )
    if not found:
        return None
    scope = BundleScope()
    for t, d in found:
        for table in _ROUND_TABLES | {"exceptions"}:
            scope.add(table, "table_id = ? AND gaming_date = ? AND round_id = ?", [t, d, round_id])
        scope.add("table_day_summary", "table_id = ? AND gaming_date = ?", [t, d])
        scope.events.append(
            (
                "table_id = ? AND gaming_date = ? AND "
                "json_extract_string(fields_json, '$.round_id') = ?",
                [t, d, round_id],
            )
        )
        scope.events.append((_CONTEXT, [t, d]))
        scope.events.append(
            (
                "table_id = ? AND gaming_date = ? AND payload_type = 'ShoeStarted' AND "
                "json_extract_string(fields_json, '$.shoe_id') IN (SELECT shoe_id FROM "
                "rounds WHERE table_id = ? AND gaming_date = ? AND round_id = ?)",
                [t, d, t, d, round_id],
            )
        )
    return scope


def form_scope(
    ledger: Ledger, serial: int, table_id: str | None, gaming_date: date | None
) -> BundleScope | None:
    """A Complimentary Vigorish Form's evidence (of ``table_id`` and ``gaming_date`` when
    given): its rows, its series, its exceptions, its table-day's summary, its events, its
    table's opening and the series it was issued from. None: the ledger names no such
    Form."""
    narrow, params = _narrowed(table_id, gaming_date)
    found = _table_days(
        ledger,
        "SELECT table_id, gaming_date FROM ("
        "SELECT table_id, gaming_date, serial FROM comp_vig_forms UNION ALL "
        "SELECT table_id, gaming_date, serial FROM form_events UNION ALL "
        f"{ledger_exceptions.FORM_SERIAL_PLACES}) "
        "WHERE serial = ?" + narrow + " GROUP BY ALL ORDER BY ALL",
        [serial, *params],
    )
    if not found:
        return None
    scope = BundleScope()
    for t, d in found:
        for table in _FORM_TABLES | {"exceptions"}:
            scope.add(table, "table_id = ? AND gaming_date = ? AND serial = ?", [t, d, serial])
        scope.add(
            "form_series",
            "table_id = ? AND gaming_date = ? AND ? BETWEEN first_serial AND last_serial",
            [t, d, serial],
        )
        scope.add("table_day_summary", "table_id = ? AND gaming_date = ?", [t, d])
        scope.events.append(
            (
                "table_id = ? AND gaming_date = ? AND "
                "TRY_CAST(json_extract(fields_json, '$.serial') AS BIGINT) = ?",
                [t, d, serial],
            )
        )
        scope.events.append((_CONTEXT, [t, d]))
        scope.events.append(
            (
                "table_id = ? AND gaming_date = ? AND payload_type = 'FormSeriesReceived' "
                "AND ? BETWEEN TRY_CAST(json_extract(fields_json, '$.first_serial') AS "
                "BIGINT) AND TRY_CAST(json_extract(fields_json, '$.last_serial') AS BIGINT)",
                [t, d, serial],
            )
        )
    return scope


def exception_scope(
    ledger: Ledger, exception_id: str
) -> tuple[BundleScope, ledger_exceptions.ExceptionRow] | None:
    """An exception's evidence: its row, its table-day's summary, the events it cites and
    nothing else of the table (the rows the replay derived from those events, such as the
    vigorish ledger's rows of its deferrals, and those events' deliveries), with the row.
    None: the ledger holds no such exception."""
    found = ledger.con.execute(
        f"SELECT {', '.join(ledger_exceptions.EXCEPTION_COLUMNS)} FROM exceptions "
        "WHERE exception_id = ? ORDER BY gaming_date",
        [exception_id],
    ).fetchall()
    if not found:
        return None
    row = ledger_exceptions.ExceptionRow.from_record(found[0])
    day = [row.table_id, row.gaming_date]
    cited = list(row.source_event_ids)
    scope = BundleScope()
    scope.add("exceptions", "table_id = ? AND gaming_date = ? AND exception_id = ?",
              [*day, exception_id])  # fmt: skip
    scope.add("table_day_summary", "table_id = ? AND gaming_date = ?", day)
    for table in TABLES:  # the rows made from one cited event each (their source_event_id)
        if table.name in REPLAYED_TABLES and "source_event_id" in table.column_names:
            scope.add(
                table.name,
                "table_id = ? AND gaming_date = ? AND list_contains(?::VARCHAR[], source_event_id)",
                [*day, cited],
            )
    scope.events.append(
        ("table_id = ? AND gaming_date = ? AND list_contains(?::VARCHAR[], event_id)",
         [*day, cited])
    )  # fmt: skip
    return scope, row


def table_scope(ledger: Ledger, table_id: str, gaming_date: date | None) -> BundleScope | None:
    """A table's evidence (of one ``gaming_date`` when given): every replayed row and every
    delivery. None: the ledger holds no events of the table."""
    day_filter = " AND gaming_date = ?" if gaming_date else ""
    day_param: list[Any] = [gaming_date] if gaming_date else []
    found = _table_days(
        ledger,
        "SELECT DISTINCT table_id, gaming_date FROM deliveries WHERE table_id = ?" + day_filter,
        [table_id, *day_param],
    )
    if not found:
        return None
    scope = BundleScope()
    for table in REPLAYED_TABLES:
        scope.add(table, "table_id = ?" + day_filter, [table_id, *day_param])
    scope.events.append(("table_id = ?" + day_filter, [table_id, *day_param]))
    return scope


# ---------------------------------------------------------------------- what is exported
def rows_in_scope(
    ledger: Ledger, scope: BundleScope, table: str
) -> tuple[list[str], list[tuple[Any, ...]]]:
    """The rows of ``table`` in ``scope``, sorted, with the table's column names."""
    where, params = scope.where(table)
    cursor = ledger.con.execute(f"SELECT * FROM {table} WHERE {where} ORDER BY ALL", params)
    return [d[0] for d in cursor.description or ()], cursor.fetchall()


def deliveries_in_scope(
    ledger: Ledger, scope: BundleScope, cited: Sequence[str]
) -> list[StoredDelivery]:
    """The deliveries in ``scope`` and those of the events ``cited`` (by id), in (source,
    position) order; a delivery made twice is listed twice."""
    clauses = list(scope.events)
    if cited:
        clauses.append(("list_contains(?::VARCHAR[], event_id)", [list(cited)]))
    where = " OR ".join(f"({sql})" for sql, _ in clauses) or "FALSE"
    rows = ledger.con.execute(
        f"SELECT {', '.join(DELIVERY_COLUMNS)} FROM deliveries WHERE {where} "
        "ORDER BY source, position",
        [p for _, ps in clauses for p in ps],
    ).fetchall()
    return [StoredDelivery._make((*r[:-1], json.loads(r[-1]))) for r in rows]


def acknowledgements_of(ledger: Ledger, exception_ids: Sequence[str]) -> list[tuple[Any, ...]]:
    """The ledger's acknowledgements of ``exception_ids``: ``(exception_id, action, note,
    actor, acted_at)``, in the order they were made."""
    return ledger.con.execute(
        "SELECT exception_id, action, note, actor, acted_at FROM acknowledgements "
        "WHERE list_contains(?::VARCHAR[], exception_id) ORDER BY acted_at, exception_id",
        [list(exception_ids)],
    ).fetchall()
