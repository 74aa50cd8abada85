"""A gaming day's outcomes: how its rounds came out (what the statistics test against the
odds) and what the house won, round by round and by wager. Money stays in integer cents."""

from __future__ import annotations

from datetime import date

import pandas as pd

from pipeline.ledger.snapshots import frame
from pipeline.ledger.store import Ledger


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


def win_by_wager(ledger: Ledger, day: date) -> pd.DataFrame:
    """A day's win per table and wager type, recorded against expected, by pit."""
    return frame(
        ledger,
        "SELECT w.table_id, s.pit, w.wager, w.recorded_win_cents, w.expected_win_cents, "
        "w.recorded_win_cents - w.expected_win_cents AS difference_cents FROM table_day_win w "
        "JOIN table_day_summary s USING (table_id, gaming_date) WHERE w.gaming_date = ? "
        "ORDER BY s.pit, w.table_id, w.wager",
        [day],
    )
