"""The enumeration behind the exact odds oracle: totals, fast == baseline, card-level brute force.

Draw rules under test are the rules layer's: N.J.A.C. 19:47-3.9(a) naturals, 3.9(b) Table 1,
3.9(c)-(g) Table 2 (7.9 for Minibaccarat), 4.9(a) and Table 3 for Chemin de Fer.
"""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.oracle.enumeration import (
    VALUE_CARDS,
    baseline_outcome_counts,
    falling,
    outcome_counts,
    shoe_counts,
    total_sequences,
)
from pipeline.rules.cards import RANKS, Card, Rank, Suit, card_value
from pipeline.rules.deal import Options, deal_round
from pipeline.rules.games import Game
from pipeline.rules.outcome import RoundOutcome

EIGHT_DECK_TOTAL = 416 * 415 * 414 * 413 * 412 * 411
SIX_DECK_TOTAL = 312 * 311 * 310 * 309 * 308 * 307
ALL_OPTIONS = [Options(p, b) for p in (True, False) for b in (True, False)]


def test_shoe_has_sixteen_zeros_and_four_of_each_value_per_deck() -> None:
    """N.J.A.C. 19:47-3.1(b): tens and faces count zero; 3.1(a): at least six decks."""
    assert shoe_counts(8) == (128,) + (32,) * 9
    assert shoe_counts(6) == (96,) + (24,) * 9
    assert sum(shoe_counts(1)) == 52
    with pytest.raises(ValueError, match="at least one deck"):
        shoe_counts(0)


def test_value_cards_represent_each_value_once() -> None:
    assert [c.value for c in VALUE_CARDS] == list(range(10))


@pytest.mark.parametrize(
    ("decks", "expected"), [(8, EIGHT_DECK_TOTAL), (6, SIX_DECK_TOTAL)], ids=["8", "6"]
)
@pytest.mark.parametrize("game", list(Game), ids=lambda g: g.value)
def test_counts_sum_to_ordered_six_card_sequences(decks: int, expected: int, game: Game) -> None:
    """Every deal is weighted by (N-k)!/(N-6)!, so the total is N(N-1)...(N-5) exactly."""
    counts = shoe_counts(decks)
    assert total_sequences(counts) == expected == falling(52 * decks, 6)
    for options in ALL_OPTIONS if game is Game.CHEMIN_DE_FER else [Options()]:
        dist = outcome_counts(counts, game, options)
        assert sum(dist.values()) == expected
        assert all(isinstance(n, int) and n > 0 for n in dist.values())


@pytest.mark.parametrize("decks", [1, 2])
def test_fast_equals_deal_round_baseline_punto_banco(decks: int) -> None:
    """The fast enumeration and the baseline that deals every prefix through deal_round
    (3.7(c) order, 3.9 Tables 1 and 2) agree exactly, outcome by outcome."""
    counts = shoe_counts(decks)
    fast = outcome_counts(counts, Game.PUNTO_BANCO)
    assert fast == baseline_outcome_counts(counts, Game.PUNTO_BANCO)
    assert sum(fast.values()) == falling(52 * decks, 6)


@pytest.mark.parametrize("game", list(Game))
def test_the_deals_of_a_first_card_fast_equal_the_baseline(game: Game) -> None:
    """3.7(c): the first card dealt is the Player's. The deals that begin with each value,
    counted fast, are the baseline's deals dealt from that card, outcome by outcome; together
    they are every deal."""
    counts = shoe_counts(1)
    every: dict[RoundOutcome, int] = {}
    for value in range(10):
        fast = outcome_counts(counts, game, first=value)
        assert fast == baseline_outcome_counts(counts, game, dealt_first=[value])
        for outcome, count in fast.items():
            every[outcome] = every.get(outcome, 0) + count
    assert every == outcome_counts(counts, game)


@pytest.mark.slow
@pytest.mark.parametrize("options", [Options(False, False), Options(True, False)], ids=str)
def test_fast_equals_baseline_chemin_de_fer(options: Options) -> None:
    """4.9(a)2 and the Table 3 "Op." cells (4.9(f)) follow the chosen policy in both."""
    counts = shoe_counts(1)
    fast = outcome_counts(counts, Game.CHEMIN_DE_FER, options)
    assert fast == baseline_outcome_counts(counts, Game.CHEMIN_DE_FER, options)


def test_minibaccarat_draws_like_punto_banco() -> None:
    """7.9 repeats Tables 1 and 2 of 3.9."""
    counts = shoe_counts(8)
    assert outcome_counts(counts, Game.MINIBACCARAT) == outcome_counts(counts, Game.PUNTO_BANCO)


def test_chemin_de_fer_drawing_on_every_option_is_punto_banco() -> None:
    """Table 3 differs from Table 2 only in its "Op." cells (Banker 3 against a 9, Banker 5
    against a 4, 4.9(c)), where Table 2 draws, and 4.9(a)2 leaves 5 to the Player where Table 1
    draws; so drawing on every option reproduces Punto Banco exactly, and any other policy
    does not."""
    counts = shoe_counts(8)
    punto_banco = outcome_counts(counts, Game.PUNTO_BANCO)
    assert outcome_counts(counts, Game.CHEMIN_DE_FER, Options(True, True)) == punto_banco
    for options in ALL_OPTIONS[1:]:
        assert outcome_counts(counts, Game.CHEMIN_DE_FER, options) != punto_banco


def _brute_force(shoe: list[Card], game: Game, options: Options) -> Counter[RoundOutcome]:
    """Every ordered six-card sequence of the physical cards, dealt by deal_round."""
    return Counter(
        deal_round(game, seq, options).outcome for seq in itertools.permutations(shoe, 6)
    )


def _value_counts(shoe: list[Card]) -> list[int]:
    counts = [0] * 10
    for card in shoe:
        counts[card.value] += 1
    return counts


@settings(max_examples=25, deadline=None)
@given(
    ranks=st.lists(st.sampled_from(RANKS), min_size=6, max_size=8),
    game=st.sampled_from(list(Game)),
    options=st.sampled_from(ALL_OPTIONS),
)
def test_card_level_brute_force_on_tiny_shoes(
    ranks: list[Rank], game: Game, options: Options
) -> None:
    """On a shoe of six to eight physical cards, counting all n!/(n-6)! ordered six-card
    sequences one by one gives exactly the weighted counts of both enumerations: this checks
    the removal weights and the (N-k)!/(N-6)! fill weighting independently of both."""
    suits = itertools.cycle(Suit)
    shoe = [Card(rank, next(suits)) for rank in ranks]
    expected = _brute_force(shoe, game, options)
    counts = _value_counts(shoe)
    assert outcome_counts(counts, game, options) == expected
    assert baseline_outcome_counts(counts, game, options) == expected


def test_card_level_brute_force_on_a_fixed_shoe_with_every_kind_of_deal() -> None:
    """A hand-picked nine-card shoe whose deals include naturals, a standing Player (6-7) with
    the Banker drawing, and both hands drawing (3.9(a)-(c))."""
    shoe = [Card.parse(t) for t in ("TH", "KS", "AH", "5C", "5D", "6S", "7H", "9C", "3D")]
    expected = _brute_force(shoe, Game.PUNTO_BANCO, Options())
    assert {o.total_cards for o in expected} == {4, 5, 6}
    assert any(o.player_natural for o in expected)
    counts = _value_counts(shoe)
    assert outcome_counts(counts, Game.PUNTO_BANCO) == expected
    assert sum(expected.values()) == falling(9, 6)


@settings(max_examples=20, deadline=None)
@given(
    counts=st.lists(st.integers(0, 2), min_size=10, max_size=10).filter(lambda c: sum(c) >= 6),
    game=st.sampled_from(list(Game)),
    options=st.sampled_from(ALL_OPTIONS),
)
def test_fast_equals_baseline_on_random_small_shoes(
    counts: list[int], game: Game, options: Options
) -> None:
    fast = outcome_counts(counts, game, options)
    assert fast == baseline_outcome_counts(counts, game, options)
    assert sum(fast.values()) == total_sequences(counts)


def test_rejects_shoes_that_cannot_complete_a_round() -> None:
    """3.12(e): a round the shoe cannot complete is void, so the oracle needs six cards."""
    with pytest.raises(ValueError, match="at least 6"):
        outcome_counts([5, 0, 0, 0, 0, 0, 0, 0, 0, 0], Game.PUNTO_BANCO)
    with pytest.raises(ValueError, match="ten non-negative"):
        outcome_counts([1] * 9, Game.PUNTO_BANCO)


def test_ranks_cover_values_by_card_value() -> None:
    """Values come from the rules layer's card_value (3.1(b)), ten-value ranks are zero."""
    assert sorted({card_value(r) for r in RANKS}) == list(range(10))
