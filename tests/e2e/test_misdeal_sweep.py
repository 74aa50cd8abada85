"""The Chemin de Fer Banker's misdeals (N.J.A.C. 19:47-4.12(a)-(d), (i)) and the last hand of a
shoe with a card found face up (4.12(j)) over 20 seeds, at a Chemin de Fer and a Minibaccarat
table of the emulated floor: with every fault kind on, each injected fault is found and every
exception has an injected cause (recall and precision 1.0); on clean days the misdeals and the
face-up cards still happen, handled by the rule, and nothing is found.

Small by default (3 hours a table-day, about 25 s for both tests on one core);
``MISDEAL_SWEEP_HOURS`` makes the days longer."""

from __future__ import annotations

import os
from collections import Counter
from datetime import date

import pytest

from pipeline.config.catalog import load_catalog
from pipeline.replay.machine import replay_table
from pipeline.reports.groundtruth import ExceptionKey, matches
from pipeline.rules.games import Game
from pipeline.simulate.faults import DEFAULT_RATES, PATTERN_KINDS
from pipeline.simulate.misdeals import LAST_HAND_FACE_UP, MISDEALS, REPORTED_KIND
from pipeline.simulate.run import TablePlan, plan_floor, simulate_table

DAY = date(2026, 11, 24)
SEEDS = range(200, 220)
HOURS = float(os.environ.get("MISDEAL_SWEEP_HOURS", "3"))
RATES = {
    kind: min(1.0, rate * 3) for kind, rate in DEFAULT_RATES.items() if kind not in PATTERN_KINDS
}
"""Three times the default rates, as the floor-wide sweep (test_recall_across_seeds) uses."""
CHEMIN_DE_FER_CODES = {
    "CF-4.12a-WRONG-ORDER",
    "CF-4.12b-BANKER-EXTRA",
    "CF-4.12c-PLAYER-EXTRA",
    "CF-4.12d-BANKER-TWO",
    "CF-4.12i-CARD-TO-PLAYER",
    "CF-4.12j-LAST-HAND-VOID",
}


def tables() -> list[TablePlan]:
    """The floor's first Chemin de Fer and first Minibaccarat table."""
    plans = plan_floor(4)
    return [
        next(p for p in plans if p.rules.game is game)
        for game in (Game.CHEMIN_DE_FER, Game.MINIBACCARAT)
    ]


@pytest.mark.rule(*sorted(CHEMIN_DE_FER_CODES))
def test_misdeals_found_and_only_found_over_20_seeds() -> None:
    """CF-4.12a-WRONG-ORDER, CF-4.12b-BANKER-EXTRA, CF-4.12c-PLAYER-EXTRA, CF-4.12d-BANKER-TWO,
    CF-4.12i-CARD-TO-PLAYER, CF-4.12j-LAST-HAND-VOID, N.J.A.C. 19:47-4.12(a)-(d), (i), (j):
    every kind of misdeal, and a last hand settled though a card of it was found face up, is
    injected at least once over the sweep, every injected fault (of any kind) is found at its
    table and round, and no exception lacks an injected cause."""
    catalog = load_catalog()
    injected: Counter[str] = Counter()
    found: Counter[str] = Counter()
    unexplained: list[str] = []
    for seed in SEEDS:
        for plan in tables():
            events, faults = simulate_table(plan, DAY, HOURS, seed, RATES)
            findings = replay_table(plan.table_id, events, catalog).findings
            keys = [
                ExceptionKey(
                    f"{seed}-{f.table_id}-{i}",
                    f.code,
                    f.table_id,
                    f.round_id,
                    f.seat,
                    f.serial,
                    f.event_ids,
                    f.patron_id,
                )
                for i, f in enumerate(findings)
            ]
            explained: set[str] = set()
            for fault in faults:
                hits = [k for k in keys if matches(fault, k)]
                injected[fault.rule_code] += 1
                found[fault.rule_code] += bool(hits)
                explained.update(k.exception_id for k in hits)
            unexplained += [f"seed {seed}: {k}" for k in keys if k.exception_id not in explained]
    missed = {
        code: injected[code] - found[code] for code in injected if found[code] < injected[code]
    }
    assert set(injected) >= CHEMIN_DE_FER_CODES, sorted(CHEMIN_DE_FER_CODES - set(injected))
    assert missed == {}, missed
    assert unexplained == [], unexplained[:5]


@pytest.mark.rule(*sorted(CHEMIN_DE_FER_CODES))
def test_clean_days_with_misdeals_find_nothing() -> None:
    """CF-4.12a-WRONG-ORDER, CF-4.12b-BANKER-EXTRA, CF-4.12c-PLAYER-EXTRA, CF-4.12d-BANKER-TWO,
    CF-4.12i-CARD-TO-PLAYER, CF-4.12j-LAST-HAND-VOID, N.J.A.C. 19:47-4.12(a)-(d), (i), (j): with
    no fault switched on the Banker still misdeals and cards of a shoe's last hand are still
    found face up (every kind the pit reports appears), each handled by the rule (the last
    hand voided under 4.12(j)), and the replay finds nothing at either table."""
    catalog = load_catalog()
    reported: Counter[tuple[str, bool]] = Counter()
    void_codes: Counter[str] = Counter()
    findings = []
    for seed in SEEDS:
        for plan in tables():
            events, faults = simulate_table(plan, DAY, HOURS, seed, {})
            assert faults == []
            reported.update(
                (str(e.get("kind")), e.get("position") is None)
                for e in events
                if e.payload_type == "IrregularityReported" and e.round_id is not None
            )
            void_codes.update(
                str(e.get("rule_code")) for e in events if e.payload_type == "RoundVoided"
            )
            findings += replay_table(plan.table_id, events, catalog).findings
    # every misdeal's report: unnamed for 4.12(a)-(d), naming the card for 4.12(i) and (j)
    named = {"banker_took_player_card", LAST_HAND_FACE_UP}
    expected = {(REPORTED_KIND[m], m not in named) for m in (*MISDEALS, LAST_HAND_FACE_UP)}
    assert expected <= set(reported), sorted(expected - set(reported))
    assert void_codes["CF-4.12j-LAST-HAND-VOID"] > 0, void_codes
    assert findings == [], [f.render() for f in findings[:5]]
