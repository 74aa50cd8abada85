"""Writing a notice into a ledger's outbox of exception notices (``exception_notices``,
:mod:`pipeline.ledger.notices`) the way a stream consumer's batch leaves it: recorded, not
published yet. For tests that drive what reads the outbox (alerts, the dashboards' feed)
without running a consumer."""

from __future__ import annotations

from dataclasses import astuple

import duckdb

from pipeline.ledger.notices import ExceptionNotice


def insert_notice(con: duckdb.DuckDBPyConnection, notice: ExceptionNotice) -> None:
    """One outbox row, published_at NULL: the notice's fields are the table's columns in
    order (DuckDB takes the evidence ids as a list)."""
    values = [list(v) if isinstance(v, tuple) else v for v in astuple(notice)]
    con.execute(
        f"INSERT INTO exception_notices VALUES ({', '.join('?' * len(values))}, NULL)", values
    )
