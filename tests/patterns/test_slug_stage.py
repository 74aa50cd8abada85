"""The pattern stage on emulated multi-day ledgers: every false shuffle the emulator plants
(a slug of 20-30 cards carried into the table's next shoe, a confederate betting it) is found
as PB-3.5a1-SLUG, CF-4.4a1-SLUG or MB-7.5a-SLUG (N.J.A.C. 19:47-3.5(a)1, 4.4(a)1, 7.5(a)) and
nothing else is; the findings live in ``exceptions`` beside the replay's, survive a table-day's
replay, are never duplicated, are sealed by the close and go to the notice outbox.

``BACCARAT_SLUG_CLEAN_DAYS=N`` runs the clean-data false-alarm test on N gaming days instead
of the small default (the issue asks for at least 30: ``BACCARAT_SLUG_CLEAN_DAYS=30``)."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator, Mapping
from dataclasses import replace
from datetime import date, timedelta
from pathlib import Path

import pytest

from flows.steps import replay_table_day
from pipeline.cli import find_patterns_after, ingest_paths, write_simulation
from pipeline.config.catalog import DEFAULT_CATALOG, load_catalog
from pipeline.config.patterns import PatternSettings
from pipeline.ledger.notices import pending_notices
from pipeline.ledger.store import Ledger
from pipeline.patterns.slugs import Slug, find_slugs
from pipeline.patterns.stage import (
    SLUG_CODES,
    carried_window_shoes,
    days_to_search,
    find_patterns,
    shifted,
    shoes_of,
    slug_findings,
)
from pipeline.reports.close import close_gaming_day
from pipeline.reports.groundtruth import compare
from pipeline.reports.verify import verify
from pipeline.rules.codes import PATTERN_CODES
from pipeline.simulate.faults import FaultKind, InjectedFault, read_manifest, write_manifest
from pipeline.simulate.run import simulate
from tests.tampering import rows_in_the_file

FIRST = date(2026, 11, 20)
SETTINGS = PatternSettings(window_days=7, slug_false_alarm_rate=1e-6)
CATALOG = load_catalog(DEFAULT_CATALOG)


def emulate_days(
    root: Path,
    days: int,
    rates: Mapping[FaultKind, float],
    *,
    tables: int = 3,
    hours: float = 5,
    seed: int | None = None,
) -> tuple[Path, list[InjectedFault]]:
    """``days`` gaming days from :data:`FIRST` loaded into one ledger, each searched by the
    pattern stage as ``baccarat-audit replay`` does; the ledger and every day's faults. One
    ``seed`` for every day keeps the tables' dealers (and a colluding dealer's confederate)
    from day to day; without it each day has a seed of its own."""
    db = root / "ledger.duckdb"
    faults: list[InjectedFault] = []
    catalog = load_catalog(DEFAULT_CATALOG)
    with Ledger(db) as ledger:
        for n in range(days):
            day = FIRST + timedelta(days=n)
            result = simulate(tables, hours, 40 + n if seed is None else seed, rates, day, catalog)
            paths = write_simulation(result, root / day.isoformat(), day)
            report = ingest_paths(ledger, paths, DEFAULT_CATALOG)
            find_patterns_after(ledger, report.table_days, catalog)
            faults += result.faults
    return db, faults


@pytest.fixture(scope="module")
def slugged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    """Three gaming days of three tables with a false shuffle in a third of the shoes."""
    root = tmp_path_factory.mktemp("slugged")
    db, faults = emulate_days(root, 3, {FaultKind.FALSE_SHUFFLE: 0.3})
    manifest = root / "faults.jsonl"
    write_manifest(manifest, faults)
    yield db, manifest


def pattern_rows(ledger: Ledger) -> list[tuple[object, ...]]:
    return ledger.con.execute(
        "SELECT * FROM exceptions WHERE list_contains(?::VARCHAR[], code) "
        "ORDER BY gaming_date, exception_id",
        [sorted(PATTERN_CODES)],
    ).fetchall()


def _described(slugs: list[Slug]) -> list[tuple[object, ...]]:
    return [
        (
            slug.shoe.key,
            slug.shoe.scope,
            slug.start,
            slug.earlier.key,
            slug.earlier.scope,
            slug.earlier_start,
            slug.length,
            slug.pairs,
            slug.positions.tolist(),
            slug.earlier_positions.tolist(),
            slug.chance_bound,
        )
        for slug in slugs
    ]


def assert_carried_search_is_the_reference(
    ledger: Ledger, day: date, settings: PatternSettings
) -> int:
    """The stage's search of ``day`` against the shoes its window's days carry finds what the
    search against the window's shoes read from their cards finds (the reference): the same
    slugs at the same positions of the same shoes, the same pairs compared per shoe (so the
    same false-alarm rate per shoe) and the same exceptions, message for message. The
    number of slugs."""
    first = shifted(day, -settings.window_days)
    window = shoes_of(ledger, first, day)
    new = [s for s in window if s.gaming_date == day]
    earlier = [s for s in window if s.gaming_date != day]
    rate = settings.slug_false_alarm_rate
    find_patterns(ledger, day, settings, CATALOG)
    carried = carried_window_shoes(ledger, first, shifted(day, -1))
    assert sorted((s.key, s.scope, s.game, s.started_at, s.cards_in_shoe) for s in carried) == (
        sorted((s.key, s.scope, s.game, s.started_at, s.cards_in_shoe) for s in earlier)
    ), day
    by_key = {s.key: s for s in earlier}
    for shoe in carried:
        assert shoe.positions.tolist() == by_key[shoe.key].positions.tolist(), shoe.key
        assert shoe.faces.tolist() == by_key[shoe.key].faces.tolist(), shoe.key
    reference = find_slugs(new, earlier, rate)
    assert _described(find_slugs(shoes_of(ledger, day, day), carried, rate)) == _described(
        reference
    ), day
    stored = ledger.con.execute(
        "SELECT message, source_event_ids FROM exceptions WHERE gaming_date = ? "
        "AND list_contains(?::VARCHAR[], code) ORDER BY exception_id",
        [day, sorted(SLUG_CODES)],
    ).fetchall()
    expected = slug_findings(ledger, new, earlier, settings)
    assert sorted((m, list(e)) for m, e in stored) == sorted(
        (f.message, list(f.event_ids)) for f in expected
    ), day
    return len(reference)


@pytest.mark.parametrize("window_days", [1, 7])
def test_the_search_against_carried_shoes_is_the_search_against_their_cards(
    slugged: tuple[Path, Path], window_days: int, tmp_path: Path
) -> None:
    """PB-3.5a1-SLUG, MB-7.5a-SLUG (N.J.A.C. 19:47-3.5(a)1, 7.5(a)): every gaming day of the
    ledger (a copy: the searches write), searched against what its window's days carry,
    gives the reference search's slugs, pairs compared and exceptions, with a window that
    drops a day and one that holds them all."""
    db = tmp_path / "ledger.duckdb"
    shutil.copyfile(slugged[0], db)
    settings = replace(SETTINGS, window_days=window_days)
    with Ledger(db) as ledger:
        found = [
            assert_carried_search_is_the_reference(ledger, FIRST + timedelta(days=n), settings)
            for n in range(3)
        ]
    assert sum(found[1:]) > 0, "the planted slugs must be found for the comparison to matter"


def test_every_planted_slug_is_found_and_nothing_else(slugged: tuple[Path, Path]) -> None:
    """PB-3.5a1-SLUG, MB-7.5a-SLUG (N.J.A.C. 19:47-3.5(a)1, 7.5(a)): recall 1.0 and precision
    1.0 against the emulator's ground truth over three gaming days."""
    db, manifest = slugged
    planted = read_manifest(manifest)
    assert len(planted) >= 5
    assert {f.kind for f in planted} == {FaultKind.FALSE_SHUFFLE.value}
    assert all(int(f.detail.split("(")[1].split(" of ")[0]) >= 20 for f in planted)
    with Ledger(db, read_only=True) as ledger:
        truth = compare(ledger, manifest)
    assert truth.missed == []
    assert truth.unexpected == []
    assert truth.by_kind["false_shuffle"]["recall"] == 1.0


def test_the_confederate_bets_are_named_in_the_finding(slugged: tuple[Path, Path]) -> None:
    """PB-3.5a1-SLUG (N.J.A.C. 19:47-3.5(a)1): the rounds dealt from a slug, with who bet on
    them and how, are in the message; the evidence cites the card events of both shoes."""
    db, _ = slugged
    with Ledger(db, read_only=True) as ledger:
        rows = ledger.con.execute(
            "SELECT e.message, e.round_id, e.source_event_ids, e.actual_cents FROM exceptions e "
            "WHERE e.code = 'PB-3.5a1-SLUG' ORDER BY e.exception_id LIMIT 1"
        ).fetchall()
        (message, round_id, event_ids, stakes) = rows[0]
        cited = ledger.con.execute(
            "SELECT count(DISTINCT shoe_id) FROM cards WHERE list_contains(?, source_event_id)",
            [event_ids],
        ).fetchone()
    assert f"{round_id}: seat " in message
    assert "(PAT-" in message and "Review the shuffle" in message
    assert stakes > 0
    assert cited == (2,)


def test_a_table_days_replay_keeps_them_and_a_second_search_does_not_duplicate(
    slugged: tuple[Path, Path],
) -> None:
    """PB-3.5a1-SLUG (N.J.A.C. 19:47-3.5(a)1): replaying one table-day again leaves the day's
    pattern exceptions as they were; searching the day again writes the same rows, once."""
    db, _ = slugged
    with Ledger(db, read_only=True) as ledger:
        before = pattern_rows(ledger)
        table_id, day = ledger.con.execute(
            "SELECT table_id, gaming_date FROM exceptions WHERE list_contains(?::VARCHAR[], code) "
            "LIMIT 1",
            [sorted(PATTERN_CODES)],
        ).fetchall()[0]
    replay_table_day(db, table_id, day)
    with Ledger(db) as ledger:
        assert pattern_rows(ledger) == before
        find_patterns(ledger, day, SETTINGS, CATALOG)
        find_patterns(ledger, day, SETTINGS, CATALOG)
        assert pattern_rows(ledger) == before


def test_the_outbox_announces_each_pattern_exception_once(slugged: tuple[Path, Path]) -> None:
    """PB-3.5a1-SLUG (N.J.A.C. 19:47-3.5(a)1): every pattern exception has one RAISED notice
    for the audit-exceptions topic, and searching again adds none; the replay's exceptions
    are not announced by the pattern stage."""
    db, _ = slugged
    with Ledger(db) as ledger:
        notices = pending_notices(ledger)
        ids = {r[0] for r in pattern_rows(ledger)}
        find_patterns(ledger, FIRST + timedelta(days=2), SETTINGS, CATALOG)
        assert len(pending_notices(ledger)) == len(notices)
    assert {n.exception_id for n in notices} == ids
    assert {n.state for n in notices} == {"RAISED"}
    assert {n.code for n in notices} <= PATTERN_CODES


def test_a_slug_from_another_table_days_ago_is_found_within_the_window(tmp_path: Path) -> None:
    """PB-3.5a1-SLUG (N.J.A.C. 19:47-3.5(a)1): 24 cards T01 dealt on the first day, dealt in
    the same order by T03 (same pit) two days later, are found with a window of two days and
    not with a window of one; closing the day seals the finding."""
    db, faults = emulate_days(tmp_path, 3, {}, tables=3, hours=3)
    assert faults == []
    third = FIRST + timedelta(days=2)
    with Ledger(db) as ledger:
        source = ledger.con.execute(
            "SELECT shoe_id, position, rank, suit FROM cards WHERE table_id = 'T01' AND "
            "gaming_date = ? AND position BETWEEN 60 AND 83 AND shoe_id = "
            "(SELECT min(shoe_id) FROM cards WHERE table_id = 'T01' AND gaming_date = ?) "
            "ORDER BY position",
            [FIRST, FIRST],
        ).fetchall()
        assert len(source) == 24
        target = ledger.con.execute(
            "SELECT min(shoe_id) FROM cards WHERE table_id = 'T03' AND gaming_date = ?", [third]
        ).fetchone()
        assert target is not None
        for offset, (_, _, rank, suit) in enumerate(source):
            ledger.con.execute(
                "UPDATE cards SET rank = ?, suit = ? WHERE table_id = 'T03' AND shoe_id = ? "
                "AND position = ?",
                [rank, suit, target[0], 100 + offset],
            )
        assert (
            find_patterns(ledger, third, replace(SETTINGS, window_days=1), CATALOG).findings == ()
        )
        (finding,) = find_patterns(
            ledger, third, replace(SETTINGS, window_days=2), CATALOG
        ).findings
        assert finding.table_id == "T03" and finding.shoe_id == target[0]
        assert f"shoe {source[0][0]} (table T01, gaming day {FIRST})" in finding.message
        spans = re.findall(r"positions (\d+)-(\d+)", finding.message)
        # the 24 cards, and a neighbour that matches by chance at most
        (first, last), (source_first, source_last) = [(int(a), int(b)) for a, b in spans]
        assert first <= 100 and last >= 123 and last - first < 30
        assert first - source_first == 40 and last - source_last == 40
        close_gaming_day(
            ledger,
            third,
            tmp_path / "reports",
            actor="demo-controller",
            actor_source="test",
            allow_empty=None,
        )
        assert verify(ledger) == []
        rows_in_the_file(ledger).con.execute(
            "UPDATE exceptions SET message = 'nothing to see' WHERE code = 'PB-3.5a1-SLUG'"
        )
        problems = verify(ledger)
    assert any("exceptions: row changed or added after the close" in p for p in problems)


def test_only_open_days_the_loaded_days_feed_are_searched_again(slugged: tuple[Path, Path]) -> None:
    """PB-3.5a1-SLUG (N.J.A.C. 19:47-3.5(a)1): a late file for the first day changes what the
    next days' windows hold, so they are searched again; days before it are not."""
    db, _ = slugged
    with Ledger(db, read_only=True) as ledger:
        assert days_to_search(ledger, [FIRST + timedelta(days=1)], 7) == [
            FIRST + timedelta(days=1),
            FIRST + timedelta(days=2),
        ]
        assert days_to_search(ledger, [FIRST], 1) == [FIRST, FIRST + timedelta(days=1)]
        assert days_to_search(ledger, [], 7) == []


CLEAN_DAYS = int(os.environ.get("BACCARAT_SLUG_CLEAN_DAYS", "3"))


def test_clean_days_raise_no_more_false_alarms_than_the_configured_rate(tmp_path: Path) -> None:
    """PB-3.5a1-SLUG, CF-4.4a1-SLUG, MB-7.5a-SLUG (N.J.A.C. 19:47-3.5(a)1, 4.4(a)1, 7.5(a)):
    on properly shuffled days of every game, the shoes searched times the rate bounds the
    expected false alarms; far below one, so none may be raised."""
    db, _ = emulate_days(tmp_path, CLEAN_DAYS, {}, tables=6, hours=6)
    with Ledger(db, read_only=True) as ledger:
        found = pattern_rows(ledger)
        shoes = ledger.con.execute(
            "SELECT count(*) FROM deliveries WHERE payload_type = 'ShoeStarted'"
        ).fetchone()
    assert shoes is not None and shoes[0] > 20 * CLEAN_DAYS
    print(f"{shoes[0]} clean shoes over {CLEAN_DAYS} days: {len(found)} false alarms")
    assert len(found) <= shoes[0] * SETTINGS.slug_false_alarm_rate
