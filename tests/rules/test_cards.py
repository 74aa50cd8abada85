"""Card values, point counts and burn counts: N.J.A.C. 19:47-3.1, 3.5(e), 3.9(a)."""

from __future__ import annotations

import itertools

import pytest

from pipeline.rules.cards import (
    TEN_VALUE_RANKS,
    Card,
    Rank,
    Suit,
    burn_value,
    card_value,
    cards,
    hand_points,
    is_natural,
    point_count,
)

from ._golden import card_values, source_header

GOLDEN_VALUES = card_values()


@pytest.mark.rule("PB-3.1b-VALUE", "PB-3.5e-BURN")
def test_golden_card_values_cover_every_rank() -> None:
    """N.J.A.C. 19:47-3.1(b), 3.5(e): the golden transcription lists all 13 ranks once."""
    assert source_header("card_values.txt").startswith("# Source: N.J.A.C. 19:47-3.1(b)")
    assert sorted(GOLDEN_VALUES) == sorted(r.value for r in Rank)


@pytest.mark.rule("PB-3.1b-VALUE")
@pytest.mark.parametrize("rank", list(Rank), ids=lambda r: r.name)
def test_card_value_every_rank(rank: Rank) -> None:
    """N.J.A.C. 19:47-3.1(b) (4.1(b), 7.1(b)): 2-9 face value, ten/jack/queen/king zero,
    ace one (PB-3.1b-VALUE)."""
    expected_value, _burn = GOLDEN_VALUES[rank.value]
    assert card_value(rank) == expected_value
    for suit in Suit:
        assert Card(rank, suit).value == expected_value


@pytest.mark.rule("PB-3.5e-BURN", "CF-4.4e-BURN", "MB-7.5f-BURN")
@pytest.mark.parametrize("rank", list(Rank), ids=lambda r: r.name)
def test_burn_value_every_rank(rank: Rank) -> None:
    """N.J.A.C. 19:47-3.5(e), 4.4(e), 7.5(f): for the burn "face cards and tens count as
    tens. Aces count as one" - unlike the 3.1(b) value (PB-3.5e-BURN)."""
    _value, expected_burn = GOLDEN_VALUES[rank.value]
    assert burn_value(rank) == expected_burn


@pytest.mark.rule("PB-3.1b-VALUE", "PB-3.5e-BURN")
def test_value_and_burn_differ_exactly_for_ten_value_cards() -> None:
    """N.J.A.C. 19:47-3.1(b) vs 3.5(e): only ten, jack, queen and king differ (0 vs 10)."""
    differing = {rank for rank in Rank if card_value(rank) != burn_value(rank)}
    assert differing == {Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING} == set(TEN_VALUE_RANKS)
    assert all(card_value(r) == 0 and burn_value(r) == 10 for r in differing)


@pytest.mark.rule("PB-3.1c-POINT-COUNT")
def test_point_count_examples_of_3_1_c() -> None:
    """N.J.A.C. 19:47-3.1(c)1-2 (4.1(c), 7.1(c)): ace, 2 and 4 count 7; ace, 2 and 9 total
    12 and count 2 (PB-3.1c-POINT-COUNT)."""
    assert hand_points(cards("AH 2C 4D")) == 7
    assert hand_points(cards("AS 2D 9C")) == 2
    assert point_count([1, 2, 9]) == 2


@pytest.mark.rule("PB-3.1b-VALUE", "PB-3.1c-POINT-COUNT")
def test_point_count_of_every_two_and_three_rank_hand() -> None:
    """N.J.A.C. 19:47-3.1(b)-(c): the right digit of the total of the golden values, for all
    13^2 two-card and 13^3 three-card rank combinations."""
    ranks = list(Rank)
    for n in (2, 3):
        for combo in itertools.product(ranks, repeat=n):
            hand = [Card(r, Suit.SPADES) for r in combo]
            expected = sum(GOLDEN_VALUES[r.value][0] for r in combo) % 10
            assert hand_points(hand) == expected, combo


@pytest.mark.rule("PB-3.9a-NATURAL")
def test_is_natural_only_two_card_eight_or_nine() -> None:
    """N.J.A.C. 19:47-3.9(a): a "natural" is an 8 or 9 on the initial two cards; a
    three-card 8 or 9 is not a natural (PB-3.9a-NATURAL)."""
    for points in range(10):
        assert is_natural(points, 2) is (points in (8, 9))
        assert is_natural(points, 3) is False


@pytest.mark.rule("PB-3.1b-VALUE")
def test_card_parse_notation() -> None:
    """N.J.A.C. 19:47-3.1(b): the two-character notation round-trips for all 52 cards and
    rejects anything else (PB-3.1b-VALUE)."""
    for rank in Rank:
        for suit in Suit:
            card = Card(rank, suit)
            assert Card.parse(str(card)) == card
            assert Card.parse(str(card).lower()) == card
    assert cards("TS KH") == (Card(Rank.TEN, Suit.SPADES), Card(Rank.KING, Suit.HEARTS))
    for bad in ("", "1H", "10H", "AX", "A"):
        with pytest.raises(ValueError, match="card"):
            Card.parse(bad)
