"""How the close report's columns read to a person, in every format it is written in."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any


def heading(column: str, money_columns: Collection[str] = ()) -> str:
    """A report column's name for a person: ``handle_cents`` -> ``Handle ($)``."""
    words = column.removesuffix("_cents").replace("_", " ")
    label = words[:1].upper() + words[1:]
    return f"{label} ($)" if column in money_columns else label


def money_columns(report: dict[str, Any]) -> frozenset[str]:
    """Every column of the report's tables that holds cents."""
    return frozenset(
        column
        for key in ("tables", "win_by_wager", "reconciliation", "forms", "unmatched_form_copies")
        for row in report.get(key, ())  # a report sealed before a section existed lacks it
        for column in row
        if column.endswith("_cents")
    )
