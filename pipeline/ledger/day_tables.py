"""A gaming day's tables, shoes and rounds: which days the ledger holds, each table-day's
summary, the shoes of a table-day and their rounds. Times stay microseconds since the epoch
(``started_at``); the reader turns them into timestamps."""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd

from pipeline.ledger.snapshots import frame
from pipeline.ledger.store import Ledger


def gaming_dates(ledger: Ledger) -> list[date]:
    """The gaming days the ledger holds, the latest first."""
    df = frame(ledger, "SELECT DISTINCT gaming_date FROM table_day_summary ORDER BY 1 DESC")
    return [pd.Timestamp(d).date() for d in df["gaming_date"]]


def table_days(ledger: Ledger, day: date) -> pd.DataFrame:
    """A day's tables with their pit, game, rules, location and dealer."""
    return frame(
        ledger,
        "SELECT table_id, pit, game, rules_id, location, dealer_id FROM table_day_summary "
        "WHERE gaming_date = ? ORDER BY table_id",
        [day],
    )


def shoes(ledger: Ledger, day: date, table_id: str) -> list[str]:
    """A table-day's shoes, in the order their first round started."""
    df = frame(
        ledger,
        "SELECT shoe_id FROM rounds WHERE gaming_date = ? AND table_id = ? GROUP BY shoe_id "
        "ORDER BY min(started_at)",
        [day, table_id],
    )
    return [str(s) for s in df["shoe_id"]]


def rounds(ledger: Ledger, day: date, table_id: str, shoe_id: str | None = None) -> pd.DataFrame:
    """A table-day's rounds (of one shoe, when given), in the order they started."""
    sql = (
        "SELECT round_id, shoe_id, round_number, simulated, status, player_cards, banker_cards, "
        "player_points, banker_points, winner, total_cards, is_natural, dragon_7, announced, "
        "started_at FROM rounds WHERE gaming_date = ? AND table_id = ?"
    )
    params: list[Any] = [day, table_id]
    if shoe_id:
        sql += " AND shoe_id = ?"
        params.append(shoe_id)
    return frame(ledger, sql + " ORDER BY started_at, round_number", params)
