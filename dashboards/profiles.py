"""The investigator's reads across gaming days: one dealer's record as rates, and every
unresolved exception.

Plain functions of a read-only ledger, like :mod:`dashboards.queries`; what the ledger holds of
a patron's play and a dealer's rounds is asked of :mod:`pipeline.ledger.history`. Money stays
in integer cents.
"""

from __future__ import annotations

import pandas as pd

from dashboards import queries as q
from pipeline.bundle.acks import AckJournal
from pipeline.ledger import history
from pipeline.ledger.store import Ledger


def dealer_days(ledger: Ledger, dealer_id: str) -> pd.DataFrame:
    """Per gaming day: tables and rounds dealt, exceptions in those rounds, and the rate per
    1,000 rounds."""
    df = history.dealer_days(ledger, dealer_id)
    df["per_1000_rounds"] = (1000 * df["exceptions"] / df["rounds"]).round(1)
    return df


def dealer_codes(ledger: Ledger, dealer_id: str) -> pd.DataFrame:
    """The dealer's exceptions by rule code across days, most frequent first, each with its
    rate per 1,000 rounds dealt."""
    df = history.dealer_codes(ledger, dealer_id)
    df["per_1000_rounds"] = (1000 * df["exceptions"] / df["rounds"]).round(1)
    return df.drop(columns=["rounds"])


def dealer_peers(ledger: Ledger) -> pd.DataFrame:
    """Every dealer's rounds dealt, exceptions in them and rate per 1,000 rounds, across every
    gaming day: the peers one dealer is read against (no rate without a round)."""
    df = history.dealer_rates(ledger)
    dealt = df["rounds"] > 0
    df["per_1000_rounds"] = (1000 * df["exceptions"] / df["rounds"].where(dealt)).round(1)
    return df


def unresolved_across_days(ledger: Ledger, journal: AckJournal) -> pd.DataFrame:
    """Every exception not acknowledged (open or escalated) on any gaming day, most severe
    and oldest first: the investigator's queue across days."""
    days = [
        q.exceptions(ledger, day, journal).assign(gaming_date=day) for day in q.gaming_dates(ledger)
    ]
    frames = [d[d["status"] != "ACKNOWLEDGED"] for d in days if not d.empty]
    if not frames:
        return pd.DataFrame(
            columns=["gaming_date", "status", "severity", "code", "table_id", "round_id"]
        )
    columns = [
        "gaming_date",
        "status",
        "severity",
        "code",
        "table_id",
        "round_id",
        "seat",
        "patron_id",
        "expected_cents",
        "actual_cents",
        "message",
        "exception_id",
    ]
    both = pd.concat(frames, ignore_index=True)
    ranked = both.sort_values(
        ["severity_rank", "gaming_date", "occurred_at"],
        ascending=[False, True, True],
        kind="stable",
    )
    return ranked[[c for c in columns if c in ranked]].reset_index(drop=True)
