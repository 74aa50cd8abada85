"""Ledger invariants: migrations, idempotent loads, order-insensitive derivation,
provenance on every derived row, and read-only access for readers."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path
from typing import Any

import duckdb
import pytest

from pipeline.config.catalog import gaming_day_of, load_catalog
from pipeline.events.model import TableEvent
from pipeline.ingest.stage import load_batch
from pipeline.ledger.columns import source_deliveries
from pipeline.ledger.migrations import DERIVED_TABLES, MIGRATIONS
from pipeline.ledger.store import Delivery, Ledger, LedgerError
from pipeline.rules.gaming_day import gaming_day, micros_of
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate
from tests.ledger.conftest import ledger_at_schema
from tests.replay.builder import clean_day

DAY = date(2026, 11, 24)
HOUR = 3_600_000_000
BOUNDARY = micros_of(gaming_day_of().start_of(DAY))  # 06:00 EST, 11:00 UTC
CATALOG = load_catalog()

SNAPSHOT_QUERIES = {
    table: f"SELECT * EXCLUDE ({'replayed_at' if table == 'table_day_summary' else 'gaming_date'})"
    f" FROM {table} ORDER BY ALL"
    for table in DERIVED_TABLES
}


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
        out.extend(source_deliveries(f"{table_id}-{name}", chosen))
    return out


def halves(day: dict[str, list[TableEvent]]) -> tuple[list[Delivery], list[Delivery]]:
    first, second = [], []
    for table_id, events in day.items():
        mid = len(events) // 2
        first += source_deliveries(f"{table_id}-a", events[:mid])
        second += source_deliveries(f"{table_id}-b", events[mid:])
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


def test_adding_deliveries_adds_their_fingerprints(
    tmp_path: Path, day: dict[str, list[TableEvent]]
) -> None:
    """A table-day's fingerprint after a batch is the one before it plus what
    ``add_deliveries`` reports it added (the live consumer's cache takes that instead of
    reading the day again); deliveries held already add nothing."""
    first, second = halves(day)
    with Ledger(tmp_path / "l.duckdb") as ledger:
        with ledger.transaction():
            ledger.add_deliveries(first, gaming_day_of())
        days = ledger.table_days()
        before = ledger.delivery_fingerprints(days)
        with ledger.transaction():
            added, new = ledger.add_deliveries([*first[:10], *second], gaming_day_of())
        assert new == len(second) == sum(count for count, _ in added.values())
        assert set(added) == set(days)
        assert ledger.delivery_fingerprints(days) == {
            key: (before[key][0] + added[key][0], before[key][1] + added[key][1]) for key in days
        }


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


def test_every_derived_row_keeps_its_source_events(tmp_path: Path) -> None:
    # seed 23's day issues Complimentary Vigorish Forms (only for deferred balances)
    day = simulate(3, 3, seed=23, rates=parse_faults("all"), gaming_date=DAY).events_by_table
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
    """A gaming day runs from the boundary (06:00 local, New York: 11:00 UTC in November)
    to the next one."""
    midnight_utc = 1_795_478_400_000_000  # 2026-11-24T00:00:00Z
    day = gaming_day("06:00", "America/New_York")
    assert day.date_of(midnight_utc + 11 * HOUR - 1) == date(2026, 11, 23)
    assert day.date_of(midnight_utc + 11 * HOUR) == date(2026, 11, 24)


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


def across_the_boundary(events: list[TableEvent], round_starts_before: int) -> list[TableEvent]:
    """The day shifted so its last round starts ``round_starts_before`` microseconds before
    the 06:00 boundary: the round's cards, its settlement and the table's closing are stamped
    in the next gaming day."""
    last_start = max(e.occurred_at for e in events if e.payload_type == "RoundStarted")
    boundary = BOUNDARY
    shift = boundary - round_starts_before - last_start
    return [
        TableEvent(
            e.event_id, e.table_id, e.device_id, e.seq, e.occurred_at + shift, e.payload_type,
            e.fields,
        )
        for e in events
    ]  # fmt: skip


def test_a_session_open_at_the_boundary_keeps_its_last_round(tmp_path: Path) -> None:
    """Events are assigned by their time with a clock-skew tolerance: what a table still open
    at the boundary records in the next few minutes (the last round's cards and settlement,
    the closing) belongs to the day the session began, so that day's last round is whole
    and the next day holds nothing. Without the tolerance the round is split and both days
    report it."""
    events = across_the_boundary(clean_day()[0].events, round_starts_before=3_000_000)
    assert any(e.occurred_at >= BOUNDARY for e in events)

    def load_with(tolerance: timedelta, path: Path) -> tuple[list[Any], list[Any]]:
        with Ledger(path) as ledger:
            load_batch(
                ledger, source_deliveries("T01", events), [], CATALOG,
                skew_tolerance=tolerance,
            )  # fmt: skip
            days = ledger.con.execute(
                "SELECT DISTINCT gaming_date FROM deliveries ORDER BY 1"
            ).fetchall()
            found = ledger.con.execute("SELECT code FROM exceptions ORDER BY 1").fetchall()
        return days, found

    days, found = load_with(timedelta(minutes=10), tmp_path / "tolerant.duckdb")
    assert days == [(date(2026, 11, 23),)] and found == []
    days, found = load_with(timedelta(0), tmp_path / "strict.duckdb")
    assert len(days) == 2 and found, "without the tolerance the last round is split"


def test_realigning_leaves_no_result_open_for_the_next_registered_rows(tmp_path: Path) -> None:
    """The realignment reads the table's state at each boundary; the statement after it in a
    stream batch may register rows on the connection (a live table-day's withdrawn rows),
    which the connection refuses while a result is left open. Found by a stream whose
    batch took a boundary's window and moved nothing."""
    events = across_the_boundary(clean_day()[0].events, round_starts_before=3_000_000)
    with Ledger(tmp_path / "l.duckdb") as ledger:
        load_batch(ledger, source_deliveries("T01", events), [], CATALOG)
        with ledger.transaction():
            moved = ledger.realign_boundary_sessions(
                {"T01"}, gaming_day_of(), timedelta(minutes=10)
            )
            assert moved == set()  # the window is read, nothing moves again
            ledger.add_dead_letters([("T01", 0, "CORRUPT_BLOCK", "x", None, None, None)])
        assert ledger.con.execute("SELECT count(*) FROM dead_letters").fetchall() == [(1,)]


def test_boundary_assignment_does_not_depend_on_delivery_order(tmp_path: Path) -> None:
    """The next day's part of a session arriving first, then the earlier part, gives the same
    ledger as the whole day at once."""
    events = across_the_boundary(clean_day()[0].events, round_starts_before=3_000_000)
    split = next(i for i, e in enumerate(events) if e.occurred_at >= BOUNDARY)
    later = source_deliveries("T01-b", events[split:])
    earlier = source_deliveries("T01-a", events[:split])
    with Ledger(tmp_path / "pieces.duckdb") as pieces, Ledger(tmp_path / "whole.duckdb") as whole:
        load(pieces, [later, earlier])
        load(whole, [earlier + later])
        assert snapshot(pieces) == snapshot(whole)
        assert pieces.table_days() == [("T01", date(2026, 11, 23))]
        assert pieces.con.execute("SELECT count(*) FROM exceptions").fetchone() == (0,)


def test_no_event_is_realigned_into_a_closed_day(tmp_path: Path) -> None:
    """The part of a session stamped after the boundary arrives once the earlier day is
    closed (a stream cannot refuse it): it stays in the next day, where its time puts it, and
    the closed day's deliveries do not change."""
    events = across_the_boundary(clean_day()[0].events, round_starts_before=3_000_000)
    split = next(i for i, e in enumerate(events) if e.occurred_at >= BOUNDARY)
    with Ledger(tmp_path / "closed.duckdb") as ledger:
        load(ledger, [source_deliveries("T01-a", events[:split])])
        ledger.con.execute(
            "INSERT INTO gaming_days (gaming_date, status) VALUES (DATE '2026-11-23', 'CLOSED')"
        )
        load(ledger, [source_deliveries("T01-b", events[split:])])
        by_day = ledger.con.execute(
            "SELECT gaming_date, count(*) FROM deliveries GROUP BY 1 ORDER BY 1"
        ).fetchall()
    assert by_day == [(date(2026, 11, 23), split), (date(2026, 11, 24), len(events) - split)]


def test_migration_6_rekeys_the_deliveries_of_an_existing_ledger(tmp_path: Path) -> None:
    """A ledger written before migration 6 (deliveries keyed by bare file name and position)
    keeps every row; each gets its occurrence, and the new keys hold."""
    path = tmp_path / "v4.duckdb"
    con = ledger_at_schema(path, 4)
    row = "(?, ?, ?, 'T01', 'T01-pit', ?, 0, DATE '2026-11-24', 'TableOpened', '{}')"
    for source, position, event_id, seq in (
        ("T01.avro", 0, "e-1", 1),
        ("T01.avro", 1, "e-2", 2),
        ("T01.avro", 2, "e-1", 1),  # a device's duplicate inside the file
        ("kafka:table-events:3", 17, "e-1", 1),
        ("kafka:table-events:3", 18, "e-1", 1),
    ):
        con.execute(f"INSERT INTO deliveries VALUES {row}", [source, position, event_id, seq])
    con.execute("INSERT INTO input_files VALUES ('T01.avro', 'aa', 10, 3, now())")
    con.execute(
        "INSERT INTO dead_letters VALUES ('T01.avro', 99, 'CORRUPT_BLOCK', 'x', NULL, NULL, NULL)"
    )
    con.close()

    with Ledger(path) as ledger:
        assert ledger.schema_version() == MIGRATIONS[-1][0]
        assert ledger.con.execute(
            "SELECT source, position, event_id, occurrence FROM deliveries ORDER BY ALL"
        ).fetchall() == [
            ("T01.avro", 0, "e-1", 0),
            ("T01.avro", 1, "e-2", 0),
            ("T01.avro", 2, "e-1", 1),
            ("kafka:table-events:3", 17, "e-1", 17),
            ("kafka:table-events:3", 18, "e-1", 18),
        ]
        again = ledger.deliveries_for("T01", date(2026, 11, 24))
        assert ledger.add_deliveries(again, gaming_day_of()) == ({}, 0)  # the key holds
        ledger.con.execute("INSERT INTO input_files VALUES ('T01.avro', 'bb', 11, 3, now())")
        assert ledger.input_files() == {("T01.avro", "aa", 10), ("T01.avro", "bb", 11)}
        assert ledger.con.execute(
            "SELECT source, position, resolved_at, resolved_by FROM dead_letters"
        ).fetchall() == [("T01.avro", 99, None, None)]


def test_a_step_held_to_a_memory_limit_that_fails_in_a_transaction_reports_its_own_error(
    tmp_path: Path,
) -> None:
    """DuckDB refuses every statement in a transaction an error aborted, the reset of the
    memory limit too: the step's own error is the one raised, not DuckDB's refusal, and the
    transaction's rollback resets the limit (a long-lived process is not left with it)."""

    def limit(ledger: Ledger) -> str:
        ((setting,),) = ledger.con.execute("SELECT current_setting('memory_limit')").fetchall()
        return str(setting)

    with Ledger(tmp_path / "ledger.duckdb") as ledger:
        usual = limit(ledger)
        ledger.con.execute("CREATE TEMP TABLE once (x INTEGER PRIMARY KEY)")
        with (
            pytest.raises(duckdb.ConstraintException, match="duplicate key"),
            ledger.transaction(),
            ledger.memory_held_to("64MB"),
        ):
            assert limit(ledger) == "61.0 MiB"
            ledger.con.execute("INSERT INTO once VALUES (1), (1)")
        after_the_failure = limit(ledger)
        with ledger.transaction(), ledger.memory_held_to("32MB"):
            held = limit(ledger)
        after = limit(ledger)
    assert after_the_failure == after == usual != held == "30.5 MiB"
