"""A round's play: its row with its table-day's game, rules, pit and dealer, its cards, and
every wager with its expected and recorded settlement; and the cards and settlements a
false-shuffle exception needs across rounds. Money stays in integer cents."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

import pandas as pd

from pipeline.ledger.snapshots import frame
from pipeline.ledger.store import Ledger


def round_row(ledger: Ledger, round_id: str) -> dict[str, Any] | None:
    """A round's row with its table-day's game, rules, pit and dealer (the latest day's when
    the id recurs); ``None``: no such round."""
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
    """A round's cards in the order dealt."""
    return frame(
        ledger,
        "SELECT position, rank, suit, hand, source_event_id FROM cards "
        "WHERE table_id = ? AND round_id = ? ORDER BY position",
        [table_id, round_id],
    )


def round_settlements(ledger: Ledger, table_id: str, round_id: str) -> pd.DataFrame:
    """Expected against recorded settlement of every wager of the round, with the vigorish
    the round's ledger shows for the seat."""
    return frame(
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


def cards_of_events(ledger: Ledger, event_ids: Sequence[str], shoe_id: str) -> pd.DataFrame:
    """The cards these events dealt, with their table, day, shoe and round: those of
    ``shoe_id`` first, each shoe's in the order dealt."""
    return frame(
        ledger,
        "SELECT table_id, gaming_date, shoe_id, position, rank, suit, round_id, hand "
        "FROM cards WHERE list_contains(?::VARCHAR[], source_event_id) "
        "ORDER BY shoe_id = ? DESC, position",
        [list(event_ids), shoe_id],
    )


def settled_bets(ledger: Ledger, day: date, table_id: str, rounds: Sequence[str]) -> pd.DataFrame:
    """Every wager settled on these rounds of a table-day: who, where, how much, and how it
    ended (the expected settlement)."""
    return frame(
        ledger,
        "SELECT round_id, seat, patron_id, wager, stake_cents, expected_result AS result, "
        "expected_paid_cents AS paid_cents FROM settlements "
        "WHERE gaming_date = ? AND table_id = ? AND list_contains(?::VARCHAR[], round_id) "
        "ORDER BY round_id, seat, wager",
        [day, table_id, list(rounds)],
    )
