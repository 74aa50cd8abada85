"""Compare two ledgers by content, ignoring how the events arrived.

A ledger loaded from Kafka keys its deliveries ``kafka:<topic>:<partition>`` and offset; the
same day loaded from files keys them by file path and occurrence in the file. Everything
derived from the events must still be identical. :func:`ledger_snapshot` keeps every row of
every table that matters, minus the delivery provenance columns and replay timestamps, as a
multiset; :func:`diff_ledgers` says which tables differ and how.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pipeline.ledger import stream_state
from pipeline.ledger.migrations import DERIVED_TABLES
from pipeline.ledger.store import Ledger

IGNORED_COLUMNS: dict[str, frozenset[str]] = {
    "deliveries": frozenset({"source", "position", "occurrence"}),
    "dead_letters": frozenset(
        {"source", "position", "detail", "received_on", "resolved_at", "resolved_by"}
    ),
    "table_day_summary": frozenset({"replayed_at"}),
}
"""Columns that depend on where and when events arrived, not on the events."""

COMPARED_TABLES: tuple[str, ...] = ("deliveries", "dead_letters", *DERIVED_TABLES)

Snapshot = dict[str, Counter[tuple[Any, ...]]]


def _hashable(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    return value


def ledger_snapshot(
    ledger: Ledger | Path | str, tables: Iterable[str] = COMPARED_TABLES
) -> Snapshot:
    """Every row of ``tables`` (without :data:`IGNORED_COLUMNS`) as a multiset per table."""
    if not isinstance(ledger, Ledger):
        with Ledger(ledger, read_only=True) as opened:
            return ledger_snapshot(opened, tables)
    snapshot: Snapshot = {}
    for table in tables:
        rows = stream_state.table_rows(ledger, table, IGNORED_COLUMNS.get(table, frozenset()))
        snapshot[table] = Counter(tuple(_hashable(v) for v in row) for row in rows)
    return snapshot


def diff_ledgers(left: Snapshot, right: Snapshot, *, examples: int = 2) -> list[str]:
    """One line per table whose rows differ (empty when the ledgers agree)."""
    problems = []
    for table in sorted(left.keys() | right.keys()):
        a, b = left.get(table, Counter()), right.get(table, Counter())
        if a == b:
            continue
        only_left, only_right = a - b, b - a
        line = (
            f"{table}: {a.total()} vs {b.total()} rows; {only_left.total()} only on the "
            f"left, {only_right.total()} only on the right"
        )
        for label, rows in (("left", only_left), ("right", only_right)):
            for row in list(rows)[:examples]:
                line += f"\n    only {label}: {row}"
        problems.append(line)
    return problems
