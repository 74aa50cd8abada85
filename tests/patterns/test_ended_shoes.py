"""The pattern stage as the stream and the close run it: the shoes a batch ends are searched
for slugs alone (PB-3.5a1-SLUG, N.J.A.C. 19:47-3.5(a)1), finding what the day's search finds
and leaving the day's other pattern exceptions; the close searches a day again only when the
rows of its window changed since the stage last ran."""

from __future__ import annotations

import shutil
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest

from flows.steps import replay_table_day
from pipeline.cli import ingest_paths, write_simulation
from pipeline.config.catalog import DEFAULT_CATALOG, load_catalog
from pipeline.events.model import TableEvent
from pipeline.ingest.pits import judge_pits
from pipeline.ledger.columns import Delivery
from pipeline.ledger.store import Ledger
from pipeline.patterns.stage import (
    SLUG_CODES,
    KnownShoes,
    find_patterns,
    find_patterns_if_changed,
    patterns_current,
    search_ended_shoes,
    shoes_ended,
)
from pipeline.replay.machine import replay_table
from pipeline.rules.codes import PATTERN_CODES
from pipeline.simulate.faults import parse_faults
from pipeline.simulate.run import simulate

DAY = date(2026, 11, 25)
CATALOG = load_catalog(DEFAULT_CATALOG)
SETTINGS = CATALOG.patterns


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """3 tables for 5 hours with slugs, informed patrons and colluding dealers, loaded from
    files without the pattern stage (as a stream loads a day)."""
    root = tmp_path_factory.mktemp("ended")
    faults = parse_faults("false_shuffle=0.3,informed_betting=0.05,collusion=0.5")
    day = simulate(3, 5, 11, faults, DAY, CATALOG)
    with Ledger(root / "ledger.duckdb") as ledger:
        ingest_paths(ledger, write_simulation(day, root / "events", DAY), DEFAULT_CATALOG)
    return root / "ledger.duckdb"


@pytest.fixture
def ledger(loaded: Path, tmp_path: Path) -> Ledger:
    shutil.copy(loaded, tmp_path / "ledger.duckdb")
    return Ledger(tmp_path / "ledger.duckdb")


def stored(ledger: Ledger, payload_type: str) -> list[Delivery]:
    """The stored deliveries of ``payload_type``, as a batch hands them over."""
    return [
        Delivery(source, position, TableEvent("e", table, "d", 0, 0, payload_type, {}), 0)
        for source, position, table in ledger.con.execute(
            "SELECT source, position, table_id FROM deliveries WHERE payload_type = ?",
            [payload_type],
        ).fetchall()
    ]


def rows(ledger: Ledger, codes: frozenset[str]) -> list[tuple[object, ...]]:
    return ledger.con.execute(
        "SELECT * FROM exceptions WHERE list_contains(?::VARCHAR[], code) ORDER BY ALL",
        [sorted(codes)],
    ).fetchall()


def test_the_shoes_a_batch_ends_are_searched_alone(ledger: Ledger) -> None:
    with ledger:
        ended = shoes_ended(ledger, stored(ledger, "ShoeEnded"))
        shoes = ledger.con.execute(
            "SELECT count(DISTINCT (table_id, json_extract_string(fields_json, '$.shoe_id'))) "
            "FROM deliveries WHERE payload_type = 'ShoeEnded'"
        ).fetchone()
        assert shoes is not None and len(ended) == shoes[0] > 3
        with ledger.transaction():
            searched = search_ended_shoes(ledger, ended, SETTINGS)
        assert searched.findings and {f.code for f in searched.findings} <= SLUG_CODES
        incremental = {(r[0], r[3], r[7]) for r in rows(ledger, SLUG_CODES)}
        assert rows(ledger, PATTERN_CODES - SLUG_CODES) == []
        # searched again (a batch delivered twice): the same rows, none twice
        before = rows(ledger, PATTERN_CODES)
        with ledger.transaction():
            search_ended_shoes(ledger, ended, SETTINGS)
        assert rows(ledger, PATTERN_CODES) == before
        # the day's search finds the same slugs in the same shoes, and the other patterns
        find_patterns(ledger, DAY, SETTINGS, CATALOG)
        assert {(r[0], r[3], r[7]) for r in rows(ledger, SLUG_CODES)} == incremental
        assert rows(ledger, PATTERN_CODES - SLUG_CODES)
        # a shoe searched as it ends leaves the day's other pattern exceptions as they are
        others = rows(ledger, PATTERN_CODES - SLUG_CODES)
        with ledger.transaction():
            search_ended_shoes(ledger, ended[:1], SETTINGS)
        assert rows(ledger, PATTERN_CODES - SLUG_CODES) == others


def test_shoes_known_from_earlier_batches_find_what_a_full_read_finds(ledger: Ledger) -> None:
    """PB-3.5a1-SLUG (N.J.A.C. 19:47-3.5(a)1) as a stream searches: the cards of the shoes
    earlier batches read are kept, and the slugs found are those of reading every shoe of the
    pits again, also after a table-day's cards were written again (its shoes are read
    again, not taken from what was kept)."""

    def slugs(known: KnownShoes | None) -> list[str]:
        with ledger.transaction():
            found = search_ended_shoes(ledger, ended, SETTINGS, known).findings
        return sorted(f.finding_id for f in found)

    with ledger:
        ended = shoes_ended(ledger, stored(ledger, "ShoeEnded"))
        known = KnownShoes()
        for one in ended:  # a batch per shoe ended
            with ledger.transaction():
                search_ended_shoes(ledger, [one], SETTINGS, known)
        kept = rows(ledger, SLUG_CODES)
        with ledger.transaction():
            search_ended_shoes(ledger, ended, SETTINGS)
        assert rows(ledger, SLUG_CODES) == kept
        before = slugs(known)
        assert before == slugs(None)
        without_cards = replay_table("T01", ledger.events_for("T01", DAY), CATALOG)
        without_cards.cards = []
        with ledger.transaction():
            ledger.replace_table_day("T01", DAY, without_cards)
            judge_pits(ledger)
        after = slugs(known)
        assert after == slugs(None) != before


def test_a_shoe_without_shoe_ended_ends_at_the_next_shoe_started(ledger: Ledger) -> None:
    with ledger:
        with_end = shoes_ended(ledger, stored(ledger, "ShoeEnded"))
        # with its ShoeEnded stored, the shoe before a ShoeStarted is not searched twice
        assert shoes_ended(ledger, stored(ledger, "ShoeStarted")) == []
        ledger.con.execute("DELETE FROM deliveries WHERE payload_type = 'ShoeEnded'")
        started = shoes_ended(ledger, stored(ledger, "ShoeStarted"))
        # every shoe but each table's last (which nothing ended) is found from the next one
        tables = {t for t, _, _ in with_end}
        assert set(started) <= set(with_end)
        assert len(started) == len(with_end) - len(tables)


def test_the_close_searches_a_day_only_when_its_rows_changed(ledger: Ledger) -> None:
    with ledger:
        assert not patterns_current(ledger, DAY, SETTINGS)
        run = find_patterns_if_changed(ledger, DAY, SETTINGS, CATALOG)
        assert run is not None and run.findings
        assert patterns_current(ledger, DAY, SETTINGS)
        assert find_patterns_if_changed(ledger, DAY, SETTINGS, CATALOG) is None
        # other settings: searched again
        other = replace(SETTINGS, slug_false_alarm_rate=1e-7)
        assert not patterns_current(ledger, DAY, other)
        # a run recorded over other rows: searched again
        ledger.record_pattern_run(DAY, "")
        assert not patterns_current(ledger, DAY, SETTINGS)
        find_patterns(ledger, DAY, SETTINGS, CATALOG)
    # a table-day of the window replayed again: searched again
    replay_table_day(ledger.path, "T01", DAY)
    with Ledger(ledger.path) as again:
        assert not patterns_current(again, DAY, SETTINGS)
        assert find_patterns_if_changed(again, DAY, SETTINGS, CATALOG) is not None
