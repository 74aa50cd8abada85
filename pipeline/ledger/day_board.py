"""A gaming day's table board and floor: per table, its shoe in play (how far dealt, whether
it ended), its rounds, handle and win, and when it last reported and whether it closed."""

from __future__ import annotations

from datetime import date

import pandas as pd

from pipeline.ledger.snapshots import frame
from pipeline.ledger.store import Ledger


def board(ledger: Ledger, day: date) -> pd.DataFrame:
    """Per table of a day, by pit: its summary, its latest shoe (decks, cards in it, cards
    dealt from it, rounds played from it, whether it ended), handle and win (recorded win
    plus vigorish collected)."""
    return frame(
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


def floor_facts(ledger: Ledger, day: date) -> pd.DataFrame:
    """Per table of the gaming day: the time of its last event and whether its last
    opening was followed by a closing."""
    return frame(
        ledger,
        """
        SELECT table_id, max(occurred_at) AS last_event_at,
               coalesce(max(occurred_at) FILTER (WHERE payload_type = 'TableClosed')
                   >= max(occurred_at) FILTER (WHERE payload_type = 'TableOpened'), false)
                   AS closed
        FROM deliveries WHERE gaming_date = ? GROUP BY table_id""",
        [day],
    )
