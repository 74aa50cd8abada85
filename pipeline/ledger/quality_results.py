"""The ledger's side of the quality gate: what a validation of a gaming day read (its
fingerprint) and the validations kept in ``quality_results`` with their gaming day.

The gate (:mod:`pipeline.quality.gate`) decides and words; the SQL is written here, so when
the storage changes only this package changes.
"""

from __future__ import annotations

import hashlib
import json
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from pipeline.ledger.columns import DELIVERY_KEY_SQL

if TYPE_CHECKING:
    from pipeline.ledger.store import Ledger


def day_fingerprint(ledger: Ledger, gaming_date: date) -> str:
    """A digest of what the suites read for ``gaming_date``: which deliveries are stored, and
    when each table-day was last replayed. Any load or replay of the day changes it."""
    deliveries = ledger.con.execute(
        f"SELECT count(*), coalesce(sum(hash({DELIVERY_KEY_SQL})), 0) FROM deliveries "
        "WHERE gaming_date = ?",
        [gaming_date],
    ).fetchone()
    replays = ledger.con.execute(
        "SELECT count(*), max(replayed_at) FROM table_day_summary WHERE gaming_date = ?",
        [gaming_date],
    ).fetchone()
    return hashlib.sha256(f"{deliveries}|{replays}".encode()).hexdigest()


def add_result(
    ledger: Ledger,
    *,
    gaming_date: date,
    validated_at: datetime,
    verdict: str,
    evaluated: int,
    failed: int,
    blocking: int,
    warnings: int,
    fingerprint: str,
    summary_json: str,
    expectations_json: str,
) -> None:
    """Keep one validation of ``gaming_date`` in ``quality_results``: its verdict and
    counts, its summary and every expectation's outcome as JSON."""
    ledger.con.execute(
        f"INSERT INTO {ledger.stored('quality_results')} (gaming_date, validated_at, verdict, "
        "evaluated, failed, "
        "blocking, warnings, fingerprint, summary_json, expectations_json) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            gaming_date,
            validated_at,
            verdict,
            evaluated,
            failed,
            blocking,
            warnings,
            fingerprint,
            summary_json,
            expectations_json,
        ],
    )


def results_of_day(ledger: Ledger, gaming_date: date) -> list[dict[str, Any]]:
    """The validations stored for ``gaming_date``, oldest first, with their JSON parsed
    (``summary``, ``expectations``)."""
    cursor = ledger.con.execute(
        "SELECT gaming_date, validated_at, verdict, evaluated, failed, blocking, warnings, "
        "fingerprint, summary_json, expectations_json FROM quality_results "
        "WHERE gaming_date = ? ORDER BY validated_at",
        [gaming_date],
    )
    names = [d[0] for d in cursor.description or ()]
    rows = [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]
    for row in rows:
        row["summary"] = json.loads(row.pop("summary_json"))
        row["expectations"] = json.loads(row.pop("expectations_json"))
    return rows
