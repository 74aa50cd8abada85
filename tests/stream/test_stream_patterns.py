"""A streamed day gets its patterns: slugs as its shoes end, in the batch that ends them
(PB-3.5a1-SLUG, N.J.A.C. 19:47-3.5(a)1), and informed betting and dealer-patron pairs
(NJ-PATTERN-INFORMED-BETTING, 3.2(d), 3.7(b); NJ-PATTERN-DEALER-PATRON, 3.3, 3.10(b)) at
the latest when the day closes; after the close it holds the same pattern exceptions as the
same day replayed from files, whose close does not search it again."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from pathlib import Path

import pytest
from kafka_checks import assert_same_ledger

from pipeline.cli import find_patterns_after, ingest_paths, write_simulation
from pipeline.config.catalog import DEFAULT_CATALOG, load_catalog
from pipeline.ledger.store import Ledger
from pipeline.patterns.stage import SLUG_CODES
from pipeline.reports.close import close_gaming_day
from pipeline.reports.verify import verify
from pipeline.rules.codes import PATTERN_CODES
from pipeline.rules.config import TableRules
from pipeline.simulate.faults import FaultKind, parse_faults
from pipeline.simulate.run import SimulationResult, simulate
from pipeline.stream.consumer import run_consumer
from pipeline.stream.producer import publish
from pipeline.stream.settings import KafkaSettings

pytestmark = pytest.mark.broker

DAY = date(2026, 11, 25)
FAULTS = "false_shuffle=0.3,informed_betting=0.05,collusion=0.5"
"""A slug in about a third of the shoes, informed patrons and colluding dealers: 4 hours of
3 tables (about 20,500 events) hold each of them (seed 11)."""


@pytest.fixture(scope="module")
def patterned_day() -> SimulationResult:
    day = simulate(3, 4, 11, parse_faults(FAULTS), DAY, load_catalog())
    assert {f.kind for f in day.faults} >= {
        FaultKind.FALSE_SHUFFLE.value,
        FaultKind.INFORMED_BETTING.value,
        FaultKind.COLLUSION.value,
    }
    return day


def close(ledger: Ledger, out: Path) -> None:
    close_gaming_day(
        ledger,
        DAY,
        out,
        actor="demo-controller",
        actor_source="test",
        accept_quality_failures="injected faults",
    )


def pattern_rows(ledger: Ledger, codes: frozenset[str] = PATTERN_CODES) -> list[tuple[object, ...]]:
    return ledger.con.execute(
        "SELECT * FROM exceptions WHERE list_contains(?::VARCHAR[], code) ORDER BY ALL",
        [sorted(codes)],
    ).fetchall()


def slug_shoes(ledger: Ledger) -> set[tuple[str, str, str]]:
    """Which shoes have a slug exception: (code, table, shoe)."""
    return {
        (str(code), str(table), str(shoe))
        for code, table, shoe in ledger.con.execute(
            "SELECT code, table_id, shoe_id FROM exceptions WHERE list_contains(?, code)",
            [sorted(SLUG_CODES)],
        ).fetchall()
    }


def test_a_streamed_day_gets_the_patterns_of_the_same_day_replayed_from_files(
    patterned_day: SimulationResult,
    stream_settings: KafkaSettings,
    catalog: Mapping[str, TableRules],
    tmp_path: Path,
) -> None:
    # the reference: the files replayed and searched as `baccarat-audit replay` does
    files = tmp_path / "files"
    paths = write_simulation(patterned_day, files, DAY)
    with Ledger(files / "ledger.duckdb") as reference:
        loaded = ingest_paths(reference, paths, DEFAULT_CATALOG)
        find_patterns_after(reference, loaded.table_days, load_catalog())
        searched = reference.con.execute("SELECT * FROM pattern_runs").fetchall()
        slugs = slug_shoes(reference)
        codes = {row[3] for row in pattern_rows(reference)}
        # the informed patron is named by the day's test and by the window's evidence
        assert codes & SLUG_CODES and codes - SLUG_CODES == {
            "NJ-PATTERN-INFORMED-BETTING",
            "NJ-PATTERN-INFORMED-ACCUMULATED",
            "NJ-PATTERN-DEALER-PATRON",
        }, codes
        close(reference, files / "reports")
        # its patterns ran after the replay: the close does not search the day again
        assert reference.con.execute("SELECT * FROM pattern_runs").fetchall() == searched
        expected = pattern_rows(reference)

    sent = publish(patterned_day, stream_settings.bootstrap_servers, topic=stream_settings.topic)
    db = tmp_path / "stream.duckdb"
    report = run_consumer(stream_settings, db, catalog, until_idle=1.0, max_batch=500)
    assert report.events == sent and report.batches > 10
    with Ledger(db) as streamed:
        # every slug is found in the batch its shoe ended in, before any close
        assert slug_shoes(streamed) == slugs
        assert streamed.con.execute("SELECT count(*) FROM pattern_runs").fetchone() == (0,)
        close(streamed, tmp_path / "reports")
        assert pattern_rows(streamed) == expected
        assert verify(streamed) == []
    assert_same_ledger(db, files / "ledger.duckdb")
