"""Dealer-patron pairs (NJ-PATTERN-DEALER-PATRON; basis N.J.A.C. 19:47-3.3, 3.10(b)): the
hypergeometric tests, their invariants, and recall and false-alarm rate on emulated days."""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections.abc import Sequence
from datetime import date, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.patterns.pairs import (
    CODE,
    DEFAULT_FALSE_ALARM_RATE,
    DealtSeatRound,
    PairCounts,
    dealer_patron_pairs,
    hypergeometric_tail,
    pair_counts,
    pair_findings,
    reported_pair_findings,
    window_moved_back,
)
from pipeline.replay.findings import Severity
from pipeline.rules.codes import rule
from pipeline.simulate.faults import FaultKind
from tests.patterns.emulated import CLEAN_DAYS, clean_days, dealt_seat_rounds, faulty_days

DAY = date(2026, 11, 2)
ACCUSING = ("cheat", "fraud", "collud", "guilty", "thief", "steal")


def seat_round(
    n: int, patron: str, gain: int = 0, dealer: str = "DLR-1", day: int = 0
) -> DealtSeatRound:
    return DealtSeatRound(
        table_id="T01",
        gaming_date=DAY + timedelta(days=day),
        round_id=f"T01-R{n:04d}",
        seat=1 + n % 7,
        dealer_id=dealer,
        patron_id=patron,
        expected_cents=5_000,
        actual_cents=5_000 + gain,
        event_ids=(f"settled-{n}",) if gain else (),
    )


def colluding_week(overpaid: int = 12) -> list[DealtSeatRound]:
    """Seven days of 400 seat-rounds of one dealer among 20 patrons; the dealer slips six times
    a day at random patrons (half each way), and overpays PAT-07 ``overpaid`` times in all."""
    rng = random.Random(4)
    records = []
    n = 0
    for day in range(7):
        for k in range(400):
            patron = f"PAT-{k % 20:02d}"
            records.append(seat_round(n, patron, day=day))
            n += 1
        for slip in rng.sample(range(len(records) - 400, len(records)), 6):
            records[slip] = dataclasses.replace(
                records[slip], actual_cents=5_000 + rng.choice((-500, 500)), event_ids=("x",)
            )
    confederate = [i for i, r in enumerate(records) if r.patron_id == "PAT-07" and not r.erred]
    for i in rng.sample(confederate, overpaid):
        records[i] = dataclasses.replace(
            records[i], actual_cents=5_250, event_ids=(f"overpaid-{i}",)
        )
    return records


@pytest.mark.rule(CODE)
def test_a_dealers_overpayments_gathering_on_one_patron_alarm_with_rounds_and_amounts() -> None:
    """NJ-PATTERN-DEALER-PATRON: the alarm names the dealer and the patron, lists the rounds
    and amounts, cites every error's events, states its false-alarm rate and accuses no one
    (N.J.A.C. 19:47-3.10(b))."""
    records = colluding_week()
    [finding] = dealer_patron_pairs(records)
    theirs = [r for r in records if r.patron_id == "PAT-07" and r.erred]
    assert finding.code == CODE and finding.severity is Severity.HIGH
    assert finding.patron_id == "PAT-07" and finding.table_id == "T01"
    assert "Dealer DLR-1's" in finding.message
    assert set(finding.event_ids) == {i for r in theirs for i in r.event_ids}
    assert finding.actual_cents is not None and finding.expected_cents is not None
    assert finding.actual_cents - finding.expected_cents == sum(r.patron_gain_cents for r in theirs)
    assert f"{theirs[0].round_id} seat {theirs[0].seat} (+$2.50)" in finding.message
    assert "at most 1.0% of windows" in finding.message
    assert not any(word in finding.message.lower() for word in ACCUSING)
    assert rule(CODE).citation == "N.J.A.C. 19:47-3.3, 3.10(b)"


def test_the_p_values_are_the_hypergeometric_tails() -> None:
    """Given the dealer's totals, the pair's errors are hypergeometric: the message carries
    the exact tail."""
    records = colluding_week()
    [finding] = dealer_patron_pairs(records)
    dealt, errors = len(records), sum(r.erred for r in records)
    theirs = [r for r in records if r.patron_id == "PAT-07"]
    tail = hypergeometric_tail(sum(r.erred for r in theirs), dealt, errors, len(theirs))
    assert f"probability {tail:.1e} (errors)" in finding.message


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.data())
def test_the_hypergeometric_tail_is_exact(population: int, data: st.DataObject) -> None:
    """The tail equals counting every way to draw the seat-rounds."""
    marked = data.draw(st.integers(0, population))
    drawn = data.draw(st.integers(0, population))
    at_least = data.draw(st.integers(0, drawn + 1))
    if population > 12:
        # too many subsets to list: check it is a probability that falls as the bar rises
        tails = [hypergeometric_tail(k, population, marked, drawn) for k in range(drawn + 2)]
        assert tails[0] == pytest.approx(1.0) and tails[-1] == 0.0
        assert all(a >= b for a, b in itertools.pairwise(tails))
        return
    subsets = list(itertools.combinations(range(population), drawn))
    hits = sum(sum(i < marked for i in subset) >= at_least for subset in subsets)
    assert hypergeometric_tail(at_least, population, marked, drawn) == pytest.approx(
        hits / len(subsets), rel=1e-9, abs=1e-15
    )


def test_an_impossible_draw_is_refused() -> None:
    with pytest.raises(ValueError, match="within the population of 10"):
        hypergeometric_tail(1, 10, 11, 3)


def test_a_careless_dealer_is_no_suspect() -> None:
    """A dealer who errs often errs for everyone: many errors spread over all patrons do not
    alarm, because the test conditions on the dealer's own error count."""
    rng = random.Random(9)
    records = [seat_round(n, f"PAT-{n % 20:02d}", rng.choice((0, 0, 0, 500))) for n in range(4_000)]
    assert dealer_patron_pairs(records) == []


def test_a_dealers_errors_against_one_patron_also_alarm() -> None:
    """Errors that concentrate on one pair are worth a look whichever way they go."""
    records = [
        dataclasses.replace(r, actual_cents=5_000 - (r.actual_cents - 5_000))
        if r.patron_id == "PAT-07"
        else r
        for r in colluding_week(overpaid=20)
    ]
    [finding] = dealer_patron_pairs(records)
    assert finding.patron_id == "PAT-07"
    assert finding.actual_cents is not None and finding.expected_cents is not None
    assert finding.actual_cents < finding.expected_cents


def test_a_few_overpayments_over_a_week_stay_below_the_bar() -> None:
    """Two overpayments to one of twenty patrons in a week is what chance does: no alarm."""
    assert dealer_patron_pairs(colluding_week(overpaid=2)) == []


@pytest.mark.parametrize("rate", [0.0, 1.0, -0.1, 2.0])
def test_a_false_alarm_rate_outside_0_1_is_refused(rate: float) -> None:
    with pytest.raises(ValueError, match="between 0 and 1, got"):
        dealer_patron_pairs(colluding_week(), false_alarm_rate=rate)


# --- reporting across gaming days -----------------------------------------------------------


def weak_pair_days(clean_seat_rounds: int = 1_000) -> list[DealtSeatRound]:
    """Days 0-2: one dealer deals 100 seat-rounds a day among ten patrons, overpays PAT-07
    three times and underpays others eight times; day 3: ``clean_seat_rounds`` seat-rounds of
    the others without an error and without PAT-07. The dealer's share of seat-rounds dealt to
    PAT-07 shrinks on day 3, so the same three overpayments weigh more over the window ending
    it than over the one ending day 2."""
    records = [seat_round(n, f"PAT-{n % 10:02d}", day=n // 100) for n in range(300)]
    confederate = [i for i, r in enumerate(records) if r.patron_id == "PAT-07"]
    others = [i for i, r in enumerate(records) if r.patron_id != "PAT-07"]
    for i in confederate[:9:3]:
        records[i] = dataclasses.replace(records[i], actual_cents=5_300, event_ids=(f"over-{i}",))
    for i in others[:80:10]:
        records[i] = dataclasses.replace(records[i], actual_cents=4_700, event_ids=(f"under-{i}",))
    patrons = [f"PAT-{k:02d}" for k in range(10) if k != 7]
    records += [
        seat_round(300 + n, patrons[n % len(patrons)], day=3) for n in range(clean_seat_rounds)
    ]
    return records


def window(records: Sequence[DealtSeatRound], first: int, last: int) -> list[DealtSeatRound]:
    return [r for r in records if first <= (r.gaming_date - DAY).days <= last]


def counted(records: Sequence[DealtSeatRound]) -> tuple[list[PairCounts], list[DealtSeatRound]]:
    return pair_counts(records), [r for r in records if r.erred]


def never_read() -> list[PairCounts]:
    raise AssertionError("the window ending the day before was read for a pair that erred today")


@pytest.mark.rule(CODE)
def test_a_pair_crossing_the_bar_on_a_day_without_its_own_error_is_reported_that_day() -> None:
    """NJ-PATTERN-DEALER-PATRON (N.J.A.C. 19:47-3.3, 3.10(b)): a pair that did not alarm over
    the window ending day 2 and alarms over the one ending day 3, with no error of its own on
    day 3, is reported on day 3, citing its errors of the earlier days."""
    records = weak_pair_days()
    assert pair_findings(*counted(window(records, 0, 2))) == []
    [finding] = reported_pair_findings(
        pair_counts(window(records, 0, 3)),
        lambda: counted(window(records, 0, 3))[1],
        DAY + timedelta(days=3),
        lambda: pair_counts(window(records, -1, 2)),
    )
    assert finding.code == CODE and finding.patron_id == "PAT-07"
    assert set(finding.event_ids) == {i for r in records for i in r.event_ids if "over" in i}


@pytest.mark.rule(CODE)
def test_a_pair_alarming_the_day_before_and_adding_no_error_is_not_reported_again() -> None:
    """NJ-PATTERN-DEALER-PATRON (N.J.A.C. 19:47-3.3, 3.10(b)): once reported, a pair whose
    evidence only carries on (day 4 adds clean seat-rounds, no error of the pair) is not
    repeated."""
    records = weak_pair_days() + [seat_round(2_000 + n, "PAT-01", day=4) for n in range(100)]
    assert pair_findings(*counted(window(records, 0, 3)))
    assert pair_findings(*counted(window(records, 0, 4)))
    reported = reported_pair_findings(
        pair_counts(window(records, 0, 4)),
        lambda: counted(window(records, 0, 4))[1],
        DAY + timedelta(days=4),
        lambda: pair_counts(window(records, -1, 3)),
    )
    assert reported == []


@pytest.mark.rule(CODE)
def test_a_day_adding_an_error_of_an_alarming_pair_reports_it_without_the_day_before() -> None:
    """NJ-PATTERN-DEALER-PATRON (N.J.A.C. 19:47-3.3, 3.10(b)): a pair alarming over the window
    is reported again on each day with an error of its own, and the window ending the day
    before is not read for it."""
    overpaid = dataclasses.replace(
        seat_round(3_000, "PAT-07", day=4), actual_cents=5_300, event_ids=("over-day-4",)
    )
    records = [*weak_pair_days(), overpaid]
    [finding] = reported_pair_findings(
        pair_counts(window(records, 0, 4)),
        lambda: counted(window(records, 0, 4))[1],
        DAY + timedelta(days=4),
        never_read,
    )
    assert finding.patron_id == "PAT-07" and "over-day-4" in finding.event_ids


@pytest.mark.rule(CODE)
def test_a_window_moved_back_a_day_counts_what_that_window_holds() -> None:
    """NJ-PATTERN-DEALER-PATRON (N.J.A.C. 19:47-3.3, 3.10(b)): the window ending the day before,
    from the day's window less its last day plus the day before its first, counts exactly
    the seat-rounds of that window (a pair only in the day left out is gone)."""
    records = [*colluding_week(), seat_round(9_000, "PAT-LAST", day=6)]
    moved = window_moved_back(
        pair_counts(window(records, 1, 6)),
        pair_counts(window(records, 6, 6)),
        pair_counts(window(records, 0, 0)),
    )
    assert moved == pair_counts(window(records, 0, 5))
    assert "PAT-LAST" not in {c.patron_id for c in moved}


# --- invariants ------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32))
def test_permuting_patrons_and_records_does_not_change_findings(seed: int) -> None:
    """Renaming patrons renames their findings and nothing else; order does not matter."""
    rng = random.Random(seed)
    records = colluding_week()
    names = sorted({r.patron_id for r in records})
    renamed = dict(zip(names, rng.sample(names, len(names)), strict=True))
    shuffled = [dataclasses.replace(r, patron_id=renamed[r.patron_id]) for r in records]
    rng.shuffle(shuffled)
    [before] = dealer_patron_pairs(records)
    [after] = dealer_patron_pairs(shuffled)
    assert after.patron_id == renamed[str(before.patron_id)]
    assert after.event_ids == before.event_ids
    assert after.message == before.message.replace(str(before.patron_id), str(after.patron_id))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 3)), min_size=1, max_size=300))
def test_a_dealer_without_errors_never_alarms(seats: list[tuple[int, int]]) -> None:
    """No error, no alarm, however the seat-rounds fall between patrons and dealers."""
    records = [
        seat_round(n, f"PAT-{patron}", dealer=f"DLR-{dealer}")
        for n, (patron, dealer) in enumerate(seats)
    ]
    assert dealer_patron_pairs(records, false_alarm_rate=0.99) == []


# --- emulated gaming days ------------------------------------------------------------------


def test_every_colluding_pair_is_found_on_emulated_days() -> None:
    """Recall 1.0 for ``collusion`` at its stated effect size (15 % of the confederate's
    winning wagers overpaid by 5 %, at least $1): every colluding pair alarms on every day and
    over the whole window, at the table the manifest names, among ordinary payout slips."""
    days = faulty_days()
    window = [r for d in days for r in dealt_seat_rounds(d)]
    over_window = {(f.table_id, f.patron_id) for f in dealer_patron_pairs(window)}
    pairs = 0
    for day in days:
        found = {(f.table_id, f.patron_id) for f in dealer_patron_pairs(dealt_seat_rounds(day))}
        for fault in day.faults:
            if fault.kind == FaultKind.COLLUSION.value and fault.rule_code == CODE:
                pairs += 1
                patron = fault.detail.split()[4]  # "dealer D overpays patron P ..."
                assert (fault.table_id, patron) in found, fault
                assert (fault.table_id, patron) in over_window, fault
    assert pairs >= 3


def test_each_overpayment_is_also_the_replays_payout_finding() -> None:
    """The manifest's per-wager ``collusion`` lines are found by the replay like any payout
    fault: its finding carries their code at their round and seat."""
    checked = 0
    for day in faulty_days():
        findings = {
            (f.code, f.table_id, f.round_id, f.seat)
            for replay in day.replays.values()
            for f in replay.findings
        }
        for fault in day.faults:
            if fault.kind == FaultKind.COLLUSION.value and fault.rule_code != CODE:
                assert (fault.rule_code, fault.table_id, fault.round_id, fault.seat) in findings
                checked += 1
    assert checked >= 20


def test_the_false_alarm_rate_on_clean_days_is_within_the_stated_one() -> None:
    """On at least 30 clean emulated gaming days (the dealers' ordinary payout and vigorish
    slips, nobody colluding), the share of days with any alarm, and the one window of all of
    them, stay within the configured rate."""
    days = clean_days()
    assert len(days) == CLEAN_DAYS >= 30
    records = [dealt_seat_rounds(d) for d in days]
    assert sum(r.erred for rs in records for r in rs) >= 30  # the slips are there
    alarmed_days = sum(bool(dealer_patron_pairs(rs)) for rs in records)
    assert alarmed_days / len(days) <= DEFAULT_FALSE_ALARM_RATE
    assert dealer_patron_pairs([r for rs in records for r in rs]) == []
