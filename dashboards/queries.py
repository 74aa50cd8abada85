"""Every read the dashboards make, as plain functions of a read-only ledger (no Streamlit here,
so they are tested and benchmarked directly). Money stays in integer cents.

The ledger answers the questions (:mod:`pipeline.ledger`: ``day_*``, ``round_*``,
:mod:`~pipeline.ledger.history`, :mod:`~pipeline.ledger.exceptions`); what is composed here
is what the dashboards add: times as timestamps, the acknowledgement journal, statuses and
rates. A question the ledger answers as the dashboards show it is re-exported as it is."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, tzinfo
from pathlib import Path
from typing import Any

import pandas as pd

from pipeline.bundle.acks import ASSIGN, STATUS_AFTER, AckJournal
from pipeline.ledger import day_board, day_tables, evidence_text, round_evidence, round_play
from pipeline.ledger import day_notices as ledger_notices
from pipeline.ledger import exceptions as ledger_exceptions
from pipeline.ledger import history as ledger_history
from pipeline.ledger.day_forms import form_register as form_register
from pipeline.ledger.day_outcomes import outcome_counts as outcome_counts
from pipeline.ledger.day_outcomes import round_results as round_results
from pipeline.ledger.day_outcomes import win_by_wager as win_by_wager
from pipeline.ledger.day_status import gaming_day_status as gaming_day_status
from pipeline.ledger.day_status import previous_chain as previous_chain
from pipeline.ledger.day_tables import gaming_dates as gaming_dates
from pipeline.ledger.day_tables import shoes as shoes
from pipeline.ledger.day_tables import table_days as table_days
from pipeline.ledger.history import SEARCH_PAGE as SEARCH_PAGE
from pipeline.ledger.history import SearchQuery as SearchQuery
from pipeline.ledger.history import SearchResult
from pipeline.ledger.round_play import round_cards as round_cards
from pipeline.ledger.round_play import round_row as round_row
from pipeline.ledger.snapshots import frame
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
    stored = ledger_history.acknowledgements(ledger)
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
            status[str(exception_id)] = STATUS_AFTER[action]
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
    df = frame(ledger, *ledger_exceptions.day_rows(ledger, day))
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
            columns=["payload_type", "device_id", "seq", "occurred", "what", "event_id"]
        )
    df = round_evidence.deliveries_of(ledger, table_id, event_ids)
    df.insert(3, "occurred", micros_series(df["occurred_at"]))
    return df.drop(columns=["occurred_at"])


def evidence_lines(
    ledger: Ledger, table_id: str, event_ids: Sequence[str], zone: tzinfo
) -> list[str]:
    """The evidence as lines a person reads, on ``zone``'s clock: the sum the events prove,
    then each event (:func:`pipeline.ledger.evidence_text.evidence_lines`)."""
    if not event_ids:
        return []
    return evidence_text.evidence_lines(
        round_evidence.cited_events(ledger, table_id, event_ids), zone
    )


# ---------------------------------------------------------------------- table board
def table_board(ledger: Ledger, day: date, journal: AckJournal) -> pd.DataFrame:
    """Per table of a gaming day: :func:`board_rows` with its open exceptions
    (:func:`with_open_exceptions`)."""
    return with_open_exceptions(board_rows(ledger, day), exceptions(ledger, day, journal))


def board_rows(ledger: Ledger, day: date) -> pd.DataFrame:
    """Per table of a gaming day: its game, dealer, shoes, rounds, the last shoe's progress,
    handle, win and hold; what the ledger alone holds, the same for a snapshot whatever is
    acknowledged later (so a page can cache it)."""
    df = day_board.board(ledger, day)
    df["shoe_progress"] = [
        min(1.0, dealt / total) if total else 0.0
        for dealt, total in zip(df["cards_dealt"], df["cards_in_shoe"].fillna(0), strict=True)
    ]
    df["hold_pct"] = [
        round(100 * w / h, 3) if h else None
        for w, h in zip(df["win_cents"], df["handle_cents"], strict=True)
    ]
    return df


def with_open_exceptions(board: pd.DataFrame, exceptions: pd.DataFrame) -> pd.DataFrame:
    """``board`` (:func:`board_rows`) with each table's exceptions not acknowledged
    (``open_exceptions``) and the CRITICAL ones among them (``open_critical``), of
    ``exceptions`` with their status (:func:`with_status`)."""
    open_ex = exceptions[exceptions["status"] != "ACKNOWLEDGED"]
    counts = open_ex.groupby("table_id").size()
    critical = open_ex[open_ex["severity"] == "CRITICAL"].groupby("table_id").size()
    return board.assign(
        open_exceptions=[int(counts.get(t, 0)) for t in board["table_id"]],
        open_critical=[int(critical.get(t, 0)) for t in board["table_id"]],
    )


# ---------------------------------------------------------------------- rounds
def rounds(ledger: Ledger, day: date, table_id: str, shoe_id: str | None = None) -> pd.DataFrame:
    """A table-day's rounds (of one shoe, when given), with their start as a timestamp."""
    df = day_tables.rounds(ledger, day, table_id, shoe_id)
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


def round_settlements(ledger: Ledger, table_id: str, round_id: str) -> pd.DataFrame:
    """Expected against recorded settlement of every wager of the round, with the vigorish
    the round's ledger shows for the seat."""
    df = round_play.round_settlements(ledger, table_id, round_id)
    df["matches"] = (df["expected_result"] == df["recorded_result"]) & (
        df["expected_paid_cents"] == df["recorded_paid_cents"]
    )
    return df


def round_exceptions(ledger: Ledger, table_id: str, round_id: str) -> pd.DataFrame:
    return frame(ledger, *ledger_exceptions.of_round(table_id, round_id))


def round_events(ledger: Ledger, table_id: str, round_id: str) -> pd.DataFrame:
    """The deliveries naming a round (:func:`pipeline.ledger.round_evidence.round_events`),
    with their time as a timestamp."""
    df = round_evidence.round_events(ledger, table_id, round_id)
    df.insert(3, "occurred", micros_series(df["occurred_at"]))
    return df.drop(columns=["occurred_at"])


# ---------------------------------------------------------------------- accounting
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


# ---------------------------------------------------------------------- compliance search
def search(ledger: Ledger, query: SearchQuery) -> SearchResult:
    """Rounds, Forms and exceptions matching every given criterion
    (:func:`pipeline.ledger.history.search`), the rounds' start as a timestamp."""
    found = ledger_history.search(ledger, query)
    found.rounds["started"] = micros_series(found.rounds["started_at"])
    return found


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
    """What the ledger holds of a round or a Form (:func:`pipeline.ledger.history.trail`),
    event times as timestamps, with the acknowledgements of its exceptions."""
    rows = ledger_history.trail(ledger, round_id=round_id, serial=serial)
    rows.events.insert(7, "occurred", micros_series(rows.events["occurred_at"]))
    acks = ack_history(ledger, journal, [str(e) for e in rows.exceptions["exception_id"]])
    return Trail(rows.events, rows.derived, rows.exceptions, acks)


def announced_exceptions(ledger: Ledger, day: date) -> set[str] | None:
    """The exceptions of a gaming day the live feed announced and has not withdrawn (their
    latest notice is RAISED, :mod:`pipeline.ledger.notices`); ``None`` when the day has no
    notices from the live feed (a ledger loaded from files, or from before the live feed),
    where every exception counts. The stream's ledger also holds the exceptions of each
    table's round in play, which the next events may explain: only announced ones are news.
    The pattern stage announces its own findings on any ledger, so its notices alone do not
    make a day streamed."""
    if not ledger_notices.has_notices(ledger):
        return None
    latest = ledger_notices.latest_states(ledger, day, PATTERN_CODES)
    if not latest["live"].any():
        return None
    return set(latest.loc[latest["state"] == "RAISED", "exception_id"].astype(str))


def open_tables(ledger: Ledger, day: date) -> set[str]:
    """The tables of a gaming day whose last opening no closing followed yet
    (:func:`pipeline.ledger.day_board.floor_facts`)."""
    facts = day_board.floor_facts(ledger, day)
    return set(facts.loc[~facts["closed"].astype(bool), "table_id"].astype(str))


def in_play(rows: pd.DataFrame, announced: set[str] | None, open_at: Collection[str]) -> pd.Series:
    """Which exceptions of ``rows`` (:func:`exception_rows`) the live feed holds back at a
    table still open (``open_at``, :func:`open_tables`): on a streamed day (``announced``,
    :func:`announced_exceptions`, is not None) those not announced. They come only from
    ending the day now (the round in play, an open irregularity, the Forms' day-end checks)
    and the next events may explain them, so they come and go as the rounds are dealt: the
    queue's total wandered with no withdrawal. At a closed table nothing is held back for
    that reason: what the feed did not announce there (a Form whose copies have not
    arrived) stays listed."""
    if announced is None:
        return pd.Series(False, index=rows.index)
    ids = rows["exception_id"].astype(str)
    return ~ids.isin(announced) & rows["table_id"].astype(str).isin(set(open_at))


def day_notices(ledger: Ledger, day: date) -> pd.DataFrame:
    """Every exception notice of a gaming day the ledger holds (its outbox,
    :mod:`pipeline.ledger.notices`): what the live feed's notices are checked against
    (:func:`dashboards.feed.reconcile`). Empty on a ledger from before the outbox."""
    if not ledger_notices.has_notices(ledger):
        return pd.DataFrame(columns=list(ledger_notices.NOTICE_COLUMNS))
    return ledger_notices.notices_of_day(ledger, day)


def exception_whereabouts(ledger: Ledger, exception_id: str) -> tuple[date | None, str | None]:
    """Where a linked exception went: the gaming day that holds it (``None``: no day does),
    and, if the live feed withdrew it, when (UTC, ISO) and on which gaming day."""
    held = frame(ledger, *ledger_exceptions.first_day_of(exception_id))
    day = held["day"].iloc[0]
    withdrawn: str | None = None
    if ledger_notices.has_notices(ledger):
        last = ledger_notices.last_notice(ledger, exception_id)
        if not last.empty and last["state"].iloc[0] == "WITHDRAWN":
            withdrawn = (
                f"{pd.Timestamp(last['recorded_at'].iloc[0]).isoformat(timespec='seconds')} "
                f"(gaming day {pd.Timestamp(last['gaming_date'].iloc[0]).date().isoformat()})"
            )
    return (None if pd.isna(day) else pd.Timestamp(day).date()), withdrawn
