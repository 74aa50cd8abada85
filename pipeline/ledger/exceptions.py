"""The front door to the ledger's ``exceptions`` table: its row declared once, every read a
named question, and one formatter for an exception line.

Nothing outside :mod:`pipeline.ledger` writes SQL against ``exceptions``
(``tests/ledger/test_front_door.py`` holds it to that). A question is either answered here,
on a connection, as typed rows (:class:`ExceptionRow`) or plain values, or given as a
:class:`Question` (SQL and its parameters) for a caller that runs it its own way: a
dashboard's cursor into a DataFrame, a report's named parameters, a quality frame. Either
way the SQL is written here, so when the storage changes only this package changes.

The line (:func:`exception_line`) is the one place an exception becomes text, as beancount
prints every error through ``printer.format_error``: the CLI, the demo, the alerts, the
dashboards and :meth:`pipeline.replay.findings.Finding.render` all go through it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import astuple, dataclass, fields, replace
from datetime import date
from typing import TYPE_CHECKING, Any, NamedTuple

from pipeline.ledger.connection import connection_of

if TYPE_CHECKING:
    from pipeline.ledger.connection import Source
    from pipeline.ledger.store import Ledger


@dataclass(frozen=True, slots=True)
class ExceptionRow:
    """One row of ``exceptions``, in the table's column order
    (:mod:`pipeline.ledger.tables`): a finding of the replay, the pit judgement or the
    pattern stage, for one gaming day."""

    exception_id: str
    table_id: str
    gaming_date: date
    code: str
    section: str
    severity: str
    severity_rank: int
    shoe_id: str | None
    round_id: str | None
    seat: int | None
    patron_id: str | None
    serial: int | None
    expected_cents: int | None
    actual_cents: int | None
    message: str
    source_event_ids: tuple[str, ...]

    @classmethod
    def from_record(cls, record: Sequence[Any]) -> ExceptionRow:
        """The row from a record of :data:`EXCEPTION_COLUMNS`, in order."""
        values = list(record)
        values[-1] = tuple(values[-1] or ())
        return cls(*values)

    def values(self) -> tuple[Any, ...]:
        return astuple(self)

    @property
    def place(self) -> str:
        """Where it happened: ``table T01 round R7 seat 3 form 12``, what is known of it."""
        return exception_place(self.table_id, self.round_id, self.seat, self.serial)

    def line(self) -> str:
        """The exception's line (:func:`exception_line`)."""
        return exception_line(self.severity, self.code, self.place, self.message)


EXCEPTION_COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(ExceptionRow))
"""The columns of ``exceptions``, in order, from :class:`ExceptionRow`."""

_ALL = ", ".join(EXCEPTION_COLUMNS)


# ---------------------------------------------------------------------- the one formatter
def exception_place(
    table_id: str | None,
    round_id: str | None = None,
    seat: int | None = None,
    serial: int | None = None,
) -> str:
    """``table T01 round R7 seat 3 form 12``: the labels of those given, in that order."""
    return " ".join(
        f"{label} {value}"
        for label, value in (
            ("table", table_id),
            ("round", round_id),
            ("seat", seat),
            ("form", serial),
        )
        if value is not None
    )


def exception_line(
    severity: str, code: str, place: str, message: str | None = None, *, sep: str = ": "
) -> str:
    """The one formatter of an exception line: ``[SEVERITY] CODE place: message``.

    ``place`` says where (:func:`exception_place`, or what the reader needs instead: an
    alert's ``raised at table T01, round R7``); without ``message`` the line is its heading;
    ``sep`` puts the message elsewhere (the demo's next, indented line)."""
    heading = f"[{severity}] {code} {place}"
    return heading if message is None else f"{heading}{sep}{message}"


# ---------------------------------------------------------------------- questions
class Question(NamedTuple):
    """A read of the ledger, written here, for a caller that runs it its own way."""

    sql: str
    params: list[Any]


def _one(source: Source, question: Question) -> int:
    row = connection_of(source).execute(*question).fetchone()
    return int(row[0]) if row else 0


def count_all(source: Source) -> int:
    """How many exceptions the ledger holds, every day's."""
    return _one(source, Question("SELECT count(*) FROM exceptions", []))


def count_table_day(source: Source, table_id: str, day: date) -> int:
    """How many exceptions one table-day has, its pit's and the pattern stage's included."""
    return _one(
        source,
        Question(
            "SELECT count(*) FROM exceptions WHERE table_id = ? AND gaming_date = ?",
            [table_id, day],
        ),
    )


@dataclass(frozen=True, slots=True)
class QueueFilter:
    """Which exceptions the queue shows: at least ``min_rank``, and of the table, code and
    gaming day when given."""

    min_rank: int = 0
    table_id: str | None = None
    code: str | None = None
    gaming_date: date | str | None = None

    def where(self) -> tuple[str, list[Any]]:
        where, params = ["severity_rank >= ?"], list[Any]([self.min_rank])
        for column, value in (
            ("table_id", self.table_id),
            ("code", self.code),
            ("gaming_date", self.gaming_date),
        ):
            if value:
                where.append(f"{column} = ?")
                params.append(value)
        return " AND ".join(where), params


@dataclass(frozen=True, slots=True)
class QueuePage:
    """The first ``limit`` exceptions of the queue, and how many match in all."""

    total: int
    rows: list[ExceptionRow]


def exception_queue(source: Source, matching: QueueFilter, limit: int) -> QueuePage:
    """The exception queue: the exceptions ``matching`` selects, most severe first (then by
    table, round and code), at most ``limit`` of them, with how many match in all."""
    where, params = matching.where()
    total = _one(source, Question(f"SELECT count(*) FROM exceptions WHERE {where}", params))
    rows = (
        connection_of(source)
        .execute(
            f"SELECT {_ALL} FROM exceptions WHERE {where} "
            "ORDER BY severity_rank DESC, table_id, round_id, code LIMIT ?",
            [*params, limit],
        )
        .fetchall()
    )
    return QueuePage(total, [ExceptionRow.from_record(r) for r in rows])


def hidden_by_rank(source: Source, matching: QueueFilter) -> dict[str, int]:
    """How many exceptions of each severity ``matching`` leaves out for their rank alone
    (below ``min_rank``, of its table, code and gaming day), the least severe first."""
    where, params = replace(matching, min_rank=0).where()
    return {
        str(severity): int(count)
        for severity, count in connection_of(source)
        .execute(
            f"SELECT severity, count(*) FROM exceptions WHERE {where} AND severity_rank < ? "
            "GROUP BY severity, severity_rank ORDER BY severity_rank",
            [*params, matching.min_rank],
        )
        .fetchall()
    }


def all_exceptions(source: Source) -> list[ExceptionRow]:
    """Every exception the ledger holds, in no particular order."""
    return [
        ExceptionRow.from_record(r)
        for r in connection_of(source).execute(f"SELECT {_ALL} FROM exceptions").fetchall()
    ]


def places_of(
    source: Source, exception_ids: Sequence[str]
) -> dict[str, tuple[str, date, str | None]]:
    """Each of ``exception_ids`` the ledger holds: its table, gaming day and the day's status
    (``None``: the day has no status row yet)."""
    return {
        str(e): (str(t), d, s)
        for e, t, d, s in connection_of(source)
        .execute(
            "SELECT e.exception_id, e.table_id, e.gaming_date, g.status "
            "FROM exceptions e LEFT JOIN gaming_days g USING (gaming_date) "
            "WHERE list_contains(?::VARCHAR[], e.exception_id)",
            [list(exception_ids)],
        )
        .fetchall()
    }


def ids_of_day(source: Source, day: date) -> set[str]:
    """The ids of a gaming day's exceptions."""
    return {
        str(e)
        for (e,) in connection_of(source)
        .execute("SELECT exception_id FROM exceptions WHERE gaming_date = ?", [day])
        .fetchall()
    }


def ids_at_least(source: Source, rank: int) -> list[str]:
    """The ids of every exception of at least ``rank``, sorted."""
    return [
        str(e)
        for (e,) in connection_of(source)
        .execute("SELECT exception_id FROM exceptions WHERE severity_rank >= ? ORDER BY 1", [rank])
        .fetchall()
    ]


def tables_with_codes(source: Source, day: date, codes: Sequence[str]) -> set[str]:
    """The tables with an exception of ``day`` under one of ``codes``."""
    return {
        str(t)
        for (t,) in connection_of(source)
        .execute(
            "SELECT DISTINCT table_id FROM exceptions WHERE gaming_date = ? "
            "AND list_contains(?::VARCHAR[], code)",
            [day, sorted(codes)],
        )
        .fetchall()
    }


def counts_by_code(source: Source, limit: int) -> list[tuple[str, str, int]]:
    """(code, severity, count) of every day's exceptions, the most frequent ``limit``."""
    return [
        (str(c), str(s), int(n))
        for c, s, n in connection_of(source)
        .execute(
            "SELECT code, severity, count(*) FROM exceptions GROUP BY ALL "
            "ORDER BY 3 DESC, 1 LIMIT ?",
            [limit],
        )
        .fetchall()
    ]


def most_severe_of_rounds(source: Source, min_rank: int, limit: int) -> list[ExceptionRow]:
    """The ``limit`` most severe exceptions (at least ``min_rank``) that name a round."""
    return [
        ExceptionRow.from_record(r)
        for r in connection_of(source)
        .execute(
            f"SELECT {_ALL} FROM exceptions WHERE severity_rank >= ? AND round_id IS NOT NULL "
            "ORDER BY severity_rank DESC, code, table_id, round_id LIMIT ?",
            [min_rank, limit],
        )
        .fetchall()
    ]


def first_round_of_table(source: Source, table_id: str) -> str | None:
    """The first round id (sorted) of a table with an exception, any day."""
    row = (
        connection_of(source)
        .execute(
            "SELECT round_id FROM exceptions WHERE table_id = ? AND round_id IS NOT NULL "
            "ORDER BY round_id LIMIT 1",
            [table_id],
        )
        .fetchone()
    )
    return str(row[0]) if row else None


def evidence_ids(source: Source) -> list[list[str]]:
    """Each exception's evidence event ids, every day's."""
    return [
        list(ids or [])
        for (ids,) in connection_of(source)
        .execute("SELECT source_event_ids FROM exceptions")
        .fetchall()
    ]


# ------------------------------------------------- questions run by their callers
def day_counts_by_severity() -> Question:
    """(severity, code, count) of a day's exceptions (named parameter ``$day``), most severe
    first."""
    return Question(
        """
        SELECT severity, code, count(*) AS count FROM exceptions WHERE gaming_date = $day
        GROUP BY ALL ORDER BY min(severity_rank) DESC, code""",
        [],
    )


def day_blocking(acknowledgements_of_day: str) -> Question:
    """A day's exceptions of at least ``$rank`` whose last action (among the acknowledgements
    ``acknowledgements_of_day`` selects) is not ACKNOWLEDGE: what blocks the close (named
    parameters ``$day``, ``$rank`` and what the selection needs). The last action stands:
    ACKNOWLEDGE then ESCALATE leaves the exception blocking; two actions in the same
    microsecond count as an escalation, the cautious reading."""
    return Question(
        f"""
        WITH latest AS (
            SELECT exception_id, action FROM acknowledgements
            WHERE {acknowledgements_of_day}
            QUALIFY row_number() OVER (PARTITION BY exception_id
                                       ORDER BY acted_at DESC, action = 'ESCALATE' DESC) = 1)
        SELECT e.exception_id, e.table_id, e.code, e.round_id, e.seat, e.serial, e.message
        FROM exceptions e LEFT JOIN latest l USING (exception_id)
        WHERE e.gaming_date = $day AND e.severity_rank >= $rank
          AND l.action IS DISTINCT FROM 'ACKNOWLEDGE'
        ORDER BY e.table_id, e.round_id, e.code, e.exception_id""",
        [],
    )


def quality_frame(day_literal: str, order_only: str) -> str:
    """The quality suites' frame of a day's exceptions (``day_literal``: the day as SQL),
    ``order_only`` naming the column that only orders."""
    return (
        "SELECT e.table_id, e.code, e.severity, e.severity_rank, e.round_id, "
        "EXISTS (SELECT 1 FROM table_day_summary s WHERE s.table_id = e.table_id "
        "AND s.gaming_date = e.gaming_date) AS has_summary, "
        f"e.exception_id AS {order_only} FROM exceptions e WHERE e.gaming_date = {day_literal}"
    )


FORM_SERIAL_PLACES = "SELECT table_id, gaming_date, serial FROM exceptions"
"""(table_id, gaming_date, serial) of every exception: where a Form serial is named."""


def day_rows(ledger: Ledger, day: date) -> Question:
    """Every exception of gaming day ``day`` with its pit, dealer (who dealt its round, a
    relief dealer included: :mod:`pipeline.ledger.round_dealers`; else the table-day's),
    first evidence time (else the round's start) and the rest of its row; most severe
    first."""
    # here, not at the top: the replay's findings import this module, and the small commands
    # import those without DuckDB (tests/test_cli_startup.py)
    from pipeline.ledger.round_dealers import round_dealers

    dealers_cte, dealers_params = round_dealers(ledger, day)
    return Question(
        f"""
        WITH {dealers_cte},
        evidence AS (
            SELECT x.exception_id, x.table_id, min(d.occurred_at) AS first_at
            FROM (SELECT exception_id, table_id, gaming_date, unnest(source_event_ids) AS event_id
                  FROM exceptions WHERE gaming_date = ?) x
            JOIN deliveries d ON d.event_id = x.event_id AND d.table_id = x.table_id
                             AND d.gaming_date = x.gaming_date
            GROUP BY ALL
        )
        SELECT e.exception_id, e.table_id, s.pit, coalesce(rd.dealer_id, s.dealer_id) AS dealer_id,
               e.severity, e.severity_rank, e.code, e.section, e.shoe_id, e.round_id, e.seat,
               e.patron_id, e.serial, e.expected_cents, e.actual_cents, e.message,
               e.source_event_ids, coalesce(ev.first_at, r.started_at) AS occurred_at
        FROM exceptions e
        LEFT JOIN table_day_summary s USING (table_id, gaming_date)
        LEFT JOIN rounds r ON r.table_id = e.table_id AND r.round_id = e.round_id
                           AND r.gaming_date = e.gaming_date
        LEFT JOIN round_dealers rd ON rd.table_id = e.table_id AND rd.round_id = e.round_id
                                   AND rd.gaming_date = e.gaming_date
        LEFT JOIN evidence ev ON ev.exception_id = e.exception_id AND ev.table_id = e.table_id
        WHERE e.gaming_date = ?
        ORDER BY e.severity_rank DESC, occurred_at, e.table_id, e.exception_id""",
        [*dealers_params, day, day],
    )


def first_round(day: date) -> Question:
    """(table, shoe, round) of the day's most severe exception that names a round, the
    earliest first."""
    return Question(
        "SELECT e.table_id, r.shoe_id, e.round_id FROM exceptions e JOIN rounds r "
        "ON r.table_id = e.table_id AND r.round_id = e.round_id AND r.gaming_date = e.gaming_date "
        "WHERE e.gaming_date = ? ORDER BY e.severity_rank DESC, r.started_at, e.round_id LIMIT 1",
        [day],
    )


def rounds_of_table_day(day: date, table_id: str) -> Question:
    """The rounds of a table-day that have at least one exception."""
    return Question(
        "SELECT DISTINCT round_id FROM exceptions WHERE gaming_date = ? AND table_id = ? "
        "AND round_id IS NOT NULL",
        [day, table_id],
    )


def of_round(table_id: str, round_id: str) -> Question:
    """A round's exceptions, most severe first."""
    return Question(
        "SELECT exception_id, severity, code, section, seat, message FROM exceptions "
        "WHERE table_id = ? AND round_id = ? ORDER BY severity_rank DESC, code",
        [table_id, round_id],
    )


ROUND_COUNT_SQL = (
    "(SELECT count(*) FROM exceptions e WHERE e.table_id = r.table_id\n"
    "                AND e.round_id = r.round_id)"
)
"""How many exceptions round ``r`` (a row of ``rounds``) has: a column of a round search."""


def search(names_sql: str) -> str:
    """The exceptions a search finds (its parameters, in order: patron twice and as a name
    in ``names_sql``, table twice, dealer twice, Form serial twice, from and to twice each),
    most severe first, at most 500."""
    return (
        """
        SELECT e.gaming_date, e.table_id, e.exception_id, e.severity, e.code, e.round_id,
               e.seat, e.patron_id, e.serial, e.message, r.started_at
        FROM exceptions e
        LEFT JOIN rounds r ON r.table_id = e.table_id AND r.round_id = e.round_id
        LEFT JOIN table_day_summary s ON s.table_id = e.table_id
             AND s.gaming_date = e.gaming_date
        WHERE (?::VARCHAR IS NULL OR e.patron_id ILIKE ? OR e.patron_id IN (
                  SELECT patron_id FROM ("""
        + names_sql
        + """) WHERE patron_name ILIKE ?))
          AND (?::VARCHAR IS NULL OR e.table_id = ?)
          AND (?::VARCHAR IS NULL OR s.dealer_id ILIKE ?)
          AND (?::BIGINT IS NULL OR e.serial = ?)
          AND (?::BIGINT IS NULL OR r.started_at >= ?)
          AND (?::BIGINT IS NULL OR r.started_at <= ?)
        ORDER BY e.severity_rank DESC, e.table_id LIMIT 500"""
    )


def of_trail(key: str, value: Any) -> Question:
    """Every column of the exceptions whose ``key`` (``round_id`` or ``serial``) is
    ``value``, most severe first."""
    if key not in ("round_id", "serial"):
        raise ValueError(f"{key!r}: a trail follows a round_id or a serial")
    return Question(
        f"SELECT * FROM exceptions WHERE {key} = ? ORDER BY severity_rank DESC, code", [value]
    )


def first_day_of(exception_id: str) -> Question:
    """The gaming day that holds an exception (``day``: NULL when none does)."""
    return Question(
        "SELECT min(gaming_date) AS day FROM exceptions WHERE exception_id = ?", [exception_id]
    )


PATRON_DAYS_SQL = """SELECT gaming_date, count(*) AS exceptions FROM exceptions WHERE patron_id = ?
            GROUP BY ALL"""
"""(gaming_date, exceptions) of one patron (the parameter), a day a row."""


def of_patron(patron_id: str) -> Question:
    """A patron's exceptions, every day's, by day, most severe first."""
    return Question(
        "SELECT gaming_date, table_id, round_id, seat, severity, code, message FROM exceptions "
        "WHERE patron_id = ? ORDER BY gaming_date, severity_rank DESC, table_id, round_id",
        [patron_id],
    )


def with_codes_of_day(day: date, codes: Sequence[str]) -> Question:
    """A day's exceptions under ``codes`` (the false-shuffle ones), most money staked
    (``staked_cents``) first."""
    return Question(
        "SELECT exception_id, table_id, shoe_id, round_id, code, section, actual_cents AS "
        "staked_cents, message, source_event_ids FROM exceptions "
        "WHERE gaming_date = ? AND list_contains(?::VARCHAR[], code) "
        "ORDER BY actual_cents DESC NULLS LAST, table_id, shoe_id, exception_id",
        [day, list(codes)],
    )
