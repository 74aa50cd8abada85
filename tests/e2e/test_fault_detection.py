"""End to end: the emulator's injected faults through files, the ledger and the replay.

Every injected fault is found, and nothing else is: per fault kind alone, and all together.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from pipeline.cli import find_patterns_after, ingest_paths, write_simulation
from pipeline.config.catalog import DEFAULT_CATALOG, load_catalog
from pipeline.ledger.store import Ledger
from pipeline.reports.groundtruth import compare
from pipeline.simulate.faults import DEFAULT_RATES, FaultKind
from pipeline.simulate.run import simulate

DAY = date(2026, 11, 24)


def run_day(
    tmp_path: Path, rates: dict[FaultKind, float], tables: int, hours: float, seed: int
) -> tuple[int, Path]:
    result = simulate(tables, hours, seed, rates, DAY)
    paths = write_simulation(result, tmp_path, DAY)
    db = tmp_path / "ledger.duckdb"
    with Ledger(db) as ledger:
        report = ingest_paths(ledger, paths, DEFAULT_CATALOG)
        find_patterns_after(ledger, report.table_days, load_catalog(DEFAULT_CATALOG))
    return len(result.faults), db


HOURS_TO_BE_SEEN = {FaultKind.COLLUSION: 4}
"""Hours a kind's day needs before its fault can be told from chance: a dealer's overpayments
to one patron are a pattern over the patron's rounds, not one round's mistake (2 for the rest,
at ten times the default rate)."""


@pytest.mark.parametrize("kind", list(DEFAULT_RATES), ids=lambda k: k.value)
def test_each_fault_kind_alone_is_found_and_nothing_else(
    tmp_path: Path,
    kind: FaultKind,
) -> None:
    rate = min(1.0, DEFAULT_RATES[kind] * 10)
    hours = HOURS_TO_BE_SEEN.get(kind, 2)
    injected, db = run_day(tmp_path, {kind: rate}, tables=6, hours=hours, seed=31)
    assert injected > 0, f"no {kind.value} fault was injected; raise the rate"
    with Ledger(db, read_only=True) as ledger:
        comparison = compare(ledger, tmp_path / "faults.jsonl")
    assert comparison.missed == []
    assert comparison.unexpected == []


def test_all_faults_together(tmp_path: Path) -> None:
    injected, db = run_day(tmp_path, dict(DEFAULT_RATES), tables=6, hours=8, seed=4)
    with Ledger(db, read_only=True) as ledger:
        comparison = compare(ledger, tmp_path / "faults.jsonl")
        codes = {
            r[0] for r in ledger.con.execute("SELECT DISTINCT code FROM exceptions").fetchall()
        }
    assert injected > 50
    assert comparison.exact, comparison.summary()
    assert len(codes) > 15


def test_clean_day_has_no_exceptions(tmp_path: Path) -> None:
    injected, db = run_day(tmp_path, {}, tables=6, hours=4, seed=8)
    with Ledger(db, read_only=True) as ledger:
        count = ledger.con.execute("SELECT count(*) FROM exceptions").fetchone()
        rounds = ledger.con.execute("SELECT count(*) FROM rounds").fetchone()
    assert injected == 0
    assert count == (0,)
    assert rounds is not None and rounds[0] > 1000
