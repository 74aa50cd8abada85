"""Exception notices: what changed in a table-day's exceptions, kept in the ledger until sent.

When the live consumer re-derives a table-day, its exceptions are replaced whole
(:meth:`~pipeline.ledger.store.Ledger.replace_table_day`): an exception the new events
confirm stays, one they explain is gone, a new one appears. :func:`record_notices`, run in
the same transaction, compares the table-day's exceptions with the last notice of each and
appends a ``RAISED`` notice for every exception not announced yet (or withdrawn before and
found again) and a ``WITHDRAWN`` notice, carrying the withdrawn exception's fields, for every
announced one that is gone. An exception only ending the day now produces (the live replay's
round in play) is left for later: the next events may complete the round. Since notices
commit with the rows they describe, a crash cannot lose one; the ledger is an outbox that
:func:`pending_notices` reads and :func:`mark_published` empties once the consumer has sent
them (at least once).

Alerts are driven from the same outbox: an alert channel (:func:`register_alert_channel`)
alerts on the notices recorded after it was first configured; :func:`undelivered_notices`
gives those it wants and has not delivered, and :func:`mark_delivered` records each one it
delivered. A restarted stream therefore sends what a crash left undelivered and nothing it
had delivered, except the alerts delivered in the instant before a crash and not yet
marked: those are sent again, with the same idempotency key.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from pipeline.ledger.store import Ledger

RAISED = "RAISED"
WITHDRAWN = "WITHDRAWN"

_FIELDS = (
    "exception_id, table_id, gaming_date, code, section, severity, severity_rank, shoe_id, "
    "round_id, seat, patron_id, serial, expected_cents, actual_cents, message, source_event_ids"
)

_RECORD = f"""
WITH days AS (SELECT unnest($tables::VARCHAR[]) AS table_id,
                     unnest($dates::DATE[]) AS gaming_date),
current AS (SELECT e.* FROM exceptions e JOIN days USING (table_id, gaming_date)
            WHERE $codes::VARCHAR[] IS NULL OR list_contains($codes::VARCHAR[], e.code)),
latest AS (
    SELECT max(n.notice_seq) AS notice_seq
    FROM exception_notices n JOIN days USING (table_id, gaming_date)
    GROUP BY n.table_id, n.gaming_date, n.exception_id
),
announced AS (
    SELECT n.* FROM exception_notices n JOIN latest USING (notice_seq) WHERE n.state = 'RAISED'
      AND ($codes::VARCHAR[] IS NULL OR list_contains($codes::VARCHAR[], n.code))
),
changes AS (
    SELECT 'RAISED' AS state, {_FIELDS} FROM current c
    WHERE NOT list_contains($provisional::VARCHAR[], c.exception_id)
      AND NOT EXISTS (SELECT 1 FROM announced a WHERE a.table_id = c.table_id
                      AND a.gaming_date = c.gaming_date AND a.exception_id = c.exception_id)
    UNION ALL
    SELECT 'WITHDRAWN' AS state, {_FIELDS} FROM announced a
    WHERE NOT EXISTS (SELECT 1 FROM current c WHERE a.table_id = c.table_id
                      AND a.gaming_date = c.gaming_date AND a.exception_id = c.exception_id)
)
INSERT INTO exception_notices
SELECT nextval('exception_notice_seq'), state, {_FIELDS}, $recorded_at, NULL
FROM (SELECT * FROM changes ORDER BY gaming_date, table_id, state DESC, exception_id)
"""
# (state DESC: a table-day's withdrawals go out before its new exceptions)


@dataclass(frozen=True, slots=True)
class ExceptionNotice:
    """One row of ``exception_notices``: an exception raised or withdrawn, with its fields."""

    notice_seq: int
    state: str
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
    recorded_at: datetime
    """UTC, naive (as the ledger stores timestamps)."""


def record_notices(
    ledger: Ledger,
    table_days: Iterable[tuple[str, date]],
    provisional: Iterable[str] = (),
    codes: Iterable[str] | None = None,
) -> int:
    """Append the notices of what changed in these table-days' exceptions since their last
    notices; returns how many. Call inside the transaction that re-derived them.

    ``provisional``: ids of exceptions the next events may still explain (the live replay's
    round in play, :attr:`~pipeline.replay.live.LiveReplay.provisional`): not raised yet,
    and not withdrawn either if they were raised before.
    ``codes``: only exceptions with these codes (the pattern stage's, which it replaces
    without re-deriving the table-days); None: all."""
    days = sorted(set(table_days))
    if not days:
        return 0
    row = ledger.con.execute(
        _RECORD + " RETURNING notice_seq",
        {
            "tables": [t for t, _ in days],
            "dates": [d for _, d in days],
            "provisional": sorted(set(provisional)),
            "codes": None if codes is None else sorted(set(codes)),
            "recorded_at": datetime.now(UTC).replace(tzinfo=None),
        },
    ).fetchall()
    return len(row)


def pending_notices(ledger: Ledger) -> list[ExceptionNotice]:
    """The notices not sent yet, in the order they were recorded."""
    return _notices(ledger, "WHERE n.published_at IS NULL", {})


def _notices(ledger: Ledger, where: str, params: dict[str, Any]) -> list[ExceptionNotice]:
    cursor = ledger.con.execute(
        f"SELECT notice_seq, state, {_FIELDS}, recorded_at FROM exception_notices n {where} "
        "ORDER BY notice_seq",
        params,
    )
    names = [column[0] for column in cursor.description]
    notices = []
    for row in cursor.fetchall():
        values = dict(zip(names, row, strict=True))
        values["source_event_ids"] = tuple(values["source_event_ids"] or ())
        notices.append(ExceptionNotice(**values))
    return notices


def mark_published(ledger: Ledger, notices: Sequence[ExceptionNotice], at: datetime) -> None:
    """Note that ``notices`` were sent at ``at`` (UTC)."""
    if notices:
        ledger.con.execute(
            "UPDATE exception_notices SET published_at = ? "
            "WHERE list_contains(?::BIGINT[], notice_seq)",
            [at.astimezone(UTC).replace(tzinfo=None), [n.notice_seq for n in notices]],
        )


def register_alert_channel(ledger: Ledger, channel: str) -> None:
    """Serve ``channel`` (a durable name: kind, target and filter) from now on: from the
    notices not yet published when it is first seen; a channel seen before keeps its start."""
    ledger.con.execute(
        "INSERT INTO alert_channels SELECT ?, coalesce(max(notice_seq), 0), ? "
        "FROM exception_notices WHERE published_at IS NOT NULL ON CONFLICT DO NOTHING",
        [channel, datetime.now(UTC).replace(tzinfo=None)],
    )


def undelivered_notices(
    ledger: Ledger, channel: str, min_rank: int, codes: Iterable[str] = ()
) -> list[ExceptionNotice]:
    """The notices ``channel`` (registered) has to deliver and has not: recorded after it
    was first seen, of at least ``min_rank`` and one of ``codes`` (any when empty), oldest
    first."""
    wanted = sorted(set(codes))
    return _notices(
        ledger,
        "WHERE n.notice_seq > (SELECT after_notice_seq FROM alert_channels WHERE channel = $c) "
        "AND n.severity_rank >= $rank AND (len($codes::VARCHAR[]) = 0 "
        "OR list_contains($codes::VARCHAR[], n.code)) AND NOT EXISTS (SELECT 1 FROM "
        "alert_deliveries d WHERE d.channel = $c AND d.notice_seq = n.notice_seq)",
        {"c": channel, "rank": min_rank, "codes": wanted},
    )


def mark_delivered(ledger: Ledger, channel: str, notice_seqs: Iterable[int], at: datetime) -> None:
    """Note that ``channel`` delivered the notices ``notice_seqs`` at ``at`` (UTC); a notice
    marked before keeps its first time."""
    seqs = sorted(set(notice_seqs))
    if seqs:
        ledger.con.execute(
            "INSERT INTO alert_deliveries SELECT $c, unnest($seqs::BIGINT[]), $at "
            "ON CONFLICT DO NOTHING",
            {"c": channel, "seqs": seqs, "at": at.astimezone(UTC).replace(tzinfo=None)},
        )


__all__ = [
    "RAISED",
    "WITHDRAWN",
    "ExceptionNotice",
    "mark_delivered",
    "mark_published",
    "pending_notices",
    "record_notices",
    "register_alert_channel",
    "undelivered_notices",
]


@dataclass(frozen=True, slots=True)
class NoticePlace:
    """Where a notice's exception happened, for the people it alerts: the table's pit on
    its gaming day and the dealer dealing at that moment (``None`` when the ledger holds no
    summary or no dealer for the table-day)."""

    pit: str | None
    dealer_id: str | None


NOWHERE = NoticePlace(None, None)

_PLACES = """
WITH wanted AS (
    SELECT notice_seq, table_id, gaming_date, round_id, source_event_ids
    FROM exception_notices WHERE list_contains($seqs::BIGINT[], notice_seq)
),
evidence AS (
    SELECT w.notice_seq, min(d.occurred_at) AS first_at
    FROM (SELECT notice_seq, table_id, gaming_date, unnest(source_event_ids) AS event_id
          FROM wanted) w
    JOIN deliveries d ON d.event_id = w.event_id AND d.table_id = w.table_id
                     AND d.gaming_date = w.gaming_date
    GROUP BY w.notice_seq
),
moment AS (
    SELECT w.*, coalesce(ev.first_at, r.started_at) AS at
    FROM wanted w
    LEFT JOIN evidence ev USING (notice_seq)
    LEFT JOIN rounds r ON r.table_id = w.table_id AND r.gaming_date = w.gaming_date
                       AND r.round_id = w.round_id
),
dealt_by AS (
    SELECT d.table_id, d.gaming_date, d.occurred_at, d.seq,
           json_extract_string(d.fields_json, '$.dealer_id') AS dealer_id
    FROM deliveries d JOIN (SELECT DISTINCT table_id, gaming_date FROM wanted) USING
         (table_id, gaming_date)
    WHERE d.payload_type IN ('TableOpened', 'RoundStarted')
      AND json_extract_string(d.fields_json, '$.dealer_id') IS NOT NULL
)
SELECT m.notice_seq, any_value(s.pit) AS pit,
       coalesce(arg_max(c.dealer_id, (c.occurred_at, c.seq)), any_value(s.dealer_id)) AS dealer_id
FROM moment m
LEFT JOIN table_day_summary s ON s.table_id = m.table_id AND s.gaming_date = m.gaming_date
LEFT JOIN dealt_by c ON c.table_id = m.table_id AND c.gaming_date = m.gaming_date
                    AND c.occurred_at <= m.at
GROUP BY m.notice_seq
"""


def notice_places(ledger: Ledger, notices: Iterable[ExceptionNotice]) -> dict[int, NoticePlace]:
    """The place of each notice by its ``notice_seq``: the pit of its table-day
    (``table_day_summary``), and the dealer at the table when the exception happened, the
    one the table's last ``TableOpened`` or ``RoundStarted`` named at or before its first
    evidence event (else its round's start); the table-day's dealer when no event dates it.
    A withdrawn exception's place is read from its notice, as it was. Notices the ledger
    does not hold are left out."""
    seqs = sorted({n.notice_seq for n in notices})
    if not seqs:
        return {}
    rows = ledger.con.execute(_PLACES, {"seqs": seqs}).fetchall()
    return {int(seq): NoticePlace(pit, dealer) for seq, pit, dealer in rows}
