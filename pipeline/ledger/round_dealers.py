"""Who dealt each round: what the queue, the compliance search and a dealer's record all
read. A round's dealer is the one its RoundStarted names, else the one named before it at the
table (a RoundStarted names the dealer only on a change, ``round.avsc``), else the
TableOpened's. The replay writes it on the round's row (``rounds.dealer_id``, migration 25)."""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING

from pipeline.ledger.working_store import stored_columns_of

if TYPE_CHECKING:
    from pipeline.ledger.store import Ledger


def _rounds_name_dealers(ledger: Ledger) -> bool:
    """Whether the ledger's rounds have their dealer column: one opened read-only that no
    writer has migrated since migration 25 has not."""
    columns = stored_columns_of(ledger.cursor(), "rounds")
    return any(name == "dealer_id" for name, _ in columns)


def days_without_dealers(ledger: Ledger, day: date | None = None) -> list[date]:
    """The gaming days (only ``day``, when given), in order, with rounds whose row names no
    dealer: rows derived before rows recorded it (migration 25), or a round started before
    any dealer was named."""
    return _days_without_dealers(ledger, _rounds_name_dealers(ledger), day)


def _days_without_dealers(ledger: Ledger, recorded: bool, day: date | None) -> list[date]:
    unnamed = ["dealer_id IS NULL"] if recorded else []
    of_day = ["gaming_date = ?"] if day is not None else []
    where = " AND ".join([*unnamed, *of_day])
    return [
        found
        for (found,) in ledger.cursor()
        .execute(
            f"SELECT DISTINCT gaming_date FROM rounds {'WHERE ' + where if where else ''} "
            "ORDER BY 1",
            [] if day is None else [day],
        )
        .fetchall()
    ]


def round_dealers(ledger: Ledger, day: date | None = None) -> tuple[str, list[date]]:
    """The common table expression ``round_dealers``, who dealt each round (of gaming day
    ``day`` only, when given): ``table_id, gaming_date, round_id, simulated, dealer_id``; and
    its parameters.

    Rows derived before the round recorded its dealer read null, in the working store and in
    the archive files of days closed before (:mod:`pipeline.ledger.working_store`): for those
    days alone the dealer is read from the RoundStarted deliveries, the last one named up to
    the round, else the table-day's. So a dealer's record of the days derived since reads no
    delivery."""
    named_in_rows = _rounds_name_dealers(ledger)
    days = _days_without_dealers(ledger, named_in_rows, day)
    recorded = "r.dealer_id" if named_in_rows else "NULL"
    named, join = "NULL", ""
    if days:
        # a RoundStarted names the dealer only on a change (round.avsc): the dealer named
        # last before a round deals it
        named = """last_value(n.dealer_id IGNORE NULLS) OVER (
                   PARTITION BY r.table_id, r.gaming_date ORDER BY r.started_at, r.round_id
                   ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"""
        join = f"""
        LEFT JOIN (
            SELECT table_id, gaming_date,
                   json_extract_string(fields_json, '$.round_id') AS round_id,
                   max(json_extract_string(fields_json, '$.dealer_id')) AS dealer_id
            FROM deliveries
            WHERE payload_type = 'RoundStarted' AND gaming_date IN ({", ".join("?" * len(days))})
            GROUP BY ALL
        ) n USING (table_id, gaming_date, round_id)"""
    of_day = "" if day is None else "\n        WHERE r.gaming_date = ?"
    return (
        f"""
    round_dealers AS (
        SELECT r.table_id, r.gaming_date, r.round_id, r.simulated,
               coalesce({recorded}, {named}, s.dealer_id) AS dealer_id
        FROM rounds r
        LEFT JOIN table_day_summary s USING (table_id, gaming_date){join}{of_day}
    )""",
        [*days, *([] if day is None else [day])],
    )
