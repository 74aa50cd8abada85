"""Informed betting and dealer-patron pairs through the ledger: emulated gaming days with the
``informed_betting`` and ``collusion`` faults are ingested, replayed and searched by the
pattern stage as ``baccarat-audit replay`` does, and ``baccarat-audit evaluate`` finds every
injected fault (NJ-PATTERN-INFORMED-BETTING, N.J.A.C. 19:47-3.2(d), 3.7(b);
NJ-PATTERN-DEALER-PATRON, 3.3, 3.10(b)) and no exception it cannot explain; days of honest
dealing with the dealer's ordinary payout and vigorish slips raise neither.

``BACCARAT_PATTERN_DAYS=N`` runs both on N gaming days instead of the small default."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from dashboards.slugs import slug_exceptions
from pipeline.ledger import pattern_inputs
from pipeline.ledger.notices import pending_notices
from pipeline.ledger.store import Ledger
from pipeline.patterns.pairs import PairCounts, pair_counts
from pipeline.patterns.stage import (
    dealt_seat_rounds,
    find_patterns,
    patron_rounds,
    settled_wagers,
    shoes_of,
)
from pipeline.rules.cards import Rank, card_value
from pipeline.simulate.faults import FaultKind, parse_faults, read_manifest, write_manifest
from tests.patterns.emulated import MONEY_ERRORS
from tests.patterns.test_slug_stage import CATALOG, FIRST, SETTINGS, emulate_days

DAYS = int(os.environ.get("BACCARAT_PATTERN_DAYS", "3"))
NEW_CODES = frozenset(
    {
        "NJ-PATTERN-INFORMED-BETTING",
        "NJ-PATTERN-DEALER-PATRON",
        "NJ-PATTERN-INFORMED-ACCUMULATED",
        "NJ-PATTERN-CARD-PREVIEW",
    }
)
FAULTS = "informed_betting=0.05,collusion=0.5"
"""Rates that put informed patrons and colluding dealers on a few tables in a few days."""
SEED = 11
"""One seed for every day: a colluding dealer keeps dealing to the same confederate."""


pytestmark = pytest.mark.xdist_group("informed-pairs-days")
"""Its tests share a module fixture that costs seconds to build: on one worker, it is built once."""


@pytest.fixture(scope="module")
def faulty(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path]]:
    root = tmp_path_factory.mktemp("informed")
    db, faults = emulate_days(root, DAYS, parse_faults(FAULTS), seed=SEED)
    manifest = root / "faults.jsonl"
    write_manifest(manifest, faults)
    yield db, manifest


def new_code_rows(ledger: Ledger) -> list[tuple[object, ...]]:
    return ledger.con.execute(
        "SELECT gaming_date, code, table_id, seat, patron_id, message FROM exceptions "
        "WHERE list_contains(?::VARCHAR[], code) ORDER BY ALL",
        [sorted(NEW_CODES)],
    ).fetchall()


def test_evaluate_finds_every_informed_patron_and_colluding_pair(
    faulty: tuple[Path, Path],
) -> None:
    """NJ-PATTERN-INFORMED-BETTING (N.J.A.C. 19:47-3.2(d), 3.7(b)) and NJ-PATTERN-DEALER-PATRON
    (3.3, 3.10(b)): ``baccarat-audit evaluate`` reports recall 1.0 for both kinds, nothing
    unexplained, and exits 0."""
    db, manifest = faulty
    kinds = {f.kind for f in read_manifest(manifest)}
    assert kinds == {FaultKind.INFORMED_BETTING.value, FaultKind.COLLUSION.value}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pipeline",
            "evaluate",
            "--db",
            str(db),
            "--manifest",
            str(manifest),
            "--json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads(run.stdout)
    assert report["false_positives"] == 0
    for kind in kinds:
        assert report["by_kind"][kind]["recall"] == 1.0, report["by_kind"]
    informed = [f for f in read_manifest(manifest) if f.kind == "informed_betting"]
    assert len(informed) >= 2


def test_a_pair_is_found_across_days_and_cites_the_errors(faulty: tuple[Path, Path]) -> None:
    """NJ-PATTERN-DEALER-PATRON (N.J.A.C. 19:47-3.3, 3.10(b)): the colluding dealer's errors
    gather over the window, so a later day's alarm names the pair's errors from the first
    day on, each error's events are in its evidence, and each overpayment is also the
    replay's own payout exception."""
    db, _ = faulty
    last = FIRST + timedelta(days=DAYS - 1)
    with Ledger(db, read_only=True) as ledger:
        rows = ledger.con.execute(
            "SELECT message, source_event_ids, actual_cents - expected_cents FROM exceptions "
            "WHERE code = 'NJ-PATTERN-DEALER-PATRON' AND gaming_date = ?",
            [last],
        ).fetchall()
        assert rows
        for message, events, gain in rows:
            assert f"from {FIRST} to {last}" in message
            assert "at most 1.0% of windows" in message and gain > 0
            replayed = ledger.con.execute(
                "SELECT count(*) FROM exceptions WHERE code NOT LIKE 'NJ-PATTERN-%' AND "
                "len(list_intersect(source_event_ids, ?)) > 0",
                [events],
            ).fetchone()
            assert replayed is not None and replayed[0] > 0


def test_every_alarm_is_announced_once_and_a_second_search_changes_nothing(
    faulty: tuple[Path, Path],
) -> None:
    """NJ-PATTERN-INFORMED-BETTING, NJ-PATTERN-DEALER-PATRON (N.J.A.C. 19:47-3.2(d), 3.3): each
    alarm has one RAISED notice for the audit-exceptions topic; searching a day again writes
    the same rows and no second notice."""
    db, _ = faulty
    with Ledger(db) as ledger:
        before = new_code_rows(ledger)
        notices = [n for n in pending_notices(ledger) if n.code in NEW_CODES]
        assert len(notices) == len(before)
        find_patterns(ledger, FIRST + timedelta(days=DAYS - 1), SETTINGS, CATALOG)
        assert new_code_rows(ledger) == before
        assert len([n for n in pending_notices(ledger) if n.code in NEW_CODES]) == len(notices)


def test_the_ledger_records_match_what_the_replay_derived(faulty: tuple[Path, Path]) -> None:
    """NJ-PATTERN-INFORMED-BETTING, NJ-PATTERN-DEALER-PATRON (N.J.A.C. 19:47-3.2(d), 3.3): one
    scored wager per settled Banker, Player or Tie wager with a patron; one seat-round per
    seat with a patron in a round, each with a dealer; errors only where money moved wrong.
    The wagers come a table at a time, so the stage never holds the day's."""
    db, _ = faulty
    with Ledger(db, read_only=True) as ledger:
        tables = list(settled_wagers(ledger, FIRST, CATALOG))
        settled = ledger.con.execute(
            "SELECT count(*) FROM settlements WHERE gaming_date = ? AND patron_id IS NOT NULL "
            "AND wager IN ('BANKER', 'PLAYER', 'TIE') AND expected_result IS NOT NULL",
            [FIRST],
        ).fetchone()
        seat_rounds = dealt_seat_rounds(ledger, FIRST, FIRST)
        erred_read = dealt_seat_rounds(ledger, FIRST, FIRST, erred_only=True)
        counted = [PairCounts(*row) for row in pattern_inputs.pair_counts(ledger, FIRST, FIRST)]
        seats = ledger.con.execute(
            "SELECT count(*) FROM (SELECT DISTINCT table_id, round_id, seat FROM settlements "
            "WHERE gaming_date = ? AND patron_id IS NOT NULL)",
            [FIRST],
        ).fetchone()
        # what moved to the patron: the payout, less the stake of a losing wager
        payout_errors = ledger.con.execute(
            "SELECT count(DISTINCT (table_id, round_id, seat)) FROM settlements "
            "WHERE gaming_date = ? AND recorded_paid_cents - CASE WHEN recorded_result = "
            "'LOSE' THEN stake_cents ELSE 0 END <> expected_paid_cents - CASE WHEN "
            "expected_result = 'LOSE' THEN stake_cents ELSE 0 END",
            [FIRST],
        ).fetchone()
    wagers = [w for table, _ in tables for w in table]
    assert settled is not None and len(wagers) == settled[0] > 0
    # a table at a time, in table order, each with its own rules alone
    ids = [{w.table_id for w in table} for table, _ in tables]
    assert all(len(one) == 1 for one in ids)
    assert [rules.keys() for _, rules in tables] == [{(t, FIRST)} for (t,) in ids]
    assert [t for (t,) in ids] == sorted({w.table_id for w in wagers})
    assert seats is not None and len(seat_rounds) == seats[0]
    assert all(r.dealer_id.startswith("DLR-") for r in seat_rounds)
    erred = [r for r in seat_rounds if r.erred]
    assert payout_errors is not None and len(erred) == payout_errors[0] > 0
    assert all(r.event_ids for r in erred)
    # the stage reads the pairs counted and only the erred seat-rounds one by one
    assert erred_read == erred and counted == pair_counts(seat_rounds)


def test_a_patrons_window_is_every_decided_wager_with_its_next_card(
    faulty: tuple[Path, Path],
) -> None:
    """NJ-PATTERN-CARD-PREVIEW, NJ-PATTERN-INFORMED-ACCUMULATED (N.J.A.C. 19:47-3.7(b)-(c)):
    the window's rounds of the patrons who played the last day, each decided Banker or Player
    wager once, in the order of the days, with the round's first card as the cards table
    holds it and odds of the next card that give it a chance."""
    db, _ = faulty
    last = FIRST + timedelta(days=DAYS - 1)
    with Ledger(db, read_only=True) as ledger:
        rounds = patron_rounds(ledger, FIRST, last, shoes_of(ledger, FIRST, last), CATALOG)
        wanted = ledger.con.execute(
            "SELECT count(*), count(DISTINCT patron_id) FROM settlements WHERE gaming_date "
            "BETWEEN ? AND ? AND wager IN ('BANKER', 'PLAYER') AND expected_result IN "
            "('WIN', 'LOSE') AND patron_id IN (SELECT patron_id FROM settlements WHERE "
            "gaming_date = ? AND wager IN ('BANKER', 'PLAYER', 'TIE') AND expected_result IN "
            "('WIN', 'LOSE'))",
            [FIRST, last, last],
        ).fetchall()[0]
        first_cards = dict(
            ((t, r), rank)
            for t, r, rank in ledger.con.execute(
                "SELECT table_id, round_id, arg_min(rank, position) FROM cards WHERE "
                "round_id IS NOT NULL AND position IS NOT NULL GROUP BY ALL"
            ).fetchall()
        )
    assert (len(rounds), len({r.patron_id for r in rounds})) == wanted and wanted[0] > 0
    assert [r.gaming_date for r in rounds] == sorted(r.gaming_date for r in rounds)
    assert len({r.gaming_date for r in rounds}) == DAYS
    previewed = [r for r in rounds if r.next_card is not None]
    assert len(previewed) == len(rounds)
    for r in previewed:
        assert r.next_card is not None and r.next_card_odds is not None
        assert abs(sum(r.next_card_odds) - 1) < 1e-9 and r.next_card_odds[r.next_card] > 0
        assert r.next_card == card_value(Rank[first_cards[r.table_id, r.round_id]])


def test_the_false_shuffles_page_lists_none_of_them(faulty: tuple[Path, Path]) -> None:
    """NJ-PATTERN-INFORMED-BETTING, NJ-PATTERN-DEALER-PATRON (N.J.A.C. 19:47-3.2(d), 3.3): the
    analyst's slug page reads false-shuffle codes only; these alarms are in the exception
    queue, not beside a shoe they do not repeat."""
    db, _ = faulty
    with Ledger(db, read_only=True) as ledger:
        assert new_code_rows(ledger)
        for n in range(DAYS):
            assert slug_exceptions(ledger, FIRST + timedelta(days=n)).empty


def test_honest_dealing_over_several_days_raises_neither(tmp_path: Path) -> None:
    """NJ-PATTERN-INFORMED-BETTING, NJ-PATTERN-DEALER-PATRON (N.J.A.C. 19:47-3.2(d), 3.3):
    days with the dealers' ordinary payout and vigorish slips and nobody informed raise no
    pattern alarm (each at most 1 % a day or window); the slips are the replay's findings,
    all explained."""
    db, faults = emulate_days(tmp_path, DAYS, MONEY_ERRORS, seed=SEED)
    assert faults and {f.kind for f in faults} <= {"payout", "vigorish"}
    with Ledger(db, read_only=True) as ledger:
        assert new_code_rows(ledger) == []
