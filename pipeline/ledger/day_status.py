"""A gaming day's status: its row of ``gaming_days`` (closed, reopened, the hashes its close
chained) and the chain it follows."""

from __future__ import annotations

from datetime import date
from typing import Any

from pipeline.ledger.snapshots import frame
from pipeline.ledger.store import Ledger


def gaming_day_status(ledger: Ledger, day: date) -> dict[str, Any] | None:
    """A day's row of ``gaming_days`` (``None``: never closed)."""
    df = frame(ledger, "SELECT * FROM gaming_days WHERE gaming_date = ?", [day])
    if df.empty:
        return None
    row: dict[str, Any] = df.iloc[0].to_dict()
    return row


def previous_chain(ledger: Ledger, day: date) -> str | None:
    """The chain hash of the latest closed day before ``day`` (``None``: none is)."""
    df = frame(
        ledger,
        "SELECT chain_sha256 FROM gaming_days WHERE gaming_date < ? AND chain_sha256 IS NOT "
        "NULL ORDER BY gaming_date DESC LIMIT 1",
        [day],
    )
    return None if df.empty else str(df.iloc[0, 0])
