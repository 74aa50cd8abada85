"""The front door to a gaming day's close state: what the close, the reopen and ``verify``
read and write besides the seal log (:mod:`pipeline.ledger.seal_record`): whether the day
has deliveries, the dead letters it claims, its audit trail (``gaming_day_audit``) and its
status row (``gaming_days``).

A day's status row repeats what its last seal event says (a close's status, time, report
digest and link; ``REOPENED`` after a reopen) for the readers that ask ``gaming_days``; the
seal log, not the row, is what counts, and ``verify`` compares the two
(:func:`day_statuses`).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import NamedTuple

from pipeline.ledger.seal_record import SealEntry
from pipeline.ledger.store import Ledger

REOPENED = "REOPENED"
"""``gaming_days.status`` of a day reopened and not closed since."""

DEAD_LETTERS_OF_DAY = (
    "received_on = $day OR (received_on IS NULL AND source IN "
    "(SELECT source FROM deliveries WHERE gaming_date = $day))"
)
"""A dead letter belongs to the gaming day that claimed it. A loader that knows the day stamps
``received_on``; one that does not (a damaged stretch of a file has no readable date) leaves it
NULL, and the first close of a day the same source (file, or Kafka partition) delivered events
for claims it by stamping that day. So a letter belongs to exactly one day, and one that
arrives after a close goes to the next day its source feeds, never into a sealed day."""


class DayStatus(NamedTuple):
    """A day's ``gaming_days`` row, as a close writes it, in the order ``verify`` names its
    columns."""

    status: str
    closed_at: datetime | None
    report_sha256: str | None
    chain_sha256: str | None
    blocking_exceptions: int | None


def has_deliveries(ledger: Ledger, gaming_date: date) -> bool:
    """Whether the day has any delivery (an event loaded for it)."""
    row = ledger.con.execute(
        "SELECT count(*) FROM deliveries WHERE gaming_date = ?", [gaming_date]
    ).fetchone()
    return bool(row and row[0])


def nearest_days_with_deliveries(ledger: Ledger, gaming_date: date, n: int) -> list[date]:
    """The ``n`` days nearest ``gaming_date`` that have deliveries, nearest first."""
    return [
        day
        for (day,) in ledger.con.execute(
            "SELECT gaming_date FROM (SELECT DISTINCT gaming_date FROM deliveries) "
            "ORDER BY abs(gaming_date - ?::DATE), gaming_date LIMIT ?",
            [gaming_date, n],
        ).fetchall()
    ]


def claim_dead_letters(ledger: Ledger, gaming_date: date) -> None:
    """Stamp the day on the unstamped dead letters of its sources (:data:`DEAD_LETTERS_OF_DAY`)."""
    ledger.con.execute(
        f"UPDATE {ledger.stored('dead_letters')} SET received_on = $day "
        f"WHERE received_on IS NULL AND "
        f"({DEAD_LETTERS_OF_DAY})",
        {"day": gaming_date},
    )


def record_audit(
    ledger: Ledger,
    gaming_date: date,
    action: str,
    actor: str,
    actor_source: str,
    reason: str | None,
    at: datetime,
) -> None:
    """One row of the day's audit trail (with the seal event of the same transaction)."""
    ledger.con.execute(
        f"INSERT INTO {ledger.stored('gaming_day_audit')} (gaming_date, action, actor, "
        "actor_source, reason, "
        "acted_at) VALUES (?, ?, ?, ?, ?, ?)",
        [gaming_date, action, actor, actor_source, reason, at],
    )


def audit_reason(ledger: Ledger, gaming_date: date, action: str, at: datetime) -> str | None:
    """The reason the day's audit trail gives for ``action`` taken at ``at``, if taken."""
    row = ledger.con.execute(
        "SELECT reason FROM gaming_day_audit WHERE gaming_date = ? AND action = ? AND acted_at = ?",
        [gaming_date, action, at],
    ).fetchone()
    return row[0] if row else None


def record_closed(ledger: Ledger, entry: SealEntry) -> None:
    """The day's status row as its close (``entry``) sealed it, replacing any earlier one."""
    ledger.con.execute("DELETE FROM gaming_days WHERE gaming_date = ?", [entry.gaming_date])
    ledger.con.execute(
        "INSERT INTO gaming_days (gaming_date, status, closed_at, report_sha256, "
        "previous_chain_sha256, chain_sha256, blocking_exceptions) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            entry.gaming_date,
            entry.status,
            entry.sealed_at,
            entry.report_sha256,
            entry.previous_link,
            entry.link,
            entry.blocking_exceptions,
        ],
    )


def record_reopened(ledger: Ledger, gaming_date: date) -> None:
    """The day's status row marked :data:`REOPENED`."""
    ledger.con.execute(
        "UPDATE gaming_days SET status = ? WHERE gaming_date = ?", [REOPENED, gaming_date]
    )


def day_statuses(ledger: Ledger) -> dict[date, DayStatus]:
    """Every day's status row."""
    return {
        day: DayStatus(*row)
        for day, *row in ledger.con.execute(
            "SELECT gaming_date, status, closed_at, report_sha256, chain_sha256, "
            "blocking_exceptions FROM gaming_days"
        ).fetchall()
    }
