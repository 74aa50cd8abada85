"""Evidence carried from day to day gives the windowed computation's results: each gaming day
carries its patrons' scored rounds and its dealer-patron pairs counted
(:func:`pipeline.patterns.stage.carry_window`), and the stage judges a day from them and
the day's own rows. The windowed computation (every round of the window read and scored
again) stays here as the reference, on emulated days with patient cheats
(NJ-PATTERN-INFORMED-ACCUMULATED, NJ-PATTERN-CARD-PREVIEW: N.J.A.C. 19:47-3.2(d),
3.7(b)-(c)) and a weak dealer-patron pair (NJ-PATTERN-DEALER-PATRON: 3.3, 3.10(b)), with a
window short enough that days leave it.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path

import numpy as np
import pytest

from pipeline.config.catalog import DEFAULT_CATALOG, load_catalog
from pipeline.config.patterns import PatternSettings
from pipeline.ingest.pits import judge_pits
from pipeline.ingest.stage import replay_deliveries
from pipeline.ledger import pattern_inputs as ledger_patterns
from pipeline.ledger.store import Ledger
from pipeline.patterns.evidence import (
    ACCUMULATED_CODE,
    PREVIEW_CODE,
    WindowRounds,
    accumulated_evidence,
)
from pipeline.patterns.evidence import scored_rounds as scored_of
from pipeline.patterns.pairs import CODE as PAIR_CODE
from pipeline.patterns.pairs import PairCounts
from pipeline.patterns.stage import (
    carried_scores,
    carry_window,
    evidence_findings,
    patron_rounds,
    recorded_requests,
    shifted,
    shoes_of,
)
from pipeline.replay.findings import Finding
from pipeline.simulate.faults import FaultKind
from tests.patterns.test_slug_stage import FIRST, emulate_days

DAYS = 4
WINDOW = 2
"""Days 3 and 4 drop the window's first day."""
RATES = {
    FaultKind.PATIENT_INFORMED: 0.3,
    FaultKind.EDGE_SORTER: 0.3,
    FaultKind.WEAK_PAIR: 0.5,
    FaultKind.PAYOUT: 0.004,
}
CATALOG = load_catalog(DEFAULT_CATALOG)
SETTINGS = PatternSettings(window_days=WINDOW)
GAMING_DAYS = [FIRST + timedelta(days=n) for n in range(DAYS)]


# --dist loadgroup keeps the module on one worker; its day is session-scoped there, as a
# module-scoped one is built again whenever the worker runs another module's test between two
# of this one's
pytestmark = pytest.mark.xdist_group("carried-evidence-days")


@pytest.fixture(scope="session")
def ledger_days(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("carried")
    db, _ = emulate_days(root, DAYS, RATES, tables=3, hours=4, seed=11)
    yield db


def windowed_evidence(ledger: Ledger, day: date) -> list[Finding]:
    """The reference: every patron's rounds of the window read and scored again."""
    first = shifted(day, -WINDOW)
    shoes = shoes_of(ledger, first, day)
    return accumulated_evidence(
        patron_rounds(ledger, first, day, shoes, CATALOG),
        day,
        SETTINGS.evidence_false_alarm_rate,
        WINDOW,
        recorded_requests(ledger, first, day),
    )


def scored_window(ledger: Ledger, first: date, day: date) -> WindowRounds:
    """The window's rows of the patrons who played ``day``, as the reference reads them."""
    return patron_rounds(ledger, first, day, shoes_of(ledger, first, day), CATALOG)


def carried_evidence(ledger: Ledger, day: date) -> list[Finding]:
    first = shifted(day, -WINDOW)
    shoes = shoes_of(ledger, first, day)
    carry_window(ledger, first, day, shoes, CATALOG)
    return list(
        evidence_findings(
            ledger, first, day, shoes, CATALOG, SETTINGS, recorded_requests(ledger, first, day)
        )
    )


@pytest.mark.rule(ACCUMULATED_CODE)
@pytest.mark.rule(PREVIEW_CODE)
def test_the_carried_evidence_alarms_as_the_windowed_does(ledger_days: Path) -> None:
    """NJ-PATTERN-INFORMED-ACCUMULATED, NJ-PATTERN-CARD-PREVIEW (N.J.A.C. 19:47-3.2(d),
    3.7(b)-(c)): on every day, the alarms from the carried days are the windowed
    computation's, message for message (the same evidence, days and rounds cited), and
    each patron's carried rounds are the window's scored rows: the same stakes, outcomes
    and odds, the same card-preview steps within float rounding."""
    alarms = 0
    with Ledger(ledger_days) as ledger:
        for day in GAMING_DAYS:
            first = shifted(day, -WINDOW)
            reference = windowed_evidence(ledger, day)
            assert carried_evidence(ledger, day) == reference, day
            alarms += len(reference)
            window = scored_of(
                patron_rounds(ledger, first, day, shoes_of(ledger, first, day), CATALOG)
            )
            carried = carried_scores(ledger, first, day)
            today = {
                p
                for p, (_, s) in scored_of(
                    patron_rounds(ledger, day, day, shoes_of(ledger, day, day), CATALOG)
                ).items()
                if len(s)
            }
            assert set(carried) == today, day
            for patron, scored in carried.items():
                _, expected = window[patron]
                assert scored.stake_cents.tolist() == expected.stake_cents.tolist()
                assert scored.won.tolist() == expected.won.tolist()
                assert scored.win_probability.tolist() == expected.win_probability.tolist()
                np.testing.assert_allclose(
                    scored.preview_step, expected.preview_step, rtol=1e-12, equal_nan=True
                )
    assert alarms > 0, "the patient cheats must alarm for the comparison to mean anything"


@pytest.mark.rule(PAIR_CODE)
def test_the_carried_pair_counts_are_the_windows(ledger_days: Path) -> None:
    """NJ-PATTERN-DEALER-PATRON (N.J.A.C. 19:47-3.3, 3.10(b)): the pairs summed from the days
    carried are the pairs counted over the window's seat-rounds, and the stage's pair
    findings of each day (as the nightly runs wrote them) are there."""
    with Ledger(ledger_days) as ledger:
        for day in GAMING_DAYS:
            first = shifted(day, -WINDOW)
            carry_window(ledger, first, day, shoes_of(ledger, first, day), CATALOG)
            carried = [
                PairCounts(*r) for r in ledger_patterns.carried_pair_counts(ledger, first, day)
            ]
            windowed = [PairCounts(*r) for r in ledger_patterns.pair_counts(ledger, first, day)]
            assert carried == windowed, day
            assert sum(c.erred for c in carried) > 0, "the weak pair's errors are counted"


@pytest.mark.rule(ACCUMULATED_CODE)
def test_a_day_replayed_again_is_carried_again_and_only_it(ledger_days: Path) -> None:
    """NJ-PATTERN-INFORMED-ACCUMULATED (N.J.A.C. 19:47-3.2(d)): a window already carried is
    not carried again; a table-day of an earlier day replayed again (its derivation
    changed) makes exactly that day carried again, since a day's contribution depends on
    its own rows alone; the days before the window are forgotten; and the alarms after
    are still the windowed computation's."""
    last = GAMING_DAYS[-1]
    first = shifted(last, -WINDOW)
    with Ledger(ledger_days) as ledger:
        shoes = shoes_of(ledger, first, last)
        carry_window(ledger, first, last, shoes, CATALOG)
        assert carry_window(ledger, first, last, shoes, CATALOG) == 0
        [table_id, *_] = ledger.tables_of_day(first)
        with ledger.transaction():
            ledger.replace_table_day(
                table_id,
                first,
                replay_deliveries(table_id, ledger.deliveries_for(table_id, first), CATALOG),
            )
            judge_pits(ledger)
        assert carry_window(ledger, first, last, shoes, CATALOG) == 1
        assert set(ledger_patterns.carried_inputs(ledger, FIRST, last)) == {
            first + timedelta(days=n) for n in range(WINDOW + 1)
        }
        assert carried_evidence(ledger, last) == windowed_evidence(ledger, last)


@pytest.mark.rule(ACCUMULATED_CODE)
def test_days_without_rows_carry_nothing(ledger_days: Path) -> None:
    """NJ-PATTERN-INFORMED-ACCUMULATED (N.J.A.C. 19:47-3.2(d)): a window reaching before the
    ledger's first gaming day (a property's first week) carries the days that have rows and
    writes nothing for the others."""
    day = GAMING_DAYS[0]
    first = shifted(day, -WINDOW - 3)
    with Ledger(ledger_days) as ledger:
        ledger_patterns.forget_carried(ledger, day)
        assert carry_window(ledger, first, day, shoes_of(ledger, first, day), CATALOG) == 1
        assert set(ledger_patterns.carried_inputs(ledger, first, day)) == {day}


def test_a_patron_first_seen_today_is_scored_over_today_alone(ledger_days: Path) -> None:
    """NJ-PATTERN-INFORMED-ACCUMULATED (N.J.A.C. 19:47-3.2(d)): on the first day (nothing
    carried before it) every patron's carried rounds are the day's own."""
    with Ledger(ledger_days) as ledger:
        day = GAMING_DAYS[0]
        first = shifted(day, -WINDOW)
        carry_window(ledger, first, day, shoes_of(ledger, first, day), CATALOG)
        today = scored_of(scored_window(ledger, day, day))
        carried = carried_scores(ledger, first, day)
        assert carried and set(carried) == set(today)
        for patron, scored in carried.items():
            assert scored.stake_cents.tolist() == today[patron][1].stake_cents.tolist()
