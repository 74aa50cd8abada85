"""Every read the dashboards make, as plain functions of a read-only ledger (no Streamlit here,
so they are tested and benchmarked directly). Money stays in integer cents."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from dashboards.source import frame
from pipeline.bundle.acks import ACKNOWLEDGE, ASSIGN, AckJournal
from pipeline.ledger import exceptions as ledger_exceptions
from pipeline.ledger.store import Ledger
from pipeline.reports.close import BLOCKING_RANK
from pipeline.reports.verify import check
from pipeline.rules.codes import PATTERN_CODES, RULE_CODES

SEVERITIES = ("CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO")
STATUSES = ("OPEN", "ESCALATED", "ACKNOWLEDGED")


def micros_to_datetime(micros: Any) -> datetime | None:
    if micros is None or pd.isna(micros):
        return None
    return datetime.fromtimestamp(int(micros) / 1_000_000, tz=UTC)


def micros_series(values: pd.Series) -> pd.Series:
    """Microseconds since the epoch as timezone-aware UTC timestamps."""
    return pd.to_datetime(values.astype("Int64"), unit="us", utc=True)


# ---------------------------------------------------------------------- days and tables
def gaming_dates(ledger: Ledger) -> list[date]:
    df = frame(ledger, "SELECT DISTINCT gaming_date FROM table_day_summary ORDER BY 1 DESC")
    return [pd.Timestamp(d).date() for d in df["gaming_date"]]


def table_days(ledger: Ledger, day: date) -> pd.DataFrame:
    return frame(
        ledger,
        "SELECT table_id, pit, game, rules_id, location, dealer_id FROM table_day_summary "
        "WHERE gaming_date = ? ORDER BY table_id",
        [day],
    )


# ---------------------------------------------------------------------- acknowledgements
def ack_history(
    ledger: Ledger, journal: AckJournal, exception_ids: Sequence[str] | None = None
) -> pd.DataFrame:
    """Every acknowledgement and assignment, from the ledger's table and from the journal,
    oldest first; the journal's only when it verifies (a forged line must not change a status
    or a holder). ``assignee``: who an ASSIGN record hands the exception to (the ledger's
    table holds no assignments)."""
    return with_journal(stored_acks(ledger), journal, exception_ids)


def stored_acks(ledger: Ledger) -> pd.DataFrame:
    """The acknowledgements the ledger's own table holds, as :func:`ack_history` rows."""
    stored = frame(
        ledger,
        "SELECT exception_id, action, note, actor, acted_at FROM acknowledgements",
    )
    stored["actor_source"] = "ledger"
    stored["recorded_in"] = "ledger"
    stored["assignee"] = None
    stored["acted_at"] = pd.to_datetime(stored["acted_at"], utc=True)
    return stored


def with_journal(
    stored: pd.DataFrame, journal: AckJournal, exception_ids: Sequence[str] | None = None
) -> pd.DataFrame:
    """:func:`ack_history` from the ledger's acknowledgements (:func:`stored_acks`) read
    before, so that a page can keep them for a snapshot and read only the journal."""
    records = [] if journal.verify() else journal.records()
    journaled = pd.DataFrame(
        {
            "exception_id": [r.exception_id for r in records],
            "action": [r.action for r in records],
            "note": [r.note for r in records],
            "actor": [r.actor for r in records],
            "acted_at": pd.to_datetime([r.acted_at for r in records], utc=True),
            "actor_source": [r.actor_source for r in records],
            "recorded_in": ["journal"] * len(records),
            "assignee": [r.assignee for r in records],
        }
    )
    parts = [df for df in (stored, journaled) if not df.empty]
    if not parts:
        return journaled
    both = pd.concat(parts, ignore_index=True)
    # a journal record imported into the ledger appears in both: keep the journal's
    both = both.sort_values("recorded_in").drop_duplicates(
        ["exception_id", "action", "note", "actor", "acted_at"], keep="last"
    )
    if exception_ids is not None:
        both = both[both["exception_id"].isin(list(exception_ids))]
    return both.sort_values("acted_at", kind="stable").reset_index(drop=True)


def ack_status(history: pd.DataFrame) -> dict[str, str]:
    """OPEN/ESCALATED/ACKNOWLEDGED per exception id by its most recent acknowledgement or
    escalation (an assignment changes who holds it, not its status)."""
    status: dict[str, str] = {}
    for exception_id, action in zip(history["exception_id"], history["action"], strict=True):
        if action != ASSIGN:
            status[str(exception_id)] = "ACKNOWLEDGED" if action == ACKNOWLEDGE else "ESCALATED"
    return status


def assignments(history: pd.DataFrame) -> pd.DataFrame:
    """The assignments of an :func:`ack_history`, oldest first."""
    return history[history["action"] == ASSIGN]


def holders(history: pd.DataFrame) -> dict[str, str]:
    """Who holds each assigned exception: the assignee of its most recent assignment."""
    assigned = assignments(history)
    return dict(zip(assigned["exception_id"].astype(str), assigned["assignee"], strict=True))


# ---------------------------------------------------------------------- exceptions
@dataclass
class ExceptionFilter:
    tables: list[str] = field(default_factory=list)
    pits: list[str] = field(default_factory=list)
    severities: list[str] = field(default_factory=list)
    codes: list[str] = field(default_factory=list)
    dealers: list[str] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)
    held_by: str | None = None
    """Only the exceptions this person holds; ``""``: only those nobody holds."""
    start: datetime | None = None
    end: datetime | None = None

    def apply(self, df: pd.DataFrame) -> pd.DataFrame:
        mask = pd.Series(True, index=df.index)
        for column, wanted in (
            ("table_id", self.tables),
            ("pit", self.pits),
            ("severity", self.severities),
            ("code", self.codes),
            ("dealer_id", self.dealers),
            ("status", self.statuses),
        ):
            if wanted:
                mask &= df[column].isin(wanted)
        if self.held_by is not None:
            mask &= df["held_by"].fillna("") == self.held_by
        if self.start is not None:
            mask &= df["occurred"] >= pd.Timestamp(self.start)
        if self.end is not None:
            mask &= df["occurred"] <= pd.Timestamp(self.end)
        return df[mask]


def exceptions(ledger: Ledger, day: date, journal: AckJournal) -> pd.DataFrame:
    """Every exception of a gaming day with its pit, dealer, first evidence time, citation,
    rule statement, acknowledgement status and holder; most severe first."""
    df = exception_rows(ledger, day)
    return with_status(df, ack_history(ledger, journal, list(df["exception_id"])))


def exception_rows(ledger: Ledger, day: date) -> pd.DataFrame:
    """:func:`exceptions` without what the acknowledgements say: what the ledger alone holds,
    the same for a snapshot whatever is acknowledged later (so a page can cache it)."""
    df = frame(ledger, ledger_exceptions.day_rows().sql, [day, day, day])
    df["occurred"] = micros_series(df["occurred_at"])
    df["statement"] = [RULE_CODES[c].statement if c in RULE_CODES else "" for c in df["code"]]
    return df


def with_status(rows: pd.DataFrame, history: pd.DataFrame) -> pd.DataFrame:
    """:func:`exception_rows` with each one's status, holder and whether it blocks the close,
    by the acknowledgements and assignments of ``history`` (:func:`ack_history`)."""
    status, held = ack_status(history), holders(history)
    df = rows.assign(
        status=[status.get(e, "OPEN") for e in rows["exception_id"]],
        held_by=[held.get(e) for e in rows["exception_id"]],
    )
    df["blocking"] = (df["severity_rank"] >= BLOCKING_RANK) & (df["status"] != "ACKNOWLEDGED")
    return df.reset_index(drop=True)


def evidence(ledger: Ledger, table_id: str, event_ids: Sequence[str]) -> pd.DataFrame:
    """The stored deliveries of these events: what the devices said, in order."""
    if not event_ids:
        return pd.DataFrame(
            columns=["payload_type", "device_id", "seq", "occurred", "fields", "event_id"]
        )
    df = frame(
        ledger,
        "SELECT payload_type, device_id, seq, occurred_at, fields_json AS fields, event_id, "
        "source, position FROM deliveries WHERE table_id = ? AND "
        "list_contains(?::VARCHAR[], event_id) ORDER BY occurred_at, device_id, seq, position",
        [table_id, list(event_ids)],
    )
    df.insert(3, "occurred", micros_series(df["occurred_at"]))
    return df.drop(columns=["occurred_at"])


# ---------------------------------------------------------------------- table board
def table_board(ledger: Ledger, day: date, journal: AckJournal) -> pd.DataFrame:
    df = frame(
        ledger,
        """
        WITH shoes AS (
            SELECT table_id, json_extract_string(fields_json, '$.shoe_id') AS shoe_id,
                   TRY_CAST(json_extract(fields_json, '$.cards_in_shoe') AS INTEGER)
                       AS cards_in_shoe,
                   TRY_CAST(json_extract(fields_json, '$.decks') AS INTEGER) AS decks,
                   occurred_at
            FROM deliveries WHERE gaming_date = ? AND payload_type = 'ShoeStarted'
            QUALIFY row_number() OVER (PARTITION BY table_id ORDER BY occurred_at DESC, seq DESC)
                    = 1
        ), ended AS (
            SELECT DISTINCT table_id, json_extract_string(fields_json, '$.shoe_id') AS shoe_id
            FROM deliveries WHERE gaming_date = ? AND payload_type = 'ShoeEnded'
        ), dealt AS (
            SELECT table_id, shoe_id, max(position) + 1 AS cards_dealt FROM cards
            WHERE gaming_date = ? GROUP BY ALL
        ), shoe_rounds AS (
            SELECT table_id, shoe_id, count(*) FILTER (WHERE NOT simulated) AS shoe_rounds
            FROM rounds WHERE gaming_date = ? GROUP BY ALL
        ), win AS (
            SELECT table_id, sum(recorded_win_cents) AS recorded_win_cents
            FROM table_day_win WHERE gaming_date = ? GROUP BY ALL
        )
        SELECT s.table_id, s.pit, s.game, s.rules_id, s.dealer_id, s.shoes, s.rounds,
               sh.shoe_id AS current_shoe, sh.decks, sh.cards_in_shoe,
               coalesce(d.cards_dealt, 0) AS cards_dealt, coalesce(sr.shoe_rounds, 0)
                   AS shoe_rounds, e.shoe_id IS NOT NULL AS shoe_ended,
               s.handle_cents, coalesce(w.recorded_win_cents, 0) + s.vig_collected_cents
                   AS win_cents, s.exceptions
        FROM table_day_summary s
        LEFT JOIN shoes sh USING (table_id)
        LEFT JOIN ended e ON e.table_id = s.table_id AND e.shoe_id = sh.shoe_id
        LEFT JOIN dealt d ON d.table_id = s.table_id AND d.shoe_id = sh.shoe_id
        LEFT JOIN shoe_rounds sr ON sr.table_id = s.table_id AND sr.shoe_id = sh.shoe_id
        LEFT JOIN win w ON w.table_id = s.table_id
        WHERE s.gaming_date = ? ORDER BY s.pit, s.table_id""",
        [day, day, day, day, day, day],
    )
    df["shoe_progress"] = [
        min(1.0, dealt / total) if total else 0.0
        for dealt, total in zip(df["cards_dealt"], df["cards_in_shoe"].fillna(0), strict=True)
    ]
    df["hold_pct"] = [
        round(100 * w / h, 3) if h else None
        for w, h in zip(df["win_cents"], df["handle_cents"], strict=True)
    ]
    ex = exceptions(ledger, day, journal)
    open_ex = ex[ex["status"] != "ACKNOWLEDGED"]
    counts = open_ex.groupby("table_id").size()
    critical = open_ex[open_ex["severity"] == "CRITICAL"].groupby("table_id").size()
    df["open_exceptions"] = [int(counts.get(t, 0)) for t in df["table_id"]]
    df["open_critical"] = [int(critical.get(t, 0)) for t in df["table_id"]]
    return df


# ---------------------------------------------------------------------- rounds
def shoes(ledger: Ledger, day: date, table_id: str) -> list[str]:
    df = frame(
        ledger,
        "SELECT shoe_id FROM rounds WHERE gaming_date = ? AND table_id = ? GROUP BY shoe_id "
        "ORDER BY min(started_at)",
        [day, table_id],
    )
    return [str(s) for s in df["shoe_id"]]


def rounds(ledger: Ledger, day: date, table_id: str, shoe_id: str | None = None) -> pd.DataFrame:
    sql = (
        "SELECT round_id, shoe_id, round_number, simulated, status, player_cards, banker_cards, "
        "player_points, banker_points, winner, total_cards, is_natural, dragon_7, announced, "
        "started_at FROM rounds WHERE gaming_date = ? AND table_id = ?"
    )
    params: list[Any] = [day, table_id]
    if shoe_id:
        sql += " AND shoe_id = ?"
        params.append(shoe_id)
    df = frame(ledger, sql + " ORDER BY started_at, round_number", params)
    df["started"] = micros_series(df["started_at"])
    return df


def first_exception_round(ledger: Ledger, day: date) -> tuple[str, str, str] | None:
    """(table, shoe, round) of the day's most severe exception that names a round, the
    earliest first: where an analyst opening the round page without a choice starts."""
    df = frame(ledger, *ledger_exceptions.first_round(day))
    if df.empty:
        return None
    row = df.iloc[0]
    return str(row["table_id"]), str(row["shoe_id"]), str(row["round_id"])


def rounds_with_exceptions(ledger: Ledger, day: date, table_id: str) -> set[str]:
    """The rounds of a table-day that have at least one exception."""
    df = frame(ledger, *ledger_exceptions.rounds_of_table_day(day, table_id))
    return {str(r) for r in df["round_id"]}


def round_row(ledger: Ledger, round_id: str) -> dict[str, Any] | None:
    df = frame(
        ledger,
        "SELECT r.*, s.game, s.rules_id, s.pit, s.dealer_id FROM rounds r "
        "LEFT JOIN table_day_summary s USING (table_id, gaming_date) WHERE r.round_id = ? "
        "ORDER BY r.gaming_date DESC LIMIT 1",
        [round_id],
    )
    if df.empty:
        return None
    row: dict[str, Any] = df.iloc[0].to_dict()
    return row


def round_cards(ledger: Ledger, table_id: str, round_id: str) -> pd.DataFrame:
    return frame(
        ledger,
        "SELECT position, rank, suit, hand, source_event_id FROM cards "
        "WHERE table_id = ? AND round_id = ? ORDER BY position",
        [table_id, round_id],
    )


def round_settlements(ledger: Ledger, table_id: str, round_id: str) -> pd.DataFrame:
    """Expected against recorded settlement of every wager of the round, with the vigorish
    the round's ledger shows for the seat."""
    df = frame(
        ledger,
        """
        WITH vig AS (
            SELECT seat, sum(amount_cents) FILTER (WHERE kind = 'COLLECTED') AS vig_collected,
                   sum(amount_cents) FILTER (WHERE kind = 'DEFERRED') AS vig_deferred
            FROM vig_ledger WHERE table_id = ? AND round_id = ? GROUP BY seat
        )
        SELECT w.seat, w.patron_id, w.wager, w.amount_cents AS stake_cents, w.late,
               s.expected_result, s.expected_paid_cents, s.expected_vig_cents,
               s.recorded_result, s.recorded_paid_cents, s.rule_code,
               v.vig_collected, v.vig_deferred
        FROM wagers w
        LEFT JOIN settlements s ON s.table_id = w.table_id AND s.round_id = w.round_id
             AND s.seat = w.seat AND s.wager = w.wager
        LEFT JOIN vig v ON v.seat = w.seat AND w.wager = 'BANKER'
        WHERE w.table_id = ? AND w.round_id = ?
        ORDER BY w.seat, w.wager""",
        [table_id, round_id, table_id, round_id],
    )
    df["matches"] = (df["expected_result"] == df["recorded_result"]) & (
        df["expected_paid_cents"] == df["recorded_paid_cents"]
    )
    return df


def round_exceptions(ledger: Ledger, table_id: str, round_id: str) -> pd.DataFrame:
    return frame(ledger, *ledger_exceptions.of_round(table_id, round_id))


def round_events(ledger: Ledger, table_id: str, round_id: str) -> pd.DataFrame:
    df = frame(
        ledger,
        "SELECT payload_type, device_id, seq, occurred_at, fields_json AS fields, event_id, "
        "source, position FROM deliveries WHERE table_id = ? AND "
        "json_extract_string(fields_json, '$.round_id') = ? ORDER BY occurred_at, seq, position",
        [table_id, round_id],
    )
    df.insert(3, "occurred", micros_series(df["occurred_at"]))
    return df.drop(columns=["occurred_at"])


# ---------------------------------------------------------------------- statistics input
def outcome_counts(ledger: Ledger, day: date) -> pd.DataFrame:
    """Banker/Player/Tie and natural counts per table and shoe (complete, dealt rounds),
    with the shoe's deck count and the table's rules."""
    return frame(
        ledger,
        """
        WITH decks AS (
            SELECT table_id, json_extract_string(fields_json, '$.shoe_id') AS shoe_id,
                   max(TRY_CAST(json_extract(fields_json, '$.decks') AS INTEGER)) AS decks
            FROM deliveries WHERE gaming_date = ? AND payload_type = 'ShoeStarted' GROUP BY ALL
        )
        SELECT r.table_id, r.shoe_id, s.rules_id, s.game, d.decks,
               count(*) AS rounds,
               count(*) FILTER (WHERE winner = 'BANKER') AS banker,
               count(*) FILTER (WHERE winner = 'PLAYER') AS player,
               count(*) FILTER (WHERE winner = 'TIE') AS tie,
               count(*) FILTER (WHERE is_natural) AS naturals
        FROM rounds r JOIN table_day_summary s USING (table_id, gaming_date)
        LEFT JOIN decks d ON d.table_id = r.table_id AND d.shoe_id = r.shoe_id
        WHERE r.gaming_date = ? AND NOT r.simulated AND r.status = 'COMPLETE'
              AND r.winner IS NOT NULL
        GROUP BY ALL ORDER BY r.table_id, min(r.started_at)""",
        [day, day],
    )


def round_results(ledger: Ledger, day: date) -> pd.DataFrame:
    """Per complete round and wager type: stakes and the house's recorded result (settled
    stakes and payouts plus vigorish collected or marked in the round)."""
    return frame(
        ledger,
        """
        WITH settled AS (
            SELECT table_id, round_id, wager, sum(stake_cents) AS stake_cents,
                   sum(CASE recorded_result WHEN 'LOSE' THEN stake_cents
                        WHEN 'WIN' THEN -recorded_paid_cents ELSE 0 END) AS game_win_cents
            FROM settlements WHERE gaming_date = ? GROUP BY ALL
        ), vig AS (
            SELECT table_id, round_id, sum(amount_cents) AS vig_cents FROM vig_ledger
            WHERE gaming_date = ? AND kind IN ('COLLECTED', 'DEFERRED') AND round_id IS NOT NULL
            GROUP BY ALL
        )
        SELECT r.table_id, r.shoe_id, r.round_id, s.rules_id, st.wager, st.stake_cents,
               st.game_win_cents, coalesce(v.vig_cents, 0) AS round_vig_cents
        FROM rounds r
        JOIN table_day_summary s USING (table_id, gaming_date)
        JOIN settled st ON st.table_id = r.table_id AND st.round_id = r.round_id
        LEFT JOIN vig v ON v.table_id = r.table_id AND v.round_id = r.round_id
        WHERE r.gaming_date = ? AND r.status = 'COMPLETE' AND NOT r.simulated
        ORDER BY r.table_id, r.started_at, st.wager""",
        [day, day, day],
    )


# ---------------------------------------------------------------------- accounting
def win_by_wager(ledger: Ledger, day: date) -> pd.DataFrame:
    return frame(
        ledger,
        "SELECT w.table_id, s.pit, w.wager, w.recorded_win_cents, w.expected_win_cents, "
        "w.recorded_win_cents - w.expected_win_cents AS difference_cents FROM table_day_win w "
        "JOIN table_day_summary s USING (table_id, gaming_date) WHERE w.gaming_date = ? "
        "ORDER BY s.pit, w.table_id, w.wager",
        [day],
    )


def gaming_day_status(ledger: Ledger, day: date) -> dict[str, Any] | None:
    df = frame(ledger, "SELECT * FROM gaming_days WHERE gaming_date = ?", [day])
    if df.empty:
        return None
    row: dict[str, Any] = df.iloc[0].to_dict()
    return row


_ANOTHER_DAY = re.compile(r"\d{4}-\d{2}-\d{2}:")


def close_problems(
    ledger: Ledger, day: date, journal: AckJournal, place: Path | None = None
) -> list[str]:
    """What no longer matches the close of ``day`` (empty: intact), by ``verify``'s own
    checks (:func:`pipeline.reports.verify.check`): the day's problems and those of the
    record as a whole (the seal log, the anchor file, the journal), never another day's."""
    own = f"{day.isoformat()}:"
    return [
        p
        for p in check(ledger, journal=journal, place=place).problems
        if p.startswith(own) or not _ANOTHER_DAY.match(p)
    ]


def previous_chain(ledger: Ledger, day: date) -> str | None:
    df = frame(
        ledger,
        "SELECT chain_sha256 FROM gaming_days WHERE gaming_date < ? AND chain_sha256 IS NOT "
        "NULL ORDER BY gaming_date DESC LIMIT 1",
        [day],
    )
    return None if df.empty else str(df.iloc[0, 0])


@dataclass
class FormRegister:
    series: pd.DataFrame
    forms: pd.DataFrame
    missing: pd.DataFrame
    unmatched: pd.DataFrame


def form_register(ledger: Ledger, day: date, tables: Sequence[str] = ()) -> FormRegister:
    where = " AND table_id IN (SELECT unnest(?::VARCHAR[]))" if tables else ""
    params: list[Any] = [day, list(tables)] if tables else [day]
    series = frame(
        ledger,
        "SELECT table_id, first_serial, last_serial, used, voided, "
        "last_serial - first_serial + 1 AS size FROM form_series WHERE gaming_date = ?"
        + where
        + " ORDER BY table_id, first_serial",
        params,
    )
    forms = frame(
        ledger,
        "SELECT table_id, serial, status, amount_cents, patron_name, patron_id, pit, "
        "table_location, dealer_signature, pit_boss_signature, pit_clerk_signature, "
        "patron_signature, signature_missing_reason, marked_void FROM comp_vig_forms "
        "WHERE gaming_date = ?" + where + " ORDER BY table_id, serial",
        params,
    )
    missing = frame(
        ledger,
        """
        WITH used AS (SELECT table_id, serial FROM comp_vig_forms WHERE gaming_date = ?),
        bounds AS (
            SELECT s.table_id, s.first_serial, max(u.serial) AS highest
            FROM form_series s JOIN used u ON u.table_id = s.table_id
                 AND u.serial BETWEEN s.first_serial AND s.last_serial
            WHERE s.gaming_date = ? GROUP BY ALL
        )
        SELECT b.table_id, g.serial FROM bounds b,
               LATERAL (SELECT unnest(range(b.first_serial, b.highest + 1)) AS serial) g
        WHERE NOT EXISTS (SELECT 1 FROM used u WHERE u.table_id = b.table_id
                          AND u.serial = g.serial)
        ORDER BY ALL""",
        [day, day],
    )
    if tables:
        missing = missing[missing["table_id"].isin(list(tables))]
    unmatched = frame(
        ledger,
        "SELECT table_id, serial, kind, amount_cents, patron_name, marked_void FROM form_events "
        "WHERE gaming_date = ? AND NOT matched" + where + " ORDER BY table_id, serial, kind",
        params,
    )
    return FormRegister(series, forms, missing.reset_index(drop=True), unmatched)


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
    round_sql = f"""
        WITH names AS ({names}),
        dealers AS (
            SELECT table_id, json_extract_string(fields_json, '$.round_id') AS round_id,
                   max(json_extract_string(fields_json, '$.dealer_id')) AS dealer_id
            FROM deliveries WHERE payload_type = 'RoundStarted' GROUP BY ALL
        ),
        patrons AS (
            SELECT w.table_id, w.round_id, string_agg(DISTINCT w.patron_id, ', ') AS patrons,
                   sum(w.amount_cents) AS handle_cents
            FROM wagers w LEFT JOIN names n ON n.patron_id = w.patron_id
            WHERE ?::VARCHAR IS NULL OR w.patron_id ILIKE ? OR n.patron_name ILIKE ?
            GROUP BY ALL
        )
        , matched AS (
        SELECT r.gaming_date, r.table_id, r.round_id, r.started_at, r.winner,
               r.player_cards, r.banker_cards, coalesce(d.dealer_id, s.dealer_id) AS dealer_id,
               p.patrons, p.handle_cents,
               {ledger_exceptions.ROUND_COUNT_SQL} AS exceptions
        FROM rounds r
        JOIN table_day_summary s USING (table_id, gaming_date)
        LEFT JOIN dealers d ON d.table_id = r.table_id AND d.round_id = r.round_id
        {"JOIN" if patron else "LEFT JOIN"} patrons p
             ON p.table_id = r.table_id AND p.round_id = r.round_id
        WHERE (?::VARCHAR IS NULL OR r.table_id = ?)
          AND (?::VARCHAR IS NULL OR coalesce(d.dealer_id, s.dealer_id) ILIKE ?)
          AND (?::BIGINT IS NULL OR r.started_at >= ?)
          AND (?::BIGINT IS NULL OR r.started_at <= ?)
          AND ?::BIGINT IS NULL
        )"""
    table = query.table_id or None
    dealer = f"%{query.dealer.strip()}%" if query.dealer.strip() else None
    round_params = [
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
    rounds_df["started"] = micros_series(rounds_df["started_at"])
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
class Trail:
    """Raw events → derived rows → exceptions → acknowledgements of one round or Form."""

    events: pd.DataFrame
    derived: dict[str, pd.DataFrame]
    exceptions: pd.DataFrame
    acknowledgements: pd.DataFrame


def trail(
    ledger: Ledger,
    journal: AckJournal,
    *,
    round_id: str | None = None,
    serial: int | None = None,
) -> Trail:
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
        f"fields_json FROM deliveries WHERE ({event_where}) OR "
        "list_contains(?::VARCHAR[], event_id) ORDER BY occurred_at, seq, position",
        [event_param, sorted(referenced)],
    )
    events.insert(7, "occurred", micros_series(events["occurred_at"]))
    acks = ack_history(ledger, journal, [str(e) for e in ex["exception_id"]])
    return Trail(events, derived, ex, acks)


def fields_text(fields_json: str) -> str:
    """An event's fields as ``name=value`` pairs, nulls left out."""
    try:
        fields = json.loads(fields_json)
    except (TypeError, ValueError):
        return str(fields_json)
    return ", ".join(f"{k}={v}" for k, v in fields.items() if v is not None)


def exception_tables(ledger: Ledger, day: date) -> pd.DataFrame:
    """Each exception of a gaming day with its table, round and severity (what the table
    board needs to mark the new ones)."""
    return frame(ledger, *ledger_exceptions.tables_of_day(day))


def announced_exceptions(ledger: Ledger, day: date) -> set[str] | None:
    """The exceptions of a gaming day the live feed announced and has not withdrawn (their
    latest notice is RAISED, :mod:`pipeline.ledger.notices`); ``None`` when the day has no
    notices from the live feed (a ledger loaded from files, or from before the live feed),
    where every exception counts. The stream's ledger also holds the exceptions of each
    table's round in play, which the next events may explain: only announced ones are news.
    The pattern stage announces its own findings on any ledger, so its notices alone do not
    make a day streamed."""
    if not _has_notices(ledger):
        return None
    latest = frame(
        ledger,
        "SELECT exception_id, arg_max(state, notice_seq) AS state, "
        "bool_or(NOT list_contains(?::VARCHAR[], code)) AS live "
        "FROM exception_notices WHERE gaming_date = ? GROUP BY exception_id",
        [sorted(PATTERN_CODES), day],
    )
    if not latest["live"].any():
        return None
    return set(latest.loc[latest["state"] == "RAISED", "exception_id"].astype(str))


def day_notices(ledger: Ledger, day: date) -> pd.DataFrame:
    """Every exception notice of a gaming day the ledger holds (its outbox,
    :mod:`pipeline.ledger.notices`): what the live feed's notices are checked against
    (:func:`dashboards.feed.reconcile`). Empty on a ledger from before the outbox."""
    columns = "exception_id, notice_seq, state, code, severity, table_id, message"
    if not _has_notices(ledger):
        return pd.DataFrame(columns=columns.split(", "))
    return frame(
        ledger,
        f"SELECT {columns} FROM exception_notices WHERE gaming_date = ? ORDER BY notice_seq",
        [day],
    )


def exception_whereabouts(ledger: Ledger, exception_id: str) -> tuple[date | None, str | None]:
    """Where a linked exception went: the gaming day that holds it (``None``: no day does),
    and, if the live feed withdrew it, when (UTC, ISO) and on which gaming day."""
    held = frame(ledger, *ledger_exceptions.first_day_of(exception_id))
    day = held["day"].iloc[0]
    withdrawn: str | None = None
    if _has_notices(ledger):
        last = frame(
            ledger,
            "SELECT state, recorded_at, gaming_date FROM exception_notices "
            "WHERE exception_id = ? ORDER BY notice_seq DESC LIMIT 1",
            [exception_id],
        )
        if not last.empty and last["state"].iloc[0] == "WITHDRAWN":
            withdrawn = (
                f"{pd.Timestamp(last['recorded_at'].iloc[0]).isoformat(timespec='seconds')} "
                f"(gaming day {pd.Timestamp(last['gaming_date'].iloc[0]).date().isoformat()})"
            )
    return (None if pd.isna(day) else pd.Timestamp(day).date()), withdrawn


def _has_notices(ledger: Ledger) -> bool:
    """Whether the ledger has the live feed's outbox (a ledger from before it has not)."""
    exists = frame(
        ledger,
        "SELECT count(*) AS n FROM information_schema.tables "
        "WHERE table_name = 'exception_notices'",
    )
    return bool(int(exists["n"].iloc[0]))
