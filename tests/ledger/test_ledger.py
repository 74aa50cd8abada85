"""Ledger invariants: migrations, idempotent loads, order-insensitive derivation,
provenance on every derived row, and read-only access for readers."""

from __future__ import annotations

from datetime import date, time
from pathlib import Path

import duckdb
import pytest

from pipeline.config.catalog import load_catalog
from pipeline.events.model import TableEvent
from pipeline.ingest.stage import load_batch
from pipeline.ledger.migrations import DERIVED_TABLES, MIGRATIONS
from pipeline.ledger.store import Delivery, Ledger, LedgerError, gaming_date_of
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate

DAY = date(2026, 11, 24)
CATALOG = load_catalog()

SNAPSHOT_QUERIES = {
    table: f"SELECT * EXCLUDE ({'replayed_at' if table == 'table_day_summary' else 'gaming_date'})"
    f" FROM {table} ORDER BY ALL"
    for table in DERIVED_TABLES
}


@pytest.fixture(scope="module")
def day() -> dict[str, list[TableEvent]]:
    return simulate(3, 3, seed=21, rates=parse_faults("all"), gaming_date=DAY).events_by_table


def snapshot(ledger: Ledger) -> dict[str, list[tuple[object, ...]]]:
    return {t: ledger.con.execute(q).fetchall() for t, q in SNAPSHOT_QUERIES.items()}


def load(ledger: Ledger, batches: list[list[Delivery]]) -> None:
    for batch in batches:
        load_batch(ledger, batch, [], CATALOG)


def deliveries(
    day: dict[str, list[TableEvent]], part: slice | None = None, name: str = "whole"
) -> list[Delivery]:
    out: list[Delivery] = []
    for table_id, events in day.items():
        chosen = events if part is None else events[part]
        out.extend(Delivery(f"{table_id}-{name}", i, e) for i, e in enumerate(chosen))
    return out


def halves(day: dict[str, list[TableEvent]]) -> tuple[list[Delivery], list[Delivery]]:
    first, second = [], []
    for table_id, events in day.items():
        mid = len(events) // 2
        first += [Delivery(f"{table_id}-a", i, e) for i, e in enumerate(events[:mid])]
        second += [Delivery(f"{table_id}-b", i, e) for i, e in enumerate(events[mid:])]
    return first, second


def test_migrations_are_versioned(tmp_path: Path) -> None:
    with Ledger(tmp_path / "l.duckdb") as ledger:
        assert ledger.schema_version() == MIGRATIONS[-1][0]
        assert ledger.migrate() == MIGRATIONS[-1][0]  # idempotent


def test_newer_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "l.duckdb"
    with Ledger(path) as ledger:
        ledger.con.execute("INSERT INTO schema_migrations VALUES (999, 'future', now())")
    with pytest.raises(LedgerError, match="newer than this program"):
        Ledger(path)


def test_loading_twice_changes_nothing(tmp_path: Path, day: dict[str, list[TableEvent]]) -> None:
    with Ledger(tmp_path / "l.duckdb") as ledger:
        load(ledger, [deliveries(day)])
        once = snapshot(ledger)
        load(ledger, [deliveries(day)])
        assert snapshot(ledger) == once
        assert sum(len(rows) for rows in once.values()) > 1000


def test_halves_in_either_order_equal_each_other(
    tmp_path: Path, day: dict[str, list[TableEvent]]
) -> None:
    """Derived rows depend only on the set of deliveries: a then b == b then a."""
    first, second = halves(day)
    with Ledger(tmp_path / "ab.duckdb") as ab, Ledger(tmp_path / "ba.duckdb") as ba:
        load(ab, [first, second])
        load(ba, [second, first])
        assert snapshot(ab) == snapshot(ba)


def test_halves_equal_the_whole_day_in_everything_but_delivery_order(
    tmp_path: Path, day: dict[str, list[TableEvent]]
) -> None:
    first, second = halves(day)
    with Ledger(tmp_path / "whole.duckdb") as whole, Ledger(tmp_path / "ab.duckdb") as ab:
        load(whole, [deliveries(day)])
        load(ab, [second, first])
        for table in ("rounds", "settlements", "vig_ledger", "comp_vig_forms", "wagers"):
            assert snapshot(whole)[table] == snapshot(ab)[table], table
        codes = "SELECT code, round_id, seat, serial FROM exceptions ORDER BY ALL"
        assert whole.con.execute(codes).fetchall() == ab.con.execute(codes).fetchall()


def test_every_derived_row_keeps_its_source_events(
    tmp_path: Path, day: dict[str, list[TableEvent]]
) -> None:
    with Ledger(tmp_path / "l.duckdb") as ledger:
        load(ledger, [deliveries(day)])
        known = {r[0] for r in ledger.con.execute("SELECT event_id FROM deliveries").fetchall()}
        for table, column in (
            ("rounds", "source_event_id"),
            ("cards", "source_event_id"),
            ("vig_ledger", "source_event_id"),
            ("comp_vig_forms", "source_event_id"),
        ):
            ids = {r[0] for r in ledger.con.execute(f"SELECT {column} FROM {table}").fetchall()}
            assert ids and ids <= known, table
        for table in ("wagers", "exceptions"):
            rows = ledger.con.execute(f"SELECT source_event_ids FROM {table}").fetchall()
            assert rows and all(r[0] and set(r[0]) <= known for r in rows), table


def test_readers_open_read_only_while_a_writer_holds_the_file(tmp_path: Path) -> None:
    path = tmp_path / "l.duckdb"
    Ledger(path).close()
    with Ledger(path, read_only=True) as reader, pytest.raises(duckdb.Error):
        reader.con.execute("CREATE TABLE x (a INTEGER)")
    with pytest.raises(LedgerError, match="no ledger here yet"):
        Ledger(tmp_path / "missing.duckdb", read_only=True)


def test_gaming_date_boundary() -> None:
    """A gaming day runs from the boundary (06:00) to the next one."""
    midnight_utc = 1_795_478_400_000_000  # 2026-11-24T00:00:00Z
    assert gaming_date_of(midnight_utc, time(6, 0)) == date(2026, 11, 23)
    assert gaming_date_of(midnight_utc + 6 * 3600 * 1_000_000, time(6, 0)) == date(2026, 11, 24)


def test_unknown_rules_become_a_contract_exception_not_a_crash(
    tmp_path: Path, day: dict[str, list[TableEvent]]
) -> None:
    """NJ-DATA-CONTRACT: a table opened under rules the catalog lacks is one exception naming
    the rules id; the other tables load normally and the pipeline keeps running."""
    events = {t: list(e) for t, e in day.items()}
    first = events["T01"][0]
    assert first.payload_type == "TableOpened"
    events["T01"][0] = TableEvent(
        first.event_id,
        first.table_id,
        first.device_id,
        first.seq,
        first.occurred_at,
        first.payload_type,
        {**first.fields, "rules_id": "not-filed"},
    )
    with Ledger(tmp_path / "l.duckdb") as ledger:
        load(ledger, [deliveries(events)])
        rows = ledger.con.execute(
            "SELECT table_id, code, message FROM exceptions WHERE code = 'NJ-DATA-CONTRACT'"
        ).fetchall()
        others = ledger.con.execute(
            "SELECT count(*) FROM rounds WHERE table_id <> 'T01'"
        ).fetchone()
    assert len(rows) == 1 and rows[0][0] == "T01"
    assert "'not-filed'" in rows[0][2] and "catalog" in rows[0][2]
    assert others is not None and others[0] > 100
