"""NJ-PATTERN-CARD-PREVIEW and NJ-PATTERN-INFORMED-ACCUMULATED (N.J.A.C. 19:47-3.2(d),
3.7(b), 3.7(c)): evidence that accumulates per patron across the window's tables and days.

The cheats are played card by card on floors written apart from the emulator
(:mod:`tests.patterns.floors`). ``EVIDENCE_DAYS=N`` measures the clean floors over ``N`` gaming
days (default 20; the figures in docs/patterns.md use 100).
"""

from __future__ import annotations

import math
import os
from datetime import timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.config.patterns import pattern_settings
from pipeline.oracle import outcome_counts, shoe_counts
from pipeline.patterns.evidence import (
    ACCUMULATED_CODE,
    PREVIEW_CODE,
    PREVIEW_LAMBDAS,
    accumulated_evidence,
    alarm_log_wealth,
    card_edges,
    mixture_wealth,
    next_card_odds,
    patron_evidence,
    stake_weights,
)
from pipeline.rules.games import Game
from tests.patterns.calibration import NOMINAL, measure
from tests.patterns.floors import FIRST_DAY, edge_sorter, flat, informed, play_floor

RATE = 0.001
WINDOW = 7
CLEAN_DAYS = int(os.environ.get("EVIDENCE_DAYS", "20"))
DAYS = [FIRST_DAY + timedelta(days=i) for i in range(3)]


def named_by_day(rounds, patron: str, code: str) -> list[bool]:  # type: ignore[no-untyped-def]
    """Whether ``patron`` is named with ``code`` on each of the floor's days, looked at as the
    stage looks: the window's rounds up to that day."""
    named = []
    for day in sorted({r.gaming_date for r in rounds}):
        window = [r for r in rounds if day - timedelta(days=WINDOW) <= r.gaming_date <= day]
        findings = accumulated_evidence(window, day, RATE, WINDOW)
        named.append(any(f.patron_id == patron and f.code == code for f in findings))
    return named


def test_the_card_edges_are_the_oracles_odds_given_the_first_card() -> None:
    """3.7(c): the first card dealt is the Player's. Averaged over the first card's odds from a
    full shoe, the edges are the Player's exact edge over the Banker; a 7, 8 or 9 favours the
    Player and a 0-5 the Banker."""
    for game in Game:
        edges = card_edges(game, 8)
        counts = outcome_counts(shoe_counts(8), game)
        total = sum(counts.values())
        player = sum(c for o, c in counts.items() if o.player_points > o.banker_points)
        banker = sum(c for o, c in counts.items() if o.player_points < o.banker_points)
        full = next_card_odds(8, [0] * 10)
        assert full is not None
        mean = sum(q * e for q, e in zip(full, edges, strict=True))
        assert math.isclose(mean, (player - banker) / total, abs_tol=1e-12), game
        assert all(edges[v] > 0 for v in (7, 8, 9)) and all(edges[v] < 0 for v in range(6))


def test_the_next_cards_odds_are_the_cards_not_yet_seen() -> None:
    """3.5(a): after a proper shuffle every card not yet seen is equally likely to come next."""
    full = next_card_odds(8, [0] * 10)
    assert full == tuple([128 / 416] + [32 / 416] * 9)
    seen = [10, 0, 0, 0, 0, 0, 0, 32, 0, 1]
    odds = next_card_odds(8, seen)
    assert odds is not None and odds[7] == 0.0 and odds[0] == 118 / 373
    assert next_card_odds(8, [0, 0, 0, 0, 0, 0, 0, 33, 0, 0]) is None  # a 33rd seven: misread


@settings(max_examples=200, deadline=None)
@given(
    seen=st.lists(st.integers(0, 32), min_size=10, max_size=10),
    player=st.booleans(),
    lam=st.sampled_from(PREVIEW_LAMBDAS),
    weight=st.floats(0, 1),
)
def test_every_preview_factor_averages_one_under_fair_play(
    seen: list[int], player: bool, lam: float, weight: float
) -> None:
    """The test martingale's defining property: whatever the shoe has dealt and whatever the
    patron bet, the factor of the next round averages exactly 1 over the next card's odds and
    is never negative, so fair play's evidence is a martingale (Ville's inequality)."""
    seen[0] = min(seen[0] * 4, 128)
    odds = next_card_odds(8, seen)
    if odds is None:
        return
    edges = card_edges(Game.PUNTO_BANCO, 8)
    mean = sum(q * e for q, e in zip(odds, edges, strict=True))
    side = 1 if player else -1
    factors = [1 + lam * weight * side * (e - mean) / (max(edges) - min(edges)) for e in edges]
    assert min(factors) >= 0
    assert math.isclose(sum(q * f for q, f in zip(odds, factors, strict=True)), 1.0)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(1, 50), min_size=1, max_size=40), st.integers(1, 50))
def test_a_stake_weight_never_looks_ahead(stakes: list[int], later: int) -> None:
    """A weight depends only on the stakes before it: a later stake changes none of them."""
    assert stake_weights(stakes).tolist() == stake_weights([*stakes, later]).tolist()[:-1]
    assert all(0 <= w <= 1 for w in stake_weights(stakes))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([1, 3, 40, 5_000]), st.integers(1, 1_500))
def test_a_stake_weight_is_its_share_of_the_stakes_before_it(
    seed: int, distinct: int, rounds: int
) -> None:
    """The weight of 3.2(d)'s stake made before the cards: the share of the earlier stakes it
    equals or tops, whether the patron has a few distinct stakes (counted by value) or more
    than a block of them (counted a block at a time)."""
    stakes = np.random.default_rng(seed).integers(1, distinct + 1, rounds) * 500
    expected = [0.5] + [int((stakes[:i] <= stakes[i]).sum()) / i for i in range(1, len(stakes))]
    assert stake_weights(stakes).tolist() == expected


def test_a_wealth_that_a_fair_bettor_cannot_grow_stays_low() -> None:
    """No step means no evidence: a mixture over zero steps stays at its start."""
    wealth = mixture_wealth(np.zeros(50), np.full(50, 0.5), PREVIEW_LAMBDAS, np.ones(50))
    assert wealth.log_peak == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_an_edge_sorter_is_named_on_the_third_day_with_the_days(seed: int) -> None:
    """NJ-PATTERN-CARD-PREVIEW (3.2(d), 3.7(b)): a patron who knows only whether the Player's
    first card is a 7, 8 or 9 and then bets Player (else Banker or the usual side), at a flat
    stake, 100 rounds a day at one table: not named on day one, named by day three, with
    each day's share of the evidence; a flat bettor beside them is never named."""

    def sloppy(patron, seen, rng):  # type: ignore[no-untyped-def]
        return edge_sorter(patron, seen, rng) if seen.next_card >= 7 else flat(patron, seen, rng)

    rounds = play_floor(seed, 3, 1, 100, [[("PAT-EDGE", sloppy), ("PAT-FLAT", flat)]])
    named = named_by_day(rounds, "PAT-EDGE", PREVIEW_CODE)
    assert named[0] is False and named[2] is True
    assert not any(named_by_day(rounds, "PAT-FLAT", PREVIEW_CODE))
    finding = next(
        f for f in accumulated_evidence(rounds, DAYS[2], RATE, WINDOW) if f.code == PREVIEW_CODE
    )
    assert all(f"{day} at T01" in finding.message for day in DAYS)
    assert "edge sorting" in finding.message and "PAT-EDGE" in finding.message
    assert finding.event_ids and finding.expected_cents is not None


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_a_patient_informed_patron_is_named_on_the_third_day(seed: int) -> None:
    """NJ-PATTERN-INFORMED-ACCUMULATED (3.2(d), 3.7(b)): a patron who knows the winner of 20 %
    of rounds and stakes five units on it then, 100 rounds a day: named by day three with the
    money at stake (won against the odds' expectation, in cents)."""
    rounds = play_floor(seed, 3, 1, 100, [[("PAT-INF", informed(0.2)), ("PAT-FLAT", flat)]])
    named = named_by_day(rounds, "PAT-INF", ACCUMULATED_CODE)
    assert named[2] is True
    finding = next(
        f for f in accumulated_evidence(rounds, DAYS[2], RATE, WINDOW) if f.code == ACCUMULATED_CODE
    )
    assert finding.actual_cents is not None and finding.expected_cents is not None
    assert finding.actual_cents > finding.expected_cents
    assert "PAT-INF" in finding.message and "Trail" in finding.message


def test_clean_floors_stay_within_the_stated_rates() -> None:
    """Over clean floors of every common progression (flat, martingale, paroli, trend, whale),
    no accumulated alarm at the configured rate, and each accumulated test's looks reach
    100 times their starting wealth no more often than Ville's 1 % allows (with the slack of
    a few correlated looks of one patron)."""
    rates = measure(seed=11, days=CLEAN_DAYS, tables=6, rounds_a_day=150)
    for style, counts in rates.items():
        assert counts.alarms == 0, style
        for past in (counts.informed_past, counts.preview_past):
            assert past <= NOMINAL * counts.looks + 3 * math.sqrt(counts.looks), style


def test_only_patrons_who_played_the_day_are_looked_at() -> None:
    """A look is a day the patron played: evidence from earlier days names nobody who did not
    come back (the false-alarm rate counts at most one look a day played)."""
    rounds = play_floor(3, 3, 1, 80, [[("PAT-EDGE", edge_sorter)]])
    later = DAYS[2] + timedelta(days=1)
    assert patron_evidence(rounds, later) == []
    assert accumulated_evidence(rounds, later, RATE, WINDOW) == []


@pytest.mark.parametrize("rate", [0.0, 1.0, -0.1, 2.0])
def test_a_rate_outside_0_1_is_refused(rate: float) -> None:
    with pytest.raises(ValueError, match="evidence_false_alarm_rate"):
        accumulated_evidence([], DAYS[0], rate, WINDOW)


def test_the_catalog_setting_is_validated() -> None:
    errors: list[str] = []
    settings_ = pattern_settings({"evidence_false_alarm_rate": 1e-4}, errors)
    assert errors == [] and settings_.evidence_false_alarm_rate == 1e-4
    pattern_settings({"evidence_false_alarm_rate": 1.5}, errors)
    assert errors and "evidence_false_alarm_rate" in errors[0] and "patron a year" in errors[0]


def test_the_alarm_bar_spends_the_rate_over_a_years_looks() -> None:
    """Two tests a look, at most 366 looks a year: the bar is 2 x 366 / rate."""
    assert alarm_log_wealth(RATE) == pytest.approx(math.log(2 * 366 / RATE))
