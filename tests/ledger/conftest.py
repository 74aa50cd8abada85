"""The emulated day the ledger tests load."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import duckdb
import pytest

from pipeline.events.model import TableEvent
from pipeline.ledger.migrations import MIGRATIONS
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate

DAY = date(2026, 11, 24)


@pytest.fixture(scope="session")
def day() -> dict[str, list[TableEvent]]:
    """Three tables, three hours, every fault kind."""
    return simulate(3, 3, seed=21, rates=parse_faults("all"), gaming_date=DAY).events_by_table


def ledger_at_schema(path: Path, version: int) -> duckdb.DuckDBPyConnection:
    """A connection to a new ledger file migrated only up to ``version``, as an older release
    left it; the caller adds rows, closes it, and opens it with :class:`Ledger` to migrate."""
    con = duckdb.connect(str(path))
    con.execute(
        "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name VARCHAR, "
        "applied_at TIMESTAMP)"
    )
    for number, name, sql in MIGRATIONS:
        if number <= version:
            con.execute(sql)
            con.execute("INSERT INTO schema_migrations VALUES (?, ?, now())", [number, name])
    return con
