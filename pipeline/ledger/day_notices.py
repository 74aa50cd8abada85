"""A gaming day's exception notices as the live feed's outbox holds them
(:mod:`pipeline.ledger.notices`): each exception's latest state, the day's notices in order,
and the last notice of one exception. A ledger from before the outbox has none
(:func:`has_notices`)."""

from __future__ import annotations

from collections.abc import Collection
from datetime import date

import pandas as pd

from pipeline.ledger.snapshots import frame
from pipeline.ledger.store import Ledger


def has_notices(ledger: Ledger) -> bool:
    """Whether the ledger has the live feed's outbox (a ledger from before it has not)."""
    exists = frame(
        ledger,
        "SELECT count(*) AS n FROM information_schema.tables "
        "WHERE table_name = 'exception_notices'",
    )
    return bool(int(exists["n"].iloc[0]))


def latest_states(ledger: Ledger, day: date, pattern_codes: Collection[str]) -> pd.DataFrame:
    """Per exception of a day with notices: the state of its latest notice and whether any
    of its notices came from the live feed (a code not among ``pattern_codes``)."""
    return frame(
        ledger,
        "SELECT exception_id, arg_max(state, notice_seq) AS state, "
        "bool_or(NOT list_contains(?::VARCHAR[], code)) AS live "
        "FROM exception_notices WHERE gaming_date = ? GROUP BY exception_id",
        [sorted(pattern_codes), day],
    )


NOTICE_COLUMNS = ("exception_id", "notice_seq", "state", "code", "severity", "table_id", "message")
"""The columns of :func:`notices_of_day`."""


def notices_of_day(ledger: Ledger, day: date) -> pd.DataFrame:
    """Every exception notice of a gaming day, in the order they were recorded."""
    return frame(
        ledger,
        f"SELECT {', '.join(NOTICE_COLUMNS)} FROM exception_notices WHERE gaming_date = ? "
        "ORDER BY notice_seq",
        [day],
    )


def last_notice(ledger: Ledger, exception_id: str) -> pd.DataFrame:
    """The state, time and gaming day of an exception's last notice (empty: it has none)."""
    return frame(
        ledger,
        "SELECT state, recorded_at, gaming_date FROM exception_notices "
        "WHERE exception_id = ? ORDER BY notice_seq DESC LIMIT 1",
        [exception_id],
    )
