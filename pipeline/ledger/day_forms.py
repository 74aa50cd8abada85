"""A gaming day's Form register: the serial series issued to each table, the Forms used,
the serials skipped below the highest used, and the Form copies no Form matched."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import pandas as pd

from pipeline.ledger.snapshots import frame
from pipeline.ledger.store import Ledger


@dataclass
class FormRegister:
    series: pd.DataFrame
    forms: pd.DataFrame
    missing: pd.DataFrame
    unmatched: pd.DataFrame


def form_register(ledger: Ledger, day: date, tables: Sequence[str] = ()) -> FormRegister:
    """A day's Form register, of ``tables`` only when given."""
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
