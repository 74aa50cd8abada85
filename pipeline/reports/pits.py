"""The close report's tables by pit: each pit's tables with their subtotal, and the day's
totals, the sum of the pits' subtotals, so every total on the page is the sum of the rows
above it (integer cents, added up here and nowhere else for the report's pages).

The figures are those of the sealed report (:func:`pipeline.reports.figures.day_report`);
grouping them is presentation, so a report's seal covers the same content as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pipeline.reports.figures import hold_pct

COUNTED = ("rounds", "shoes", "exceptions")
"""The table columns that add up besides the money (every ``*_cents`` column)."""

NO_PIT = "(no pit)"
"""How a table whose events named no pit is grouped."""


@dataclass(frozen=True)
class PitSection:
    pit: str
    tables: list[dict[str, Any]]
    """The pit's rows of the report's ``tables``, in the report's order."""
    subtotal: dict[str, Any]
    """The added-up columns of those rows, and the pit's hold."""


def added_columns(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The columns of ``rows`` that add up: counts and cents, in the rows' column order."""
    columns = rows[0] if rows else {}
    return [c for c in columns if c in COUNTED or c.endswith("_cents")]


def added_up(rows: Sequence[dict[str, Any]], columns: Iterable[str]) -> dict[str, Any]:
    """The sum of each of ``columns`` over ``rows`` (a missing figure counts 0), with the
    hold (win over handle) of the sums when the rows have both."""
    total: dict[str, Any] = {c: sum(row.get(c) or 0 for row in rows) for c in columns}
    if "win_cents" in total and "handle_cents" in total:
        total["hold_pct"] = hold_pct(total["win_cents"], total["handle_cents"])
    return total


def pit_sections(tables: Sequence[dict[str, Any]]) -> list[PitSection]:
    """The report's table rows grouped by pit, in the order the pits first appear (the
    report lists tables by pit), each pit with its subtotal."""
    columns = added_columns(tables)
    by_pit: dict[str, list[dict[str, Any]]] = {}
    for row in tables:
        by_pit.setdefault(str(row["pit"]) if row.get("pit") is not None else NO_PIT, []).append(row)
    return [PitSection(pit, rows, added_up(rows, columns)) for pit, rows in by_pit.items()]


def pit_subtotals(sections: Sequence[PitSection]) -> list[dict[str, Any]]:
    """One row per pit: its name and its subtotal."""
    return [{"pit": s.pit, **s.subtotal} for s in sections]


def day_totals(sections: Sequence[PitSection]) -> dict[str, Any]:
    """The day's totals: the sum of the pits' subtotals (so, of every table row)."""
    subtotals = [s.subtotal for s in sections]
    return added_up(subtotals, [c for c in subtotals[0] if c != "hold_pct"] if subtotals else [])
