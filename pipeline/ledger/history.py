"""The ledger's history across gaming days: the acknowledgements its table holds, the
compliance search (rounds, Forms and exceptions matching a patron, table, dealer, Form serial
or time), the trail of one round or Form (raw events, derived rows, exceptions), and one
patron's play and one dealer's record. Money stays in integer cents; times stay microseconds
since the epoch (``started_at``, ``occurred_at``).

A patron's net result is what the recorded settlements gave the patron (winnings paid less
losing stakes collected; a push is nothing) before vigorish, which is given apart. A round's
dealer is the one its RoundStarted names, else the one named before it (a RoundStarted
names the dealer only on a change, round.avsc), else the TableOpened's: its row records it
(``rounds.dealer_id``, :mod:`pipeline.ledger.round_dealers`), so a dealer's record reads the
rounds, not every stored day's deliveries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

import pandas as pd

from pipeline.ledger import exceptions as ledger_exceptions
from pipeline.ledger.round_dealers import round_dealers
from pipeline.ledger.round_evidence import with_event_text
from pipeline.ledger.snapshots import frame
from pipeline.ledger.store import Ledger


def acknowledgements(ledger: Ledger) -> pd.DataFrame:
    """Every acknowledgement the ledger's own table holds, every day's."""
    return frame(
        ledger,
        "SELECT exception_id, action, note, actor, acted_at FROM acknowledgements",
    )


# ---------------------------------------------------------------------- compliance search
@dataclass
class SearchQuery:
    patron: str = ""
    table_id: str = ""
    dealer: str = ""
    serial: int | None = None
    start: datetime | None = None
    end: datetime | None = None
    page: int = 0
    """Which page of :data:`SEARCH_PAGE` matching rounds to list (the summary covers all)."""

    def empty(self) -> bool:
        return not (
            self.patron or self.table_id or self.dealer or self.serial is not None or self.start
        )


SEARCH_PAGE = 500
"""Rounds listed per page of a search; the summary by day and table counts every match."""


@dataclass
class SearchResult:
    rounds: pd.DataFrame
    """One page of the matching rounds, oldest first."""
    forms: pd.DataFrame
    exceptions: pd.DataFrame
    rounds_total: int = 0
    """How many rounds match in all."""
    summary: pd.DataFrame = field(default_factory=pd.DataFrame)
    """Every matching round counted by gaming day and table: rounds, handle, exceptions."""


def search(ledger: Ledger, query: SearchQuery) -> SearchResult:
    """Rounds, Forms and exceptions matching every given criterion."""
    start = int(query.start.timestamp() * 1_000_000) if query.start else None
    end = int(query.end.timestamp() * 1_000_000) if query.end else None
    patron = f"%{query.patron.strip()}%" if query.patron.strip() else None
    names = """
        SELECT DISTINCT json_extract_string(fields_json, '$.patron_id') AS patron_id,
               json_extract_string(fields_json, '$.patron_name') AS patron_name
        FROM deliveries WHERE payload_type = 'PatronSeated'"""
    dealers_cte, unrecorded = round_dealers(ledger)
    round_sql = f"""
        WITH names AS ({names}),
        {dealers_cte},
        patrons AS (
            SELECT w.table_id, w.round_id, string_agg(DISTINCT w.patron_id, ', ') AS patrons,
                   sum(w.amount_cents) AS handle_cents
            FROM wagers w LEFT JOIN names n ON n.patron_id = w.patron_id
            WHERE ?::VARCHAR IS NULL OR w.patron_id ILIKE ? OR n.patron_name ILIKE ?
            GROUP BY ALL
        )
        , matched AS (
        SELECT r.gaming_date, r.table_id, r.round_id, r.started_at, r.winner,
               r.player_cards, r.banker_cards, d.dealer_id, p.patrons, p.handle_cents,
               {ledger_exceptions.ROUND_COUNT_SQL} AS exceptions
        FROM rounds r
        JOIN table_day_summary s USING (table_id, gaming_date)
        JOIN round_dealers d USING (table_id, gaming_date, round_id)
        {"JOIN" if patron else "LEFT JOIN"} patrons p
             ON p.table_id = r.table_id AND p.round_id = r.round_id
        WHERE (?::VARCHAR IS NULL OR r.table_id = ?)
          AND (?::VARCHAR IS NULL OR d.dealer_id ILIKE ?)
          AND (?::BIGINT IS NULL OR r.started_at >= ?)
          AND (?::BIGINT IS NULL OR r.started_at <= ?)
          AND ?::BIGINT IS NULL
        )"""
    table = query.table_id or None
    dealer = f"%{query.dealer.strip()}%" if query.dealer.strip() else None
    round_params = [
        *unrecorded,
        patron,
        patron,
        patron,
        table,
        table,
        dealer,
        dealer,
        start,
        start,
        end,
        end,
        query.serial,
    ]
    rounds_df = frame(
        ledger,
        round_sql + " SELECT *, count(*) OVER () AS total FROM matched "
        "ORDER BY started_at, table_id, round_id LIMIT ? OFFSET ?",
        [*round_params, SEARCH_PAGE, max(query.page, 0) * SEARCH_PAGE],
    )
    total = int(rounds_df["total"].iloc[0]) if len(rounds_df) else 0
    rounds_df = rounds_df.drop(columns=["total"])
    summary = frame(
        ledger,
        round_sql + " SELECT gaming_date, table_id, count(*) AS rounds, "
        "coalesce(sum(handle_cents), 0)::BIGINT AS handle_cents, "
        "count(*) FILTER (WHERE exceptions > 0) AS rounds_with_exceptions, "
        "sum(exceptions)::BIGINT AS exceptions FROM matched GROUP BY ALL ORDER BY ALL",
        round_params,
    )
    if not len(rounds_df) and query.page > 0:  # past the last page: count the matches
        total = int(summary["rounds"].sum())
    forms = frame(
        ledger,
        """
        SELECT f.gaming_date, f.table_id, f.serial, f.status, f.amount_cents, f.patron_name,
               f.patron_id, f.dealer_signature, f.pit_boss_signature, f.pit_clerk_signature
        FROM comp_vig_forms f
        WHERE (?::VARCHAR IS NULL OR f.patron_id ILIKE ? OR f.patron_name ILIKE ?)
          AND (?::VARCHAR IS NULL OR f.table_id = ?)
          AND (?::VARCHAR IS NULL OR f.dealer_signature ILIKE ?)
          AND (?::BIGINT IS NULL OR f.serial = ?)
        ORDER BY f.gaming_date, f.table_id, f.serial LIMIT 500""",
        [patron, patron, patron, table, table, dealer, dealer, query.serial, query.serial],
    )
    ex = frame(
        ledger,
        ledger_exceptions.search(names),
        [
            patron,
            patron,
            patron,
            table,
            table,
            dealer,
            dealer,
            query.serial,
            query.serial,
            start,
            start,
            end,
            end,
        ],
    )
    return SearchResult(rounds_df, forms, ex, total, summary)


# ---------------------------------------------------------------------- trail
@dataclass
class TrailRows:
    """What the ledger holds of one round or Form: raw events → derived rows → exceptions."""

    events: pd.DataFrame
    """The deliveries naming it or cited by its rows, each payload told as ``what`` it says."""
    derived: dict[str, pd.DataFrame]
    exceptions: pd.DataFrame


def trail(ledger: Ledger, *, round_id: str | None = None, serial: int | None = None) -> TrailRows:
    """The trail of a round (by its id) or of a Form (by its serial): every row the replay
    derived for it, its exceptions, and the events that name it or that those cite."""
    key: str
    value: str | int
    tables: tuple[str, ...]
    if round_id:
        key, value = "round_id", round_id
        tables = ("rounds", "cards", "wagers", "settlements", "vig_ledger")
        event_where = "json_extract_string(fields_json, '$.round_id') = ?"
        event_param: Any = round_id
    elif serial is not None:
        key, value = "serial", serial
        tables = ("comp_vig_forms", "form_events")
        event_where = "TRY_CAST(json_extract(fields_json, '$.serial') AS BIGINT) = ?"
        event_param = serial
    else:
        raise ValueError("a trail needs a round id or a Form serial")
    derived = {
        t: frame(ledger, f"SELECT * FROM {t} WHERE {key} = ? ORDER BY ALL", [value]) for t in tables
    }
    ex = frame(ledger, *ledger_exceptions.of_trail(key, value))
    referenced: set[str] = set()
    for df in [*derived.values(), ex]:
        for column in ("source_event_id", "source_event_ids"):
            if column in df:
                for v in df[column]:
                    if isinstance(v, str):
                        referenced.add(v)
                    elif v is not None and not (isinstance(v, float) and pd.isna(v)):
                        referenced.update(str(x) for x in v)
    events = frame(
        ledger,
        "SELECT source, position, event_id, table_id, device_id, seq, occurred_at, payload_type, "
        f"fields_json AS fields FROM deliveries WHERE ({event_where}) OR "
        "list_contains(?::VARCHAR[], event_id) ORDER BY occurred_at, seq, position",
        [event_param, sorted(referenced)],
    )
    return TrailRows(with_event_text(events), derived, ex)


# ---------------------------------------------------------------------- patrons and dealers
def _dealt(ledger: Ledger) -> tuple[str, list[date]]:
    """The common table expression ``dealt``, who dealt each round that was played
    (simulated rounds are not dealt to patrons), after
    :func:`pipeline.ledger.round_dealers.round_dealers`; and their
    parameters."""
    dealers_cte, params = round_dealers(ledger)
    return (
        f"""{dealers_cte},
    dealt AS (
        SELECT gaming_date, table_id, round_id, dealer_id FROM round_dealers
        WHERE NOT simulated
    )""",
        params,
    )


def patrons(ledger: Ledger) -> list[str]:
    """Every patron id that wagered or was named on a Form, most active first."""
    df = frame(
        ledger,
        """
        SELECT patron_id, sum(n) AS n FROM (
            SELECT patron_id, count(*) AS n FROM wagers WHERE patron_id IS NOT NULL GROUP BY ALL
            UNION ALL
            SELECT patron_id, count(*) FROM comp_vig_forms WHERE patron_id IS NOT NULL GROUP BY ALL
        ) GROUP BY patron_id ORDER BY n DESC, patron_id""",
    )
    return [str(p) for p in df["patron_id"]]


def patron_days(ledger: Ledger, patron_id: str) -> pd.DataFrame:
    """Per gaming day: tables, rounds, handle, net result, vigorish paid or marked, Forms
    and exceptions naming the patron."""
    return frame(
        ledger,
        f"""
        WITH play AS (
            SELECT gaming_date, count(DISTINCT table_id) AS tables,
                   count(DISTINCT table_id || '/' || round_id) AS rounds,
                   sum(amount_cents)::BIGINT AS handle_cents
            FROM wagers WHERE patron_id = ? GROUP BY ALL
        ), net AS (
            SELECT gaming_date, sum(CASE recorded_result
                       WHEN 'WIN' THEN recorded_paid_cents
                       WHEN 'LOSE' THEN -stake_cents ELSE 0 END)::BIGINT AS net_cents
            FROM settlements WHERE patron_id = ? GROUP BY ALL
        ), vig AS (
            SELECT gaming_date, sum(amount_cents)::BIGINT AS vig_cents
            FROM vig_ledger WHERE patron_id = ? AND kind IN ('COLLECTED', 'DEFERRED')
            GROUP BY ALL
        ), forms AS (
            SELECT gaming_date, count(*) AS forms,
                   sum(amount_cents) FILTER (WHERE status <> 'VOID')::BIGINT AS comp_cents
            FROM comp_vig_forms WHERE patron_id = ? GROUP BY ALL
        ), findings AS (
            {ledger_exceptions.PATRON_DAYS_SQL}
        ), days AS (
            SELECT gaming_date FROM play UNION SELECT gaming_date FROM forms
            UNION SELECT gaming_date FROM findings
        )
        SELECT d.gaming_date, coalesce(p.tables, 0) AS tables, coalesce(p.rounds, 0) AS rounds,
               coalesce(p.handle_cents, 0) AS handle_cents, coalesce(n.net_cents, 0) AS net_cents,
               coalesce(v.vig_cents, 0) AS vig_cents, coalesce(f.forms, 0) AS forms,
               coalesce(f.comp_cents, 0) AS comp_cents,
               coalesce(x.exceptions, 0) AS exceptions
        FROM days d LEFT JOIN play p USING (gaming_date) LEFT JOIN net n USING (gaming_date)
        LEFT JOIN vig v USING (gaming_date) LEFT JOIN forms f USING (gaming_date)
        LEFT JOIN findings x USING (gaming_date)
        ORDER BY d.gaming_date""",
        [patron_id] * 5,
    )


def patron_forms(ledger: Ledger, patron_id: str) -> pd.DataFrame:
    """The Forms naming a patron, every day's, in order."""
    return frame(
        ledger,
        "SELECT gaming_date, table_id, serial, status, amount_cents, patron_name, pit, "
        "table_location FROM comp_vig_forms WHERE patron_id = ? ORDER BY gaming_date, serial",
        [patron_id],
    )


def patron_exceptions(ledger: Ledger, patron_id: str) -> pd.DataFrame:
    """A patron's exceptions, every day's, by day, most severe first."""
    return frame(ledger, *ledger_exceptions.of_patron(patron_id))


def dealers(ledger: Ledger) -> list[str]:
    """Every dealer who dealt a played round, most rounds first."""
    dealt, params = _dealt(ledger)
    df = frame(
        ledger,
        f"WITH {dealt} SELECT dealer_id FROM dealt WHERE dealer_id IS NOT NULL "
        "GROUP BY dealer_id ORDER BY count(*) DESC, dealer_id",
        params,
    )
    return [str(d) for d in df["dealer_id"]]


def _dealer_frame(
    ledger: Ledger, dealer_id: str, select: str, more: Sequence[Any] = ()
) -> pd.DataFrame:
    dealt, params = _dealt(ledger)
    return frame(
        ledger,
        f"WITH {dealt}, mine AS (SELECT * FROM dealt WHERE dealer_id = ?) {select}",
        [*params, dealer_id, *more],
    )


def dealer_days(ledger: Ledger, dealer_id: str) -> pd.DataFrame:
    """Per gaming day: the tables and rounds a dealer dealt and the exceptions in those
    rounds."""
    return _dealer_frame(
        ledger,
        dealer_id,
        """
        SELECT m.gaming_date, count(DISTINCT m.table_id) AS tables,
               count(DISTINCT m.table_id || '/' || m.round_id) AS rounds,
               count(e.exception_id) AS exceptions
        FROM mine m LEFT JOIN exceptions e
          ON e.table_id = m.table_id AND e.gaming_date = m.gaming_date AND e.round_id = m.round_id
        GROUP BY m.gaming_date ORDER BY m.gaming_date""",
    )


def dealer_codes(ledger: Ledger, dealer_id: str) -> pd.DataFrame:
    """A dealer's exceptions by rule code across days, most frequent first, each with the
    rounds the dealer dealt in all."""
    return _dealer_frame(
        ledger,
        dealer_id,
        """
        SELECT e.code, e.severity, count(*) AS exceptions,
               (SELECT count(*) FROM mine) AS rounds
        FROM mine m JOIN exceptions e
          ON e.table_id = m.table_id AND e.gaming_date = m.gaming_date AND e.round_id = m.round_id
        GROUP BY e.code, e.severity ORDER BY exceptions DESC, e.code""",
    )


@dataclass(frozen=True)
class DealerDay:
    """What one dealer dealt on one gaming day."""

    rounds: pd.DataFrame
    """The rounds dealt, by table and in order, each with its count of exceptions."""
    exceptions: pd.DataFrame
    """The exceptions in those rounds, most severe first."""


def dealer_day(ledger: Ledger, dealer_id: str, day: date) -> DealerDay:
    """The rounds a dealer dealt on gaming day ``day`` and the exceptions in them."""
    rounds = _dealer_frame(
        ledger,
        dealer_id,
        """
        SELECT m.table_id, r.shoe_id, m.round_id, r.round_number, r.winner, r.status,
               r.started_at, count(e.exception_id) AS exceptions
        FROM mine m JOIN rounds r USING (table_id, gaming_date, round_id)
        LEFT JOIN exceptions e
          ON e.table_id = m.table_id AND e.gaming_date = m.gaming_date AND e.round_id = m.round_id
        WHERE m.gaming_date = ?
        GROUP BY ALL ORDER BY m.table_id, r.started_at, r.round_number""",
        [day],
    )
    found = _dealer_frame(
        ledger,
        dealer_id,
        """
        SELECT e.exception_id, e.severity, e.code, e.table_id, e.round_id, e.seat,
               e.patron_id, e.message
        FROM mine m JOIN exceptions e
          ON e.table_id = m.table_id AND e.gaming_date = m.gaming_date AND e.round_id = m.round_id
        WHERE m.gaming_date = ?
        ORDER BY e.severity_rank DESC, e.table_id, e.round_id, e.code""",
        [day],
    )
    return DealerDay(rounds, found)


def dealer_rates(ledger: Ledger) -> pd.DataFrame:
    """Every dealer's rounds dealt and the exceptions in them, across every gaming day: the
    peers a dealer's rate is read against."""
    dealt, params = _dealt(ledger)
    return frame(
        ledger,
        f"""
        WITH {dealt}
        SELECT d.dealer_id, count(DISTINCT d.table_id || '/' || d.round_id) AS rounds,
               count(e.exception_id) AS exceptions
        FROM dealt d LEFT JOIN exceptions e
          ON e.table_id = d.table_id AND e.gaming_date = d.gaming_date AND e.round_id = d.round_id
        WHERE d.dealer_id IS NOT NULL
        GROUP BY d.dealer_id ORDER BY d.dealer_id""",
        params,
    )


def patron_rounds(ledger: Ledger, patron_id: str) -> pd.DataFrame:
    """Every round a patron wagered on, every day's, in the order played: its start
    (``started_at``, microseconds since the epoch, UTC), the stakes and the net result the
    recorded settlements gave the patron (winnings paid less losing stakes, before
    vigorish, as :func:`patron_days`)."""
    return frame(
        ledger,
        """
        SELECT s.gaming_date, s.table_id, s.round_id, min(r.started_at) AS started_at,
               sum(s.stake_cents)::BIGINT AS stake_cents,
               sum(CASE s.recorded_result WHEN 'WIN' THEN s.recorded_paid_cents
                   WHEN 'LOSE' THEN -s.stake_cents ELSE 0 END)::BIGINT AS net_cents
        FROM settlements s LEFT JOIN rounds r
          ON r.table_id = s.table_id AND r.gaming_date = s.gaming_date AND r.round_id = s.round_id
        WHERE s.patron_id = ?
        GROUP BY s.gaming_date, s.table_id, s.round_id
        ORDER BY started_at NULLS LAST, s.gaming_date, s.table_id, s.round_id""",
        [patron_id],
    )
